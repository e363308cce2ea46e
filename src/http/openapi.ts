/**
 * The OpenAPI 3.1 document of the REST routes, served at /v1/openapi.json. @fastify/swagger
 * builds it from the routes themselves: each route's schema is the one that validates it
 * (src/http/dispatch.ts), each module's `models` are the components. Nothing here repeats
 * a limit.
 */
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { MODULES } from '../modules';
import { sendJson } from './request';
import { ErrorSchema, failure } from './route-docs';

const PREFIX = '/v1';

export const OPENAPI_INFO = {
  title: 'Merchant Payments and Payouts API',
  version: '1.0.0',
  description: 'REST compatibility routes. Authenticate with HTTP Basic: public key as username, secret key as password.',
};

/** A JSON Schema draft-07 `dependencies` of names only, as 2020-12 spells it (`dependentRequired`). */
function dependentRequired(schema: unknown): Record<string, string[]> | undefined {
  const deps = (schema as { dependencies?: Record<string, unknown> } | undefined)?.dependencies;
  if (!deps) return undefined;
  const out = Object.entries(deps).filter((e): e is [string, string[]] => Array.isArray(e[1]));
  return out.length ? Object.fromEntries(out) : undefined;
}

export function swaggerOptions(): FastifyDynamicSwaggerOptions {
  // Rules across query parameters, by operationId: OpenAPI lists parameters one by one, so the
  // operation states them as `x-dependentRequired` (the JSON Schema keyword, over its query parameters).
  const queryDependencies = new Map<string, Record<string, string[]>>();
  return {
    openapi: {
      openapi: '3.1.0',
      info: OPENAPI_INFO,
      servers: [{ url: PREFIX }],
      security: [{ basic: [] }],
      components: { securitySchemes: { basic: { type: 'http', scheme: 'basic' } } },
    },
    // Components keep their `$id` as their name (#/components/schemas/PayoutIntent).
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url }) => {
      // Only the documented /v1 routes; GraphQL, health, metrics and checkout pages are not REST API.
      if (!url.startsWith(`${PREFIX}/`) || !schema || !('operationId' in schema)) return { schema: { ...schema, hide: true }, url };
      const deps = dependentRequired((schema as { querystring?: unknown }).querystring);
      if (deps) queryDependencies.set(String(schema.operationId), deps);
      // A route that also takes an upload documents both bodies, by media type.
      const { 'x-upload': upload, ...rest } = schema as typeof schema & { 'x-upload'?: unknown };
      if (upload) {
        const body = { content: { 'application/json': { schema: rest.body }, 'multipart/form-data': { schema: upload } } };
        return { schema: { ...rest, body }, url: url.slice(PREFIX.length) };
      }
      return { schema, url: url.slice(PREFIX.length) };
    },
    transformObject: (documentObject) => {
      const doc = (documentObject as { openapiObject: Record<string, any> }).openapiObject; // eslint-disable-line @typescript-eslint/no-explicit-any
      // @fastify/swagger marks every body required; a body with no required field may be absent (docs/contract.md).
      const paths = (doc.paths ?? {}) as Record<string, Record<string, unknown>>;
      for (const item of Object.values(paths)) {
        for (const op of Object.values(item) as (Record<string, unknown> | undefined)[]) {
          const requestBody = op?.requestBody as { required?: boolean; content?: Record<string, { schema?: { required?: unknown } } | undefined> } | undefined;
          const body = requestBody?.content?.['application/json']?.schema;
          if (body && requestBody && !(Array.isArray(body.required) && body.required.length > 0)) requestBody.required = false;
          const deps = op && queryDependencies.get(String(op.operationId));
          if (op && deps) op['x-dependentRequired'] = deps;
        }
      }
      return doc;
    },
  };
}

/** The components every module's answers refer to. */
export function registerModels(fastify: FastifyInstance): void {
  fastify.addSchema(ErrorSchema);
  for (const module of MODULES) for (const model of module.models ?? []) fastify.addSchema(model);
}

export function registerOpenApiRoute(fastify: FastifyInstance): void {
  let document: unknown;
  fastify.get(
    `${PREFIX}/openapi.json`,
    {
      schema: {
        operationId: 'getOpenApiDocument',
        summary: 'This document. Needs no credentials.',
        security: [],
        response: {
          200: { description: 'The OpenAPI 3.1 document of the REST routes.', type: 'object' },
          431: failure('request_header_fields_too_large: the request line and headers are over 16 KiB.'),
        },
      },
    },
    async (_req, reply) => sendJson(reply, 200, (document ??= fastify.swagger())),
  );
}
