/**
 * The merchant dashboard at /dashboard: the static files `npm run build` bundles into
 * dist/dashboard (sources in dashboard/). No authentication here: the page holds no data;
 * it signs in to the public GraphQL API with the merchant's key pair, kept in the browser
 * session. A strict CSP: scripts, styles, images and fetches from this origin only, plus
 * the graphql-ws socket of the same host; nothing inline, no frames, no other hosts.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors';
import type { PublicBaseUrl } from '../domain/public-url';

const DIR = path.resolve(__dirname, '../../dashboard');
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** The CSP: this origin only, plus the graphql-ws socket of the public base URL (never the request's Host). */
export function dashboardCsp(publicBase: string): string {
  const { protocol, host } = new URL(publicBase);
  const sockets = ` ${protocol === 'https:' ? 'wss' : 'ws'}://${host}`;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${sockets}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The built files, read once: name -> body. Empty when the dashboard was not built. In
 * production the source maps stay on disk (`withMaps` false): they would publish the sources.
 */
export function loadFiles(dir: string, withMaps: boolean): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  if (!fs.existsSync(dir)) return files;
  for (const name of fs.readdirSync(dir)) {
    const ext = path.extname(name);
    if (Object.hasOwn(TYPES, ext) && (withMaps || ext !== '.map')) files.set(name, fs.readFileSync(path.join(dir, name)));
  }
  return files;
}

export function registerDashboardRoutes(fastify: FastifyInstance, publicUrl: PublicBaseUrl, production = false): void {
  let files: Map<string, Buffer> | null = null;
  const send = (_request: FastifyRequest, reply: FastifyReply, name: string) => {
    files ??= loadFiles(DIR, !production);
    const body = files.get(name);
    reply
      .header('Content-Security-Policy', dashboardCsp(publicUrl.get()))
      .header('X-Content-Type-Options', 'nosniff')
      .header('X-Frame-Options', 'DENY')
      .header('Referrer-Policy', 'no-referrer')
      .header('Cache-Control', name === 'index.html' ? 'no-store' : 'no-cache');
    // Answered in the contract's error shape, like every other error of the service.
    if (!body && files.size === 0) throw new ApiError('service_unavailable', 'The dashboard is not available on this server.');
    if (!body) throw new ApiError('not_found', 'No such dashboard file.');
    return reply
      .code(200)
      .header('Content-Type', TYPES[path.extname(name)] ?? 'application/octet-stream')
      .send(body);
  };
  fastify.get('/dashboard', (request, reply) => send(request, reply, 'index.html'));
  fastify.get('/dashboard/', (request, reply) => send(request, reply, 'index.html'));
  fastify.get<{ Params: { file: string } }>('/dashboard/:file', (request, reply) => send(request, reply, request.params.file));
}
