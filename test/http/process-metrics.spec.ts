/**
 * The process's own metrics (CPU, memory, GC, event loop) are collected only by a server that
 * serves /metrics: prom-client's collectors, its GC observer among them, stay registered with
 * Node for the life of the process, so a server without a metrics listener must not start them.
 */
import Fastify from 'fastify';
import { registerMetrics, serveMetrics } from '../../src/http/metrics';

test('a server that does not serve /metrics collects no process metrics; one that does, collects them', async () => {
  const fastify = Fastify();
  try {
    const registry = registerMetrics(fastify);
    const before = await registry.metrics();
    expect(before).toContain('http_requests_total');
    expect(before).not.toContain('process_cpu_user_seconds_total');
    expect(before).not.toContain('nodejs_gc_duration_seconds');

    serveMetrics(fastify, registry, { port: 0, host: '127.0.0.1' });
    const served = await registry.metrics();
    expect(served).toContain('process_cpu_user_seconds_total');
    expect(served).toContain('nodejs_gc_duration_seconds');
  } finally {
    await fastify.close();
  }
});
