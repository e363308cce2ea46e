/**
 * A merchant's team: people (users), their one role per merchant (memberships) and the
 * one-time setup links that let a new person choose a password. The rules: owners and admins
 * manage members; only an owner touches an owner (invites one, changes one's role, removes
 * one); a merchant always keeps at least one owner. The last-owner check locks the merchant's
 * owner rows (`FOR UPDATE` on MySQL/MariaDB; SQLite runs one writer at a time), so two
 * concurrent demotions of two owners cannot both pass.
 */
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { ROLE_GRANTS, ROLES, type Principal, type Role, type TeamCapability } from '../../domain/permissions';
import type { PublicBaseUrl } from '../../domain/public-url';
import type { Db } from '../../db/db';
import type { EndWork } from '../../db/batch';
import type { Tx } from '../../db/tx';
import { lockedCount } from '../../db/locking-read';
import { checkPassword, newToken, tokenHash, type Passwords } from './credentials';
import { Membership, SetupLink, User } from './people.entity';
import type { RequestContext } from '../../domain/scope';

/** A team change's audit entry, written at the end of its transaction (the audit module's `record`). */
export type TeamAudit = (tx: Tx, ctx: RequestContext, facts: { operation: string; status: number; body: unknown; input: unknown }) => EndWork;

/** How long a setup link is valid. */
export const SETUP_LINK_TTL_MS = 72 * 3600_000;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export interface Member {
  user: User;
  membership: Membership;
}

export interface Invitation {
  user_id: string;
  /** Null when the person already has a password (they sign in with it); shown once otherwise. */
  setup_url: string | null;
}

export type MemberPrincipal = Extract<Principal, { type: 'member' }>;

export function normaliseEmail(email: unknown): string {
  if (typeof email !== 'string' || !EMAIL.test(email.trim())) throw ApiError.validation('email', 'Enter an email address.');
  return email.trim().toLowerCase();
}

export function checkRole(role: unknown): Role {
  if (!(ROLES as readonly unknown[]).includes(role)) throw ApiError.validation('role', `The role must be one of ${ROLES.join(', ')}.`);
  return role as Role;
}

function need(actor: MemberPrincipal, capability: TeamCapability): void {
  if (!ROLE_GRANTS[actor.role].team.includes(capability)) {
    throw new ApiError('permission_denied', `This call needs the team capability ${capability}, which the caller does not have.`);
  }
}

/** Ends a person's sessions once their access changed (role changed, removed): one merchant's, or all (null). */
export interface AccessEndings {
  endFor(userId: string, merchantId: string | null): Promise<void>;
}

export class TeamService {
  constructor(
    private readonly db: Db,
    private readonly publicUrl: PublicBaseUrl,
    private readonly passwords: Passwords,
    private readonly audit?: TeamAudit,
    private readonly sessions?: AccessEndings,
  ) {}

  /** A team change as an audit entry: the member it is about is the record; `by` (the request) names the actor. */
  private audited(tx: Tx, by: RequestContext | undefined, operation: string, userId: string): EndWork[] {
    return by && this.audit ? [this.audit(tx, by, { operation, status: 200, body: { object: 'member', id: userId }, input: {} })] : [];
  }

  /** The CLI's `users create`: adds a person (or an existing user) to a merchant with `role`, no actor checks. */
  async createUser(merchantId: string, email: unknown, role: unknown, displayName?: string): Promise<Invitation> {
    return this.add(merchantId, normaliseEmail(email), String(email).trim(), checkRole(role), displayName);
  }

  /** An owner or admin invites someone; only an owner may invite an owner. */
  async invite(actor: MemberPrincipal, merchantId: string, email: unknown, role: unknown, by?: RequestContext): Promise<Invitation> {
    need(actor, 'members');
    const r = checkRole(role);
    if (r === 'owner') need(actor, 'owners');
    return this.add(merchantId, normaliseEmail(email), String(email).trim(), r, undefined, by);
  }

  /**
   * A new setup link for a member who has not chosen a password yet (owners and admins; only an
   * owner for an owner): the person's earlier links stop working at once.
   */
  issueSetupLink(actor: MemberPrincipal, merchantId: string, userId: string, by?: RequestContext): Promise<Invitation> {
    return this.issueLink(actor, merchantId, userId, 'setup', by);
  }

  /**
   * A password reset link for a member who forgot their password (owners only): the same
   * one-time page sets a new password, which ends every session of the person; earlier links
   * stop working.
   */
  issuePasswordResetLink(actor: MemberPrincipal, merchantId: string, userId: string, by?: RequestContext): Promise<Invitation> {
    need(actor, 'owners');
    return this.issueLink(actor, merchantId, userId, 'reset', by);
  }

  private async issueLink(actor: MemberPrincipal, merchantId: string, userId: string, kind: 'setup' | 'reset', by?: RequestContext): Promise<Invitation> {
    need(actor, 'members');
    const link = newToken();
    await this.db.unit(async (tx) => {
      await this.target(tx, actor, merchantId, userId);
      const user = await tx.findOneByOrFail(User, { id: userId });
      if (kind === 'setup' && user.passwordHash) {
        throw new ApiError('invalid_state', 'This member has already set a password: they sign in with it, or an owner issues them a password reset link.');
      }
      if (kind === 'reset' && !user.passwordHash) {
        throw new ApiError('invalid_state', 'This member has not set a password yet: issue them a new setup link instead.');
      }
      const now = new Date();
      await this.retireLinks(tx, userId, now);
      await tx.insert(SetupLink, {
        id: newId('setupLink'),
        tokenHash: link.hash,
        userId,
        merchantId,
        expiresAt: new Date(now.getTime() + SETUP_LINK_TTL_MS),
        usedAt: null,
        createdAt: now,
      });
      return { value: undefined, end: this.audited(tx, by, kind === 'setup' ? 'issueSetupLink' : 'issuePasswordResetLink', userId) };
    });
    return { user_id: userId, setup_url: `${this.publicUrl.get()}/dashboard/#setup=${link.token}` };
  }

  /** Marks every unused setup link of the person used: none of them works any more. */
  private async retireLinks(tx: Tx, userId: string, now: Date): Promise<void> {
    await tx.createQueryBuilder().update(SetupLink).set({ usedAt: now }).where('user_id = :userId AND used_at IS NULL', { userId }).execute();
  }

  private async add(merchantId: string, normalized: string, email: string, role: Role, displayName?: string, by?: RequestContext): Promise<Invitation> {
    const link = newToken();
    const result = await this.db.unit(async (tx) => {
      const now = new Date();
      let user = await tx.findOneBy(User, { emailNormalized: normalized });
      if (!user) {
        user = tx.create(User, {
          id: newId('user'),
          email,
          emailNormalized: normalized,
          displayName: displayName?.trim() || null,
          passwordHash: null,
          totpSecretEncrypted: null,
          totpEnabledAt: null,
          totpLastStep: null,
          lockedAt: null,
          passwordChangedAt: null,
          createdAt: now,
        });
        await tx.insert(User, user);
      }
      if (await tx.findOneBy(Membership, { userId: user.id, merchantId })) {
        throw ApiError.validation('email', 'This person is already a member of the merchant.');
      }
      await tx.insert(Membership, { id: newId('membership'), userId: user.id, merchantId, role, createdAt: now });
      const end = this.audited(tx, by, 'inviteMember', user.id);
      if (user.passwordHash) return { value: { userId: user.id, withLink: false }, end };
      await tx.insert(SetupLink, {
        id: newId('setupLink'),
        tokenHash: link.hash,
        userId: user.id,
        merchantId,
        expiresAt: new Date(now.getTime() + SETUP_LINK_TTL_MS),
        usedAt: null,
        createdAt: now,
      });
      return { value: { userId: user.id, withLink: true }, end };
    });
    // The token rides in the fragment: browsers never send it to a server or in a Referer.
    return { user_id: result.userId, setup_url: result.withLink ? `${this.publicUrl.get()}/dashboard/#setup=${link.token}` : null };
  }

  /**
   * Uses a setup link once: sets the password, ends every session of the person. An unknown,
   * used or expired link is the same 404.
   */
  async completeSetup(token: unknown, password: unknown): Promise<{ email: string }> {
    const chosen = checkPassword(password);
    if (typeof token !== 'string' || token.length > 100) throw ApiError.notFound('setup link');
    const hash = await this.passwords.hash(chosen);
    const userId = await this.db.tx(async (tx) => {
      const now = new Date();
      const used = await tx
        .createQueryBuilder()
        .update(SetupLink)
        .set({ usedAt: now })
        .where('token_hash = :h AND used_at IS NULL AND expires_at > :now', { h: tokenHash(token), now: now.getTime() })
        .execute();
      if (!used.affected) throw new ApiError('not_found', 'This setup link is unknown, used or expired; ask for a new invitation.');
      const link = await tx.findOneByOrFail(SetupLink, { tokenHash: tokenHash(token) });
      await tx.update(User, { id: link.userId }, { passwordHash: hash, passwordChangedAt: now });
      return link.userId;
    });
    await this.sessions?.endFor(userId, null);
    const user = await this.db.read((em) => em.findOneByOrFail(User, { id: userId }));
    return { email: user.email };
  }

  async members(merchantId: string): Promise<Member[]> {
    return this.db.read(async (em) => {
      const memberships = await em.find(Membership, { where: { merchantId }, order: { createdAt: 'ASC', id: 'ASC' } });
      if (memberships.length === 0) return [];
      const users = await em
        .createQueryBuilder(User, 'u')
        .where('u.id IN (:...ids)', { ids: memberships.map((m) => m.userId) })
        .getMany();
      const byId = new Map(users.map((u) => [u.id, u]));
      return memberships.map((membership) => ({ membership, user: byId.get(membership.userId)! }));
    });
  }

  async user(userId: string): Promise<User | null> {
    return this.db.read((em) => em.findOneBy(User, { id: userId }));
  }

  /** The merchants a person belongs to, with their role in each. */
  async membershipsOf(userId: string): Promise<Membership[]> {
    return this.db.read((em) => em.find(Membership, { where: { userId }, order: { createdAt: 'ASC', id: 'ASC' } }));
  }

  async changeRole(actor: MemberPrincipal, merchantId: string, userId: string, role: unknown, by?: RequestContext): Promise<Member> {
    need(actor, 'members');
    const r = checkRole(role);
    if (r === 'owner') need(actor, 'owners');
    const member = await this.db.unit(async (tx) => {
      const target = await this.target(tx, actor, merchantId, userId);
      if (target.role === 'owner' && r !== 'owner') await this.keepAnOwner(tx, merchantId);
      await tx.update(Membership, { id: target.id }, { role: r });
      const end = this.audited(tx, by, 'changeMemberRole', userId);
      return { value: { membership: { ...target, role: r }, user: await tx.findOneByOrFail(User, { id: userId }) }, end };
    });
    await this.sessions?.endFor(userId, merchantId);
    return member;
  }

  async remove(actor: MemberPrincipal, merchantId: string, userId: string, by?: RequestContext): Promise<void> {
    need(actor, 'members');
    await this.db.unit(async (tx) => {
      const target = await this.target(tx, actor, merchantId, userId);
      if (target.role === 'owner') await this.keepAnOwner(tx, merchantId);
      await tx.delete(Membership, { id: target.id });
      return { value: undefined, end: this.audited(tx, by, 'removeMember', userId) };
    });
    await this.sessions?.endFor(userId, merchantId);
  }

  /** The membership `actor` acts on; an admin may not act on an owner. */
  private async target(tx: Tx, actor: MemberPrincipal, merchantId: string, userId: string): Promise<Membership> {
    const target = await tx.findOneBy(Membership, { merchantId, userId });
    if (!target) throw ApiError.notFound('member');
    if (target.role === 'owner') need(actor, 'owners');
    return target;
  }

  /** Locks the merchant's owner rows and refuses when only one is left. */
  private async keepAnOwner(tx: Tx, merchantId: string): Promise<void> {
    const owners = await lockedCount(
      tx,
      tx.createQueryBuilder(Membership, 'm').where('m.merchant_id = :merchantId AND m.role = :role', { merchantId, role: 'owner' }),
    );
    if (owners <= 1) throw new ApiError('invalid_state', 'A merchant keeps at least one owner: make someone else an owner first.');
  }
}
