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
