/**
 * GraphQL errors carry the REST error code in `extensions.code` (docs/contract.md). This file is
 * the one place where domain errors become GraphQL errors: mutations (`mutate`), list
 * arguments (`withListArgs`), plain arguments (`withArgs`) and `formatError` for the rest.
 */
import { GraphQLError, GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import type { Logger } from 'pino';
import { ApiError, ERROR_CODES, ErrorBody } from '../domain/errors';
import type { Operation } from '../domain/operation';
import type { Answer } from '../ops/pipeline';
import type { GqlContext } from './context';
import { reviveWireRecords } from '../domain/wire-record';

/**
 * A single-record query's answer: the record, or - for an id that is unknown, foreign or in
 * the other environment - the field is null and the response carries the REST failure as a
 * `not_found` error (docs/contract.md: GraphQL reports the same failures with the same code).
 */
export async function foundOrNotFound<T>(record: Promise<T | null | undefined>, resource: string): Promise<T> {
  const found = await record;
  if (found === null || found === undefined) throw ApiError.notFound(resource);
  return found;
}

/** Maps REST parameter paths to GraphQL argument paths, e.g. `recipient.bank_code` -> `input.recipient.bankCode`. */
export function graphqlParam(param: string, prefix = 'input'): string {
  if (param === 'Idempotency-Key') return param;
  const camel = param.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return prefix ? `${prefix}.${camel}` : camel;
}

export function toGraphQLError(err: ApiError, paramPrefix = 'input'): GraphQLError {
  return new GraphQLError(err.message, {
    extensions: { code: err.code, ...(err.param ? { param: graphqlParam(err.param, paramPrefix) } : {}) },
  });
}

/**
 * Runs a mutation's operation through the pipeline and returns its value. A replay is
 * noted on the context so the HTTP response carries `Idempotent-Replayed: true`, as on
 * REST, and its stored bytes are read back (a stored refusal is raised again). Every
 * ApiError leaves here mapped to GraphQL names (`input.recipient.bankCode`), fresh or
 * replayed, so `extensions.param` does not depend on the Idempotency-Key header.
 */
export async function mutate<A, T>(
  gql: GqlContext,
  op: Operation<A, any, T>, // eslint-disable-line @typescript-eslint/no-explicit-any
  raw: unknown,
  args: A,
  paramPrefix = 'input',
): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await gql.services.pipeline.run(op, gql.ctx, raw, args, gql.idempotencyKey);
  } catch (err) {
    if (err instanceof ApiError) throw toGraphQLError(err, paramPrefix);
    throw err;
  }
  if (!answer.replayed) {
    if (answer.outcome === 'existing') noteDeduplicated(gql);
    return answer.value;
  }
  gql.replayed = true;
  // The stored answer's JSON, its records given back the names GraphQL reads (wire-record.ts).
  const body = reviveWireRecords(JSON.parse(answer.body) as T | ErrorBody);
  if (answer.status >= 400) {
    const { error } = body as ErrorBody;
    throw toGraphQLError(new ApiError(error.code, error.message, error.param), paramPrefix);
  }
  noteDeduplicated(gql);
  return body as T;
}

/** Notes that the running mutation answered with an existing record: the response's `extensions.deduplicated` says so (apollo.ts). */
function noteDeduplicated(gql: GqlContext): void {
  (gql.deduplicated ??= []).push(gql.mutationField ?? '');
}

/**
 * Apollo's and graphql-js's own codes for a request that cannot run: the document does not
 * parse (`GRAPHQL_PARSE_FAILED`, the token limit included) or validate
 * (`GRAPHQL_VALIDATION_FAILED`, graphql-armor's limits included), variables do not coerce
 * (`BAD_USER_INPUT`), no operation can be picked (`OPERATION_RESOLUTION_FAILURE`), or the
 * HTTP request itself is unusable (`BAD_REQUEST`: no body, no query, batching, CSRF). None
 * of them reaches a client: each becomes the contract's `validation_error`, or
 * `method_not_allowed` where Apollo answers 405 (a mutation over GET).
 */
const APOLLO_INPUT_CODES = new Set(['BAD_USER_INPUT', 'GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_PARSE_FAILED', 'OPERATION_RESOLUTION_FAILURE', 'BAD_REQUEST']);

function httpStatusOf(error: unknown): number | undefined {
  const status = (error as GraphQLError | undefined)?.extensions?.http as { status?: unknown } | undefined;
  return typeof status?.status === 'number' ? status.status : undefined;
}

export function formatError(log: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    if (original instanceof ApiError) {
      const e = toGraphQLError(original);
      return { ...formatted, message: e.message, extensions: e.extensions };
    }
    const code = formatted.extensions?.code;
    const status = httpStatusOf(error);
    // Apollo's input codes, and its refusals that carry a 4xx but no code at all (an
    // automatic persisted query whose hash does not match its document, or of an unknown
    // version; Apollo fills in INTERNAL_SERVER_ERROR): the request is unusable, the client's to fix.
    const uncodedClientError = (code === undefined || code === 'INTERNAL_SERVER_ERROR') && status !== undefined && status >= 400 && status < 500;
    if ((typeof code === 'string' && APOLLO_INPUT_CODES.has(code)) || uncodedClientError) {
      const mapped = status === 405 ? 'method_not_allowed' : 'validation_error';
      return { ...formatted, extensions: { ...formatted.extensions, code: mapped } };
    }
    // Only the contract's codes reach a client (the schema's ErrorCode enum lists them).
    if (typeof code === 'string' && Object.hasOwn(ERROR_CODES, code)) return formatted;
    log.error({ err: original }, 'unhandled GraphQL error');
    return {
      message: ApiError.internal().message,
      path: formatted.path,
      locations: formatted.locations,
      extensions: { code: 'internal_error' },
    };
  };
}

/** The paging arguments a list reports under their own names (its filters are under `filter.*`). */
const PAGING_ARGS = new Set(['last', 'before', 'sortKey', 'reverse']);

/** Runs a list parse/query, reporting bad arguments under their GraphQL names (`first`, `after`, `last`, `before`, `sortKey`, `filter.*`). */
export async function withListArgs<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError && err.param) {
      const mapped =
        err.param === 'limit' ? 'first' : err.param === 'cursor' ? 'after' : PAGING_ARGS.has(err.param) ? err.param : graphqlParam(err.param, 'filter');
      throw new GraphQLError(err.message, { extensions: { code: err.code, param: mapped } });
    }
    throw err;
  }
}

/** Runs a resolver's call whose validation errors name plain arguments (`first`, `after`, `checkoutMode`, `id`). */
export async function withArgs<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError) throw toGraphQLError(err, '');
    throw err;
  }
}
