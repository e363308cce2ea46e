import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { Principal } from './permissions';

export type Environment = 'test' | 'live';
export const ENVIRONMENTS: readonly Environment[] = ['test', 'live'];

/** Every read and write of merchant data is bounded by this pair; nothing loads by id alone. */
export interface Scope {
  merchantId: string;
  environment: Environment;
}

/** Who causes a change: a scope, and the API request behind it (null for the scheduler and the payer's page). */
export interface Actor extends Scope {
  requestId: string | null;
  /** The key or member behind the change (absent for the scheduler and the payer's page). */
  principal?: Principal;
}

/** Who is calling, resolved once per request by authentication. */
export interface RequestContext extends Scope {
  /** The API key of the call; for a signed-in member, the id of the member's session. */
  apiKeyId: string;
  /** Who is calling: every permission check asks about this (src/domain/access.ts). */
  principal: Principal;
  requestId: string;
  log: Logger;
}

/** Who an API key's Authorization header, or a member's session cookie, names. */
export interface AuthenticatedKey extends Scope {
  /** The API key; for a signed-in member, the id of the member's session. */
  apiKeyId: string;
  principal: Principal;
}

/**
 * How the surfaces (REST, GraphQL over HTTP, graphql-ws) learn who is calling: the auth
 * module answers for API keys, the people module for session cookies (src/app.ts joins them).
 */
export interface Credentials {
  /** The key of an Authorization header; a refusal is a 401 ApiError. */
  authenticate(header: string | undefined): Promise<AuthenticatedKey>;
  /** The member of a session cookie (its Origin checked for `method`), or null without one. */
  authenticateCookie(headers: IncomingHttpHeaders, method: string, publicBase: string): Promise<AuthenticatedKey | null>;
}

/** Tells a long-lived connection that its key was revoked or its session ended; returns the unwatch. */
export interface RevocationFeed {
  watch(apiKeyId: string, onRevoked: () => void): () => void;
}
