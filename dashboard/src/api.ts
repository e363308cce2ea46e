/**
 * GraphQL over HTTP with urql (POST /graphql, Basic auth from the session), typed by the
 * operations GraphQL Code Generator builds from schema.graphql (./gql, at build time; the
 * documents are typed strings, so no GraphQL parser ships to the browser).
 * Every query and mutation goes through here; the live stream is ./live.ts.
 */
import { Client, CombinedError, fetchExchange, type AnyVariables } from '@urql/core';
import type { TypedDocumentString } from './gql/graphql';
import { authorization, type Session } from './session';

export interface Api {
  query<R, V extends AnyVariables>(doc: TypedDocumentString<R, V>, variables: V): Promise<R>;
  mutate<R, V extends AnyVariables>(doc: TypedDocumentString<R, V>, variables: V): Promise<R>;
  /** The REST test helpers (test keys only): the GraphQL schema has no test-helper mutations. */
  testHelper(path: string): Promise<void>;
}

/** A failed call, with the contract's message when the server gave one. */
export class ApiFailure extends Error {}

function failure(error: CombinedError): ApiFailure {
  const gql = error.graphQLErrors[0];
  if (gql) return new ApiFailure(gql.message);
  return new ApiFailure(error.networkError ? `Network error: ${error.networkError.message}` : error.message);
}

export function createApi(session: Session, onUnauthorized: () => void): Api {
  const auth = authorization(session);
  const client = new Client({
    url: '/graphql',
    exchanges: [fetchExchange],
    requestPolicy: 'network-only',
    preferGetMethod: false,
    // credentials 'omit': the key travels in the Authorization header only, and a 401 (which
    // carries WWW-Authenticate: Basic) must not open the browser's own password prompt.
    fetchOptions: () => ({ headers: { authorization: auth }, credentials: 'omit' }),
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      // A revoked or wrong key: the HTTP surface answers 401 before GraphQL runs.
      if (res.status === 401) onUnauthorized();
      return res;
    },
  });
  return {
    async query<R, V extends AnyVariables>(doc: TypedDocumentString<R, V>, variables: V): Promise<R> {
      const r = await client.query<R, V>(doc.toString(), variables).toPromise();
      if (r.error) throw failure(r.error);
      return r.data!;
    },
    async mutate<R, V extends AnyVariables>(doc: TypedDocumentString<R, V>, variables: V): Promise<R> {
      const r = await client.mutation<R, V>(doc.toString(), variables).toPromise();
      if (r.error) throw failure(r.error);
      return r.data!;
    },
    async testHelper(path) {
      const res = await fetch(`/v1/test_helpers/${path}`, {
        method: 'POST',
        credentials: 'omit',
        headers: { authorization: auth, 'content-type': 'application/json' },
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
