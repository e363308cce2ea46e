import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config';

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** Links (hosted checkout) use PUBLIC_BASE_URL, else the address the caller used (Host header), else localhost:PORT. */
export function defaultBaseUrl(config: Config): string {
  return config.publicBaseUrl ? config.publicBaseUrl.replace(/\/+$/, '') : `http://localhost:${config.port}`;
}

export function requestBaseUrl(config: Config, request: FastifyRequest): string {
  if (config.publicBaseUrl) return defaultBaseUrl(config);
  const host = request.headers.host;
  if (host && HOST.test(host)) return `${request.protocol}://${host}`;
  return defaultBaseUrl(config);
}
