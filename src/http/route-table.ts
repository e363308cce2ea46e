/**
 * Unknown paths and methods: every registered route's methods by URL pattern, so that a
 * request no route took is answered 405 with `Allow` when its path has other methods, else
 * 404 not_found.
 */
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors';
import { pathOf } from './request';

/** An error that needs response headers of its own (`Allow` on a 405, `Retry-After` on a 503). */
export type WithHeaders = ApiError & { headers?: Record<string, string> };

export function withHeaders(err: ApiError, headers: Record<string, string>): ApiError {
  return Object.assign(err, { headers: { ...(err as WithHeaders).headers, ...headers } });
}

export function routeNotFound(request: FastifyRequest): ApiError {
  return new ApiError('not_found', `Unrecognized request URL (${request.method} ${pathOf(request.url)}).`);
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const methodRank = (m: string) => (METHOD_ORDER.includes(m) ? METHOD_ORDER.indexOf(m) : METHOD_ORDER.length);

/**
 * A route URL in find-my-way syntax as a regular expression over request paths: `:name` (and
 * `:name(regex)`) matches one non-empty segment, `*` the rest, `::` is a literal colon.
 */
export function routePattern(url: string): RegExp {
  let re = '';
  for (let i = 0; i < url.length; i++) {
    const c = url[i];
    if (c === ':' && url[i + 1] === ':') {
      re += ':';
      i++;
    } else if (c === ':') {
      let j = i + 1;
      while (j < url.length && /[A-Za-z0-9_$]/.test(url[j])) j++;
      if (url[j] === '(') {
        for (let depth = 0; j < url.length; j++) {
          if (url[j] === '\\') j++;
          else if (url[j] === '(') depth++;
          else if (url[j] === ')' && --depth === 0) break;
        }
        j++;
      }
      re += '[^/]+';
      i = j - 1;
    } else if (c === '*') {
      re += '.*';
    } else {
      re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}

/**
 * Every registered route's methods by URL pattern, filled by an onRoute hook (so a route
 * added anywhere, in any plugin, is covered without further code). The 404 path asks it
 * which methods the request's path does have: none is a 404, some is a 405 with `Allow`.
 * HEAD is listed wherever Fastify exposes it (beside every GET).
 */
export class RouteTable {
  private readonly byUrl = new Map<string, { pattern: RegExp; methods: Map<string, boolean> }>();

  add(method: string | string[], url: string, testOnly = false): void {
    let entry = this.byUrl.get(url);
    if (!entry) {
      entry = { pattern: routePattern(url), methods: new Map() };
      this.byUrl.set(url, entry);
    }
    for (const m of [method].flat()) entry.methods.set(m.toUpperCase(), testOnly);
  }

  /** The methods served at `path` (no query string), in a stable order; test-only routes count for test keys only. */
  methodsAt(path: string, testMode: boolean): string[] {
    const found = new Set<string>();
    for (const { pattern, methods } of this.byUrl.values()) {
      if (!pattern.test(path)) continue;
      for (const [m, testOnly] of methods) if (testMode || !testOnly) found.add(m);
    }
    return [...found].sort((a, b) => methodRank(a) - methodRank(b) || a.localeCompare(b));
  }
}

function decodedPath(url: string): string {
  const path = pathOf(url);
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

/** The answer to a request no route took: 405 with `Allow` when the path has other methods, else 404. */
export function routeError(request: FastifyRequest, routes: RouteTable): ApiError {
  const path = decodedPath(request.url);
  const methods = routes.methodsAt(path, request.ctx?.environment === 'test');
  if (methods.length === 0 || methods.includes(request.method)) return routeNotFound(request);
  const allow = methods.join(', ');
  return withHeaders(new ApiError('method_not_allowed', `${request.method} is not supported on ${pathOf(request.url)}; use ${allow}.`), {
    Allow: allow,
  });
}
