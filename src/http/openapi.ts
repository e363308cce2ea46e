/**
 * The OpenAPI 3.1 document of the REST routes, served at /v1/openapi.json: the modules'
 * fragments (`x.openapi.ts`, declared in `x.module.ts`) and the parts every route shares. A test checks
 * that every registered /v1 route appears here and every documented route exists.
 */
import type { FastifyInstance } from 'fastify';
import { sendJson } from './plumbing';
import { json } from './openapi.parts';
import { MODULES } from '../modules';

export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'Merchant Payments and Payouts API',
    version: '1.0.0',
    description: 'REST compatibility routes. Authenticate with HTTP Basic: public key as username, secret key as password.',
  },
  servers: [{ url: '/v1' }],
  security: [{ basic: [] }],
  paths: {
    '/openapi.json': {
      get: {
        summary: 'This document. Needs no credentials.',
        security: [],
        responses: { 200: { description: 'The OpenAPI 3.1 document of the REST routes.', content: json({ type: 'object' }) } },
      },
    },
    ...Object.assign({}, ...MODULES.map((m) => m.openapi?.paths ?? {})),
  },
  components: {
    securitySchemes: { basic: { type: 'http', scheme: 'basic' } },
    schemas: {
      ...Object.assign({}, ...MODULES.map((m) => m.openapi?.schemas ?? {})),
      Error: {
        type: 'object', required: ['error'],
        properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' }, param: { type: 'string', description: 'Validation errors only: the path of the offending field, query parameter or header.' } }, additionalProperties: false } },
      },
    },
  },
};

export function registerOpenApiRoute(fastify: FastifyInstance): void {
  fastify.get('/v1/openapi.json', async (_req, reply) => sendJson(reply, 200, OPENAPI_DOCUMENT));
}
