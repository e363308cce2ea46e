/**
 * Prometheus metrics (prom-client): process defaults (when served) plus request counts and latency by
 * method, route pattern and status, the rate limiter's refusals and fallbacks, refused
 * credentials, refused permissions, whether the database is available, its conflicts retried or lost (counted by
 * Db.tx) and reads its readers left to the writer. Route patterns, never raw URLs, so ids do
 * not explode the label space. No merchant data is exposed.
 *
 * They are not served on the API port: versions and per-route 401 counts are for the
 * operator, not for whoever reaches the API. With METRICS_PORT set, `GET /metrics` answers on
 * a listener of its own, on METRICS_HOST (default 127.0.0.1, loopback).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/db';
import { permissionRefusals } from '../domain/access';
import type { RateLimiter } from './rate-limit';

export function registerMetrics(
  fastify: FastifyInstance,
  limiter?: RateLimiter,
  db?: Db,
  auth?: { readonly refused: Readonly<Record<string, number>> },
): Registry {
  const registry = new Registry();
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames,
    registers: [registry],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  });
  if (limiter) {
    // Read from the limiter at scrape time. `fallback` counts decisions taken in memory
    // because Redis was not ready (the limit is then per process, not shared).
    new Counter({
      name: 'rate_limit_refused_total',
      help: 'Requests and graphql-ws operations refused with rate_limited by this process',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(limiter.stats.limited);
      },
    });
    new Counter({
      name: 'rate_limit_fallback_total',
      help: 'Rate-limit decisions taken in process memory because Redis was not ready or failed',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(limiter.stats.fallbacks);
      },
    });
  }
  if (auth) {
    new Counter({
      name: 'auth_refused_total',
      help: 'Requests and graphql-ws operations refused with 401 by this process, by reason',
      labelNames: ['reason'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [reason, count] of Object.entries(auth.refused)) this.inc({ reason }, count);
      },
    });
  }
  new Counter({
    name: 'permission_refused_total',
    help: 'REST requests, GraphQL fields and subscriptions refused with 403 permission_denied by this process, by the permission missing',
    labelNames: ['permission'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [permission, count] of permissionRefusals) this.inc({ permission }, count);
    },
  });
  if (db) {
    // 0 while the service answers 503 because the database is out (docs/operations.md, "Timeouts and outages").
    new Gauge({
      name: 'database_available',
      help: '1 when the database answers, 0 during an outage (requests get 503 service_unavailable)',
      registers: [registry],
      collect() {
        this.set(db.available ? 1 : 0);
      },
    });
    new Counter({
      name: 'database_statements_total',
      help: 'SQL statements sent by this process',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(db.queryCount);
      },
    });
    // Units of work that lost to concurrent writers (deadlocks, lock wait time-outs, Galera
    // certification conflicts): each rerun, and each that lost every attempt (answered 503).
    new Counter({
      name: 'database_conflict_retries_total',
      help: 'Units of work rerun after losing to a concurrent writer (deadlock, lock wait time-out, Galera certification conflict)',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(db.conflicts.retries);
      },
    });
    new Counter({
      name: 'database_conflicts_exhausted_total',
      help: 'Units of work that lost to concurrent writers on every attempt (answered 503 service_unavailable with Retry-After)',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(db.conflicts.exhausted);
      },
    });
    new Counter({
      name: 'database_reader_fallbacks_total',
      help: 'Reads that a DATABASE_READ_URLS server could not serve (unavailable) and the writer ran',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(db.readers.fallbacks);
      },
    });
    new Counter({
      name: 'database_round_trips_total',
      help: 'Queries sent by this process (several statements may go in one query)',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(db.roundTripCount);
      },
    });
  }
  fastify.addHook('onResponse', async (request, reply) => {
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
  });
  return registry;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The metrics listener's address (METRICS_PORT), once the server is ready. */
    metricsAddress?: () => AddressInfo | undefined;
  }
}

/**
 * Serves `GET /metrics` of `registry` on its own listener at `host:port`, opened before the API server
 * listens and closed with it.
 */
export function serveMetrics(fastify: FastifyInstance, registry: Registry, { port, host }: { port: number; host: string }): void {
  // The process's own (CPU, memory, GC, event loop) only where they are served: prom-client's
  // GC observer is registered with Node for the life of the process and never removed, so a
  // server that does not serve metrics would pay a callback per collection for nothing, and
  // each test server would stay reachable, with its whole app, after it stopped.
  collectDefaultMetrics({ register: registry });
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' }).end(text),
      () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  fastify.decorate('metricsAddress', () => (server.listening ? (server.address() as AddressInfo) : undefined));
  // onReady runs (and is awaited) before the API server listens: a port that cannot be had fails the start.
  fastify.addHook('onReady', (done) => {
    server.once('error', done);
    server.listen(port, host, () => {
      server.off('error', done);
      done();
    });
  });
  fastify.addHook('onClose', (_instance, done) => {
    if (!server.listening) return done();
    server.close(() => done());
    server.closeAllConnections();
  });
}
