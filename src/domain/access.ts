/**
 * The one permission check. Every REST route and every GraphQL root field declares what it
 * needs (a `Requirement`); the surfaces ask `authorize` before anything else runs, so REST,
 * GraphQL and subscriptions share one rule set (the roles table and key grants of
 * permissions.ts). A refusal is 403 permission_denied naming the missing permission, logged
 * (one line: who, what was needed; never a secret) and counted (`permission_refused_total`).
 */
import { ApiError } from './errors';
import {
  covers,
  grantsOf,
  RESOURCES,
  ROLE_GRANTS,
  TEAM_CAPABILITIES,
  type Access,
  type Permission,
  type Principal,
  type Resource,
  type TeamCapability,
} from './permissions';

/**
 * What a route or field needs: a resource permission, a team capability (members by role;
 * `api_keys` also any unrestricted key), or only `authenticated` (who-am-I reads).
 */
export type Requirement = Permission | TeamCapability | 'authenticated';

const PERMISSION = new RegExp(`^(${RESOURCES.join('|')}):(read|write)$`);

export function isPermission(value: string): value is Permission {
  return PERMISSION.test(value);
}

export function isRequirement(value: unknown): value is Requirement {
  return typeof value === 'string' && (value === 'authenticated' || isPermission(value) || (TEAM_CAPABILITIES as readonly string[]).includes(value));
}

/** `payout_intents:write` -> ['payout_intents', 'write']. */
export function splitPermission(p: Permission): [Resource, 'read' | 'write'] {
  const [resource, access] = p.split(':') as [Resource, 'read' | 'write'];
  return [resource, access];
}

/**
 * Team capabilities of an API key: an unrestricted key may manage keys (it can do everything
 * a new key could); policies, members and owners are for members only (a policy change needs
 * an owner, so a key cannot lift the four-eyes rule that binds it).
 */
function keyHasCapability(p: Extract<Principal, { type: 'api_key' }>, capability: TeamCapability): boolean {
  return capability === 'api_keys' && !p.restricted;
}

/** Whether `principal` meets `needed`. */
export function allows(principal: Principal, needed: Requirement): boolean {
  if (needed === 'authenticated') return true;
  if (isPermission(needed)) {
    const [resource, access] = splitPermission(needed);
    return covers(grantsOf(principal)[resource], access);
  }
  return principal.type === 'api_key' ? keyHasCapability(principal, needed) : ROLE_GRANTS[principal.role].team.includes(needed);
}

/** Refusals by this process, by requirement (the metric permission_refused_total). */
export const permissionRefusals = new Map<string, number>();

/** Where refusals are logged (pino's Logger fits). */
export interface AccessLog {
  warn(obj: object, msg: string): void;
}

/** The principal as a log line names it: its id, never a secret. */
export function principalLogFields(p: Principal): Record<string, string | boolean> {
  return p.type === 'api_key' ? { apiKeyId: p.id, restricted: p.restricted } : { memberId: p.id, role: p.role };
}

export function permissionDenied(needed: Requirement): ApiError {
  const what = isPermission(needed) ? `the permission ${needed}` : `the team capability ${needed}`;
  return new ApiError('permission_denied', `This call needs ${what}, which the caller does not have.`);
}

/** Throws 403 permission_denied, naming `needed`, unless `principal` meets it; logs and counts the refusal. */
export function authorize(principal: Principal, needed: Requirement, log?: AccessLog, where?: string): void {
  if (allows(principal, needed)) return;
  permissionRefusals.set(needed, (permissionRefusals.get(needed) ?? 0) + 1);
  log?.warn({ ...principalLogFields(principal), needed, where }, 'request refused: permission');
  throw permissionDenied(needed);
}

/** The resource whose records an event type (`payout_intent.processing`, `payout_batch.created`) carries. */
export function resourceOfEventType(type: string): Resource | undefined {
  const singular = type.slice(0, type.indexOf('.'));
  // English plurals as the resource names spell them: payout_intents, payout_batches.
  return RESOURCES.find((r) => r === `${singular}s` || r === `${singular}es`);
}

/** Whether `principal` may read the record an event of `type` carries (events of no listed resource: events:read suffices). */
export function mayReadEventType(principal: Principal, type: string): boolean {
  const resource = resourceOfEventType(type);
  return resource === undefined || covers(grantsOf(principal)[resource], 'read');
}

/** Parses `payout_intents:read,balances:write` (the CLI's and the key create's list) into grants; `none` entries allowed. */
export function parseGrants(list: readonly string[]): Record<Resource, Access> {
  const grants = Object.fromEntries(RESOURCES.map((r) => [r, 'none'])) as Record<Resource, Access>;
  for (const raw of list) {
    const item = raw.trim();
    const m = /^([a-z_]+):(none|read|write)$/.exec(item);
    if (!m || !(RESOURCES as readonly string[]).includes(m[1])) {
      throw ApiError.validation(
        'permissions',
        `Unknown permission "${item}"; use <resource>:read or <resource>:write with a resource of ${RESOURCES.join(', ')}.`,
      );
    }
    const resource = m[1] as Resource;
    const access = m[2] as Access;
    // The widest mention wins: `payouts:read,payouts:write` is write.
    if (access === 'write' || (access === 'read' && grants[resource] === 'none')) grants[resource] = access;
  }
  return grants;
}

/** Grants as the wire lists them: `["balances:read", "payout_intents:write"]`, resources with none left out. */
export function grantList(grants: Readonly<Record<Resource, Access>>): Permission[] {
  return RESOURCES.filter((r) => grants[r] !== 'none').map((r) => `${r}:${grants[r]}` as Permission);
}

/**
 * A stream of events narrowed to what `principal` may read (a key restricted to
 * `payout_intents:read` and `events:read` gets payout events only). Ending it ends the source.
 */
export function onlyReadable<T extends { type: string }>(principal: Principal, source: AsyncIterableIterator<T>): AsyncIterableIterator<T> {
  if (RESOURCES.every((r) => covers(grantsOf(principal)[r], 'read'))) return source;
  const it: AsyncIterableIterator<T> = {
    async next() {
      for (;;) {
        const r = await source.next();
        if (r.done || mayReadEventType(principal, r.value.type)) return r;
      }
    },
    return: (value?: unknown) => (source.return ? source.return(value) : Promise.resolve({ done: true as const, value: undefined })),
    [Symbol.asyncIterator]: () => it,
  };
  return it;
}
