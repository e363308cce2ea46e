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
import { ErrorSchema } from './route-docs';

const PREFIX = '/v1';

export const OPENAPI_INFO = {
  title: 'Merchant Payments and Payouts API',
  version: '1.0.0',
  description: 'REST compatibility routes. Authenticate with HTTP Basic: public key as username, secret key as password.',
};

export function swaggerOptions(): FastifyDynamicSwaggerOptions {
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
      const paths = (doc.paths ?? {}) as Record<
        string,
        Record<string, { requestBody?: { required?: boolean; content?: Record<string, { schema?: { required?: unknown } } | undefined> } } | undefined>
      >;
      for (const item of Object.values(paths)) {
        for (const op of Object.values(item)) {
          const body = op?.requestBody?.content?.['application/json']?.schema;
          if (body && op.requestBody && !(Array.isArray(body.required) && body.required.length > 0)) op.requestBody.required = false;
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
        response: { 200: { description: 'The OpenAPI 3.1 document of the REST routes.', type: 'object' } },
      },
    },
    async (_req, reply) => sendJson(reply, 200, (document ??= fastify.swagger())),
  );
}
