/**
 * GraphQL over HTTP with urql (POST /graphql), authenticated by the session cookie the
 * browser sends by itself (same origin; the server checks Origin), typed by the operations
 * GraphQL Code Generator builds from schema.graphql (./gql, at build time; the documents are
 * typed strings, so no GraphQL parser ships to the browser). Each is sent by its registered
 * id (`documentId`, ./documents.ts), not as text.
 * Every query and mutation goes through here; the live stream is ./live.ts.
 */
import { Client, CombinedError, fetchExchange, type AnyVariables, type PersistedDocument } from '@urql/core';
import { documentIdOf } from './documents';
import type { TypedDocumentString } from './gql/graphql';

/** urql's form of a document sent by id: no definitions, only `documentId`. */
function byId(doc: TypedDocumentString<unknown, never>): PersistedDocument {
  return { kind: 'Document', definitions: [], documentId: documentIdOf(doc) } as unknown as PersistedDocument;
}

/**
 * A query's data as `query` resolves it. Root lists and connections are nullable in the schema
 * (a denied or failed root field is null with its own error, docs/graphql.md "Nullability"), and
 * `query` throws on any error, so a list or connection it resolves is never null. Lookups that are
 * null without an error (`feeSchedule`, `me`) keep their null.
 */
export type Answered<R> = {
  [K in keyof R]: NonNullable<R[K]> extends readonly unknown[] | { nodes: unknown } | { edges: unknown } | { pageInfo: unknown } ? NonNullable<R[K]> : R[K];
};

export interface Api {
  query<R, V extends AnyVariables>(doc: TypedDocumentString<R, V>, variables: V): Promise<Answered<R>>;
  mutate<R, V extends AnyVariables>(doc: TypedDocumentString<R, V>, variables: V): Promise<R>;
  /** The REST test helpers (test mode only): the GraphQL schema has no test-helper mutations. */
  testHelper(path: string): Promise<void>;
}

/** A failed call, with the contract's message and code when the server gave them. */
export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

function failure(error: CombinedError): ApiFailure {
  const gql = error.graphQLErrors[0];
  if (gql) return new ApiFailure(gql.message, typeof gql.extensions?.code === 'string' ? gql.extensions.code : undefined);
  return new ApiFailure(error.networkError ? `Network error: ${error.networkError.message}` : error.message);
}

/** `onUnauthorized`: the session ended (401 before GraphQL runs). */
export function createApi(onUnauthorized: () => void): Api {
  const client = new Client({
    url: '/graphql',
    exchanges: [fetchExchange],
    requestPolicy: 'network-only',
    preferGetMethod: false,
    fetchOptions: () => ({ credentials: 'same-origin' }),
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if (res.status === 401) onUnauthorized();
      return res;
    },
  });
  return {
    async query<R, V extends AnyVariables>(doc: TypedDocumentString<R, V>, variables: V): Promise<Answered<R>> {
      const r = await client.query<R, V>(byId(doc), variables).toPromise();
      if (r.error) throw failure(r.error);
      return r.data as Answered<R>;
    },
    async mutate<R, V extends AnyVariables>(doc: TypedDocumentString<R, V>, variables: V): Promise<R> {
      const r = await client.mutation<R, V>(byId(doc), variables).toPromise();
      if (r.error) throw failure(r.error);
      return r.data!;
    },
    async testHelper(path) {
      const res = await fetch(`/v1/test_helpers/${path}`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      if (res.status === 401) onUnauthorized();
      if (!res.ok) {
        const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
        throw new ApiFailure(body?.error?.message ?? `HTTP ${res.status}`);
      }
    },
  };
}
