/**
 * Prometheus metrics at /metrics (prom-client): process defaults plus request counts and
 * latency by method, route pattern and status, the rate limiter's refusals and fallbacks,
 * and whether the database is available. Route patterns, never raw URLs, so ids do
 * not explode the label space. No merchant data is exposed.
 */
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/db';
import type { RateLimiter } from './rate-limit';

export function registerMetrics(fastify: FastifyInstance, limiter?: RateLimiter, db?: Db): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'http_request_duration_seconds', help: 'HTTP request duration', labelNames, registers: [registry],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  });
  if (limiter) {
    // Read from the limiter at scrape time. `fallback` counts decisions taken in memory
    // because Redis was not ready (the limit is then per process, not shared).
    new Counter({
      name: 'rate_limit_refused_total', help: 'Requests and graphql-ws operations refused with rate_limited by this process', registers: [registry],
      collect() { this.reset(); this.inc(limiter.stats.limited); },
    });
    new Counter({
      name: 'rate_limit_fallback_total', help: 'Rate-limit decisions taken in process memory because Redis was not ready or failed', registers: [registry],
      collect() { this.reset(); this.inc(limiter.stats.fallbacks); },
    });
  }
  if (db) {
    // 0 while the service answers 503 because the database is out (docs/operations.md, "Timeouts and outages").
    new Gauge({
      name: 'database_available', help: '1 when the database answers, 0 during an outage (requests get 503 service_unavailable)', registers: [registry],
      collect() { this.set(db.available ? 1 : 0); },
    });
    new Counter({
      name: 'database_statements_total', help: 'SQL statements sent by this process', registers: [registry],
      collect() { this.reset(); this.inc(db.queryCount); },
    });
    new Counter({
      name: 'database_round_trips_total', help: 'Queries sent by this process (several statements may go in one query)', registers: [registry],
      collect() { this.reset(); this.inc(db.roundTripCount); },
    });
  }
  fastify.addHook('onResponse', async (request, reply) => {
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
  });
  fastify.get('/metrics', async (_req, reply) => reply.type(registry.contentType).send(await registry.metrics()));
  return registry;
}
