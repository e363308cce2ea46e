/** The routes a live Fastify server has registered, read from printRoutes (method and URL pattern). */
import type { FastifyInstance } from 'fastify';

export function registeredRoutes(server: FastifyInstance): { method: string; url: string }[] {
  const text = server.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const routes: { method: string; url: string }[] = [];
  for (const line of text.split('\n')) {
    const m = /^(.*?)[├└]── (.*)$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    const node = /^(.*?) \(([A-Z, ]+)\)$/.exec(m[2]);
    const segment = node ? node[1] : m[2];
    stack.length = depth;
    const url = (depth > 0 ? stack[depth - 1] : '') + segment;
    stack[depth] = url;
    if (node) for (const method of node[2].split(', ')) routes.push({ method, url });
  }
  return routes;
}
