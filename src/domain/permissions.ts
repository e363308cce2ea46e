/**
 * Who may do what: the resources a key or a member acts on, the roles of a merchant's team,
 * and the one table that says what each role may do. REST routes, GraphQL fields and
 * subscriptions all ask `allows` (through the auth module), so the rule set is one.
 */

/** The resources a permission names: the REST resource names. */
export const RESOURCES = [
  'payment_intents',
  'refunds',
  'payout_intents',
  'payout_approvals',
  'topup_intents',
  'balances',
  'balance_transactions',
  'events',
  'webhook_endpoints',
  'report_runs',
  'payment_links',
  'payout_batches',
] as const;
export type Resource = (typeof RESOURCES)[number];

/** `write` includes `read`. */
export type Access = 'none' | 'read' | 'write';
/** A permission as keys carry it and refusals name it, e.g. `payout_intents:write`. */
export type Permission = `${Resource}:${'read' | 'write'}`;

/** What a member may do besides acting on resources. */
export const TEAM_CAPABILITIES = ['members', 'owners', 'api_keys', 'approval_policies'] as const;
export type TeamCapability = (typeof TEAM_CAPABILITIES)[number];

export const ROLES = ['owner', 'admin', 'developer', 'finance', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export interface Grants {
  resources: Readonly<Record<Resource, Access>>;
  team: readonly TeamCapability[];
}

function all(access: Access): Record<Resource, Access> {
  return Object.fromEntries(RESOURCES.map((r) => [r, access])) as Record<Resource, Access>;
}

/** The roles table; docs/team-access.md shows the same table. */
export const ROLE_GRANTS: Readonly<Record<Role, Grants>> = {
  owner: { resources: all('write'), team: ['members', 'owners', 'api_keys', 'approval_policies'] },
  admin: { resources: all('write'), team: ['members', 'api_keys'] },
  developer: { resources: { ...all('read'), webhook_endpoints: 'write', events: 'read' }, team: ['api_keys'] },
  finance: {
    resources: {
      ...all('read'),
      webhook_endpoints: 'none',
      refunds: 'write',
      payout_intents: 'write',
      payout_approvals: 'write',
      topup_intents: 'write',
      report_runs: 'write',
      payout_batches: 'write',
    },
    team: [],
  },
  viewer: { resources: all('read'), team: [] },
};

/** Whether `granted` covers `needed` on `resource`. */
export function covers(granted: Access, needed: 'read' | 'write'): boolean {
  return granted === 'write' || (granted === 'read' && needed === 'read');
}

/** Who is calling: an API key (full or restricted) or a signed-in member of the merchant's team. */
export type Principal =
  | {
      type: 'api_key';
      id: string;
      restricted: boolean;
      grants: Readonly<Record<Resource, Access>>;
      /** The person the key counts as (`personOf`); absent: the key itself (the operator made it). */
      person?: string;
    }
  | {
      type: 'member';
      id: string;
      email: string;
      role: Role;
      /** When the member last entered a TOTP code (sign-in or step-up); live approvals need one from the last 5 minutes. */
      secondFactorAt?: Date;
    };

/** The resource grants of a principal. */
export function grantsOf(p: Principal): Readonly<Record<Resource, Access>> {
  return p.type === 'api_key' ? p.grants : ROLE_GRANTS[p.role].resources;
}

/** A full secret key's grants: everything. */
export const FULL_ACCESS: Readonly<Record<Resource, Access>> = all('write');

/** The actor as audit entries, events and webhooks name it on the wire. */
export type WireActor = { type: 'api_key'; id: string; restricted: boolean } | { type: 'member'; id: string; email: string };

export function wireActor(p: Principal): WireActor {
  return p.type === 'api_key' ? { type: 'api_key', id: p.id, restricted: p.restricted } : { type: 'member', id: p.id, email: p.email };
}

/**
 * The person behind a principal, where rules count people (approvals): a member is themself;
 * a key is the member who made it, or the person of the key that made it, or, for a key the
 * operator made with the CLI, the key itself (docs/decisions/0155-approvals-count-people.md).
 */
export function personOf(p: Principal): string {
  return p.type === 'member' ? p.id : (p.person ?? p.id);
}
