/**
 * Sign-in and sessions. A session is a row (so every process and every Galera node sees it)
 * named by an opaque 256-bit token that only the cookie holds; the row keeps its SHA-256
 * digest. It belongs to one merchant and environment at a time; it ends at the idle or the
 * absolute timeout, at sign-out, or when the person's access changes (password, role,
 * removal: `endFor`).
 *
 * Sign-in answers one thing for every failure (unknown email, no password yet, wrong password,
 * wrong or missing code, no membership): 401 unauthorized with the same message, after the
 * same argon2 work. Failures are counted per account (the normalised email, known or not) and
 * per address; past the limit both are 429 rate_limited until the lock ends, whatever the
 * password. The lock is told to the person at their next successful sign-in (`notice`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { IsNull, Not, type FindOptionsWhere } from 'typeorm';
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { Environment } from '../../domain/scope';
import type { Db } from '../../db/db';
import type { Tx } from '../../db/tx';
import type { FailureLimiter } from '../../http/rate-limit';
import { rateLimited } from '../../http/rate-limit';
import { checkPassword, newToken, tokenHash, type Passwords } from './credentials';
import { Membership, User } from './people.entity';
import { Session } from './session.entity';
import { normaliseEmail, type MemberPrincipal } from './team.service';
import type { SecondFactor } from './second-factor';
import type { AuthenticatedKey } from '../../domain/scope';
import { checkSameOrigin, sessionToken } from './session-cookie';

/** Roles that need a second factor in live mode. */
export const LIVE_NEEDS_TOTP = new Set(['owner', 'admin', 'finance']);
/** A session's last-seen time is written at most this often (not at every request). */
const TOUCH_EVERY_MS = 60_000;

export const SIGN_IN_REFUSED = 'Email, password or authentication code is wrong.';

export interface SessionSettings {
  idleMs: number;
  absoluteMs: number;
}

/** A signed-in request: the session and the member it acts as. */
export interface SignedIn {
  sessionId: string;
  merchantId: string;
  environment: Environment;
  principal: MemberPrincipal;
}

export interface SignInResult extends SignedIn {
  token: string;
  /** Told once: the account was locked by failed sign-ins since the last successful one. */
  notice: string | null;
}

export interface SignInLimits {
  account: FailureLimiter;
  address: FailureLimiter;
}

/** Where refused sign-ins, second factors, password changes and lockouts are logged (pino's Logger fits). */
export interface SignInLog {
  warn(obj: object, msg: string): void;
}

/** Why a sign-in (or a step that checks the same secrets) was refused: for the log only, never told to the client. */
export type SignInRefusal = 'unknown_account' | 'wrong_password' | 'wrong_code' | 'no_membership' | 'locked';

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/;

/**
 * The account as a log line names it: the member id when the account exists, else the email
 * typed (normalised). Input that is not an email address is not logged: it may be a password
 * typed into the wrong field.
 */
function accountFields(user: Pick<User, 'id'> | null, account: string): { memberId: string } | { email: string | null } {
  return user ? { memberId: user.id } : { email: EMAIL_SHAPE.test(account) ? account.slice(0, 320) : null };
}

/** Told of each ended session (the session watcher: closes its open sockets, on every process). */
export interface SessionEndings {
  revoked(sessionId: string): Promise<void>;
}

export class SessionService {
  constructor(
    private readonly db: Db,
    private readonly settings: SessionSettings,
    private readonly limits: SignInLimits,
    private readonly secondFactor: SecondFactor,
    private readonly passwords: Passwords,
    private readonly log?: SignInLog,
    private readonly endings?: SessionEndings,
  ) {}

  /** One line per refusal: what was refused, the account, why; never the password or the code. */
  private refused(msg: string, user: Pick<User, 'id'> | null, account: string, reason: SignInRefusal, extra: object = {}): void {
    this.log?.warn({ ...accountFields(user, account), reason, ...extra }, msg);
  }

  /**
   * Counts a failure against the account (and the address, when there is one); logs the lock
   * each causes (one line each) and marks the account locked so the person is told at their
   * next successful sign-in.
   */
  private async failed(user: Pick<User, 'id'> | null, account: string, address?: string): Promise<void> {
    const lockedNow = await this.limits.account.fail(account);
    const addressLocked = address === undefined ? false : await this.limits.address.fail(address);
    if (lockedNow) {
      if (user) await this.db.tx((tx) => tx.update(User, { id: user.id }, { lockedAt: new Date() }));
      this.log?.warn({ ...accountFields(user, account), scope: 'account', retryAfterS: await this.limits.account.lockedFor(account) }, 'sign-in locked');
    }
    if (addressLocked && address !== undefined) {
      this.log?.warn({ scope: 'address', address, retryAfterS: await this.limits.address.lockedFor(address) }, 'sign-in locked');
    }
  }

  async signIn(
    input: { email?: unknown; password?: unknown; code?: unknown },
    from: { address: string; userAgent?: string; presentedToken?: string },
  ): Promise<SignInResult> {
    const password = typeof input.password === 'string' ? input.password : '';
    let account: string;
    try {
      account = normaliseEmail(input.email);
    } catch {
      account = typeof input.email === 'string' ? input.email.slice(0, 320) : '';
    }
    const locked = Math.max(await this.limits.account.lockedFor(account), await this.limits.address.lockedFor(from.address));
    if (locked > 0) {
      // The account's id is not looked up for a locked attempt: the email as typed names it.
      this.refused('sign-in refused', null, account, 'locked', { address: from.address, retryAfterS: locked });
      throw Object.assign(rateLimited(locked), { message: `Too many sign-in attempts; retry after ${locked} s.` });
    }

    // On the writer (`tx`), as every read of sign-in state here: a reader may lag behind a password change or a sign-out.
    const user = await this.db.tx((tx) => tx.findOneBy(User, { emailNormalized: account }));
    const passwordOk = await this.passwords.verify(user?.passwordHash ?? null, password.slice(0, 200));
    const code = typeof input.code === 'string' ? input.code.trim() : '';
    const factorOk = passwordOk && user ? !user.totpEnabledAt || (await this.secondFactor.accept(user, code)) : false;
    const membership =
      factorOk && user ? await this.db.tx((tx) => tx.findOne(Membership, { where: { userId: user.id }, order: { createdAt: 'ASC', id: 'ASC' } })) : null;
    if (!user || !membership) {
      const reason: SignInRefusal = !user ? 'unknown_account' : !passwordOk ? 'wrong_password' : !factorOk ? 'wrong_code' : 'no_membership';
      this.refused('sign-in refused', user, account, reason, { address: from.address });
      await this.failed(user, account, from.address);
      throw new ApiError('unauthorized', SIGN_IN_REFUSED);
    }
    await this.limits.account.reset(account);

    const now = new Date();
    const { token, hash } = newToken();
    const { notice, replaced } = await this.db.tx(async (tx) => {
      // A token presented before sign-in never becomes the session (fixation): it ends here.
      const replaced = from.presentedToken ? await this.endWhere(tx, { tokenHash: tokenHash(from.presentedToken) }) : [];
      const fresh = await tx.findOneByOrFail(User, { id: user.id });
      if (fresh.lockedAt) await tx.update(User, { id: user.id }, { lockedAt: null });
      await tx.insert(Session, {
        id: newId('session'),
        tokenHash: hash,
        userId: user.id,
        merchantId: membership.merchantId,
        environment: 'test',
        secondFactor: user.totpEnabledAt ? 1 : 0,
        secondFactorAt: user.totpEnabledAt ? now : null,
        userAgent: from.userAgent?.slice(0, 200) ?? null,
        createdAt: now,
        lastSeenAt: now,
        expiresAt: new Date(now.getTime() + this.settings.absoluteMs),
        endedAt: null,
      });
      const notice = fresh.lockedAt
        ? `Sign-in to this account was locked at ${fresh.lockedAt.toISOString()} after repeated failed attempts. If that was not you, change your password.`
        : null;
      return { notice, replaced };
    });
    await this.ended(replaced);
    const session = await this.resolve(token);
    if (!session) throw ApiError.internal();
    return { ...session, token, notice };
  }

  /** The session a cookie's token names, if it is open and within its timeouts (touches its last-seen time). */
  async resolve(token: string | undefined): Promise<SignedIn | null> {
    if (!token || token.length > 100) return null;
    const row = await this.db.tx((tx) =>
      tx
        .createQueryBuilder(Session, 's')
        .innerJoin(Membership, 'm', 'm.user_id = s.user_id AND m.merchant_id = s.merchant_id')
        .innerJoin(User, 'u', 'u.id = s.user_id')
        .select([
          's.id AS id',
          's.merchant_id AS merchant_id',
          's.environment AS environment',
          's.last_seen_at AS last_seen_at',
          's.expires_at AS expires_at',
          's.second_factor_at AS second_factor_at',
        ])
        .addSelect(['u.id AS user_id', 'u.email AS email', 'm.role AS role'])
        .where('s.token_hash = :h AND s.ended_at IS NULL', { h: tokenHash(token) })
        .getRawOne<Record<string, string>>(),
    );
    if (!row) return null;
    const now = Date.now();
    const lastSeen = Number(row.last_seen_at);
    if (Number(row.expires_at) <= now || lastSeen + this.settings.idleMs <= now) return null;
    if (now - lastSeen >= TOUCH_EVERY_MS) {
      await this.db.tx((tx) =>
        tx
          .createQueryBuilder()
          .update(Session)
          .set({ lastSeenAt: new Date(now) })
          .where('id = :id', { id: row.id })
          .execute(),
      );
    }
    return {
      sessionId: row.id,
      merchantId: row.merchant_id,
      environment: row.environment as Environment,
      principal: {
        type: 'member',
        id: row.user_id,
        email: row.email,
        role: row.role as MemberPrincipal['role'],
        ...(row.second_factor_at ? { secondFactorAt: new Date(Number(row.second_factor_at)) } : {}),
      },
    };
  }

  /**
   * The caller of a request that carries the session cookie (and no Authorization header), as
   * API keys are authenticated: null when there is no cookie; 403 from another origin; 401 when
   * the session is not open. The session id stands where a key id would (rate limit,
   * Idempotency-Key scope, socket watch).
   */
  async authenticateCookie(headers: IncomingHttpHeaders, method: string, publicBase: string): Promise<AuthenticatedKey | null> {
    const token = sessionToken(headers.cookie);
    if (token === undefined) return null;
    checkSameOrigin(headers, method, publicBase);
    const session = await this.resolve(token);
    if (!session) throw new ApiError('unauthorized', 'Your session has ended; sign in again.');
    return { apiKeyId: session.sessionId, merchantId: session.merchantId, environment: session.environment, principal: session.principal };
  }

  /** The person's open sessions, newest first. */
  async list(userId: string): Promise<Session[]> {
    const now = Date.now();
    const rows = await this.db.read((em) => em.find(Session, { where: { userId }, order: { createdAt: 'DESC', id: 'DESC' } }));
    return rows.filter((s) => !s.endedAt && s.expiresAt.getTime() > now && s.lastSeenAt.getTime() + this.settings.idleMs > now);
  }

  /** Ends one of the person's own sessions (sign-out, or from the sessions list). */
  async end(userId: string, sessionId: string): Promise<boolean> {
    const ended = await this.db.tx((tx) => this.endWhere(tx, { id: sessionId, userId }));
    await this.ended(ended);
    return ended.length > 0;
  }

  /** Ends every session of a person, or those on one merchant; `except` stays open. */
  async endFor(userId: string, merchantId: string | null, except?: string): Promise<void> {
    const ended = await this.db.tx((tx) => this.endWhere(tx, { userId, ...(merchantId ? { merchantId } : {}), ...(except ? { id: Not(except) } : {}) }));
    await this.ended(ended);
  }

  /**
   * Moves a session to another merchant (one the person belongs to) and environment. The row
   * is replaced by one with a new id and the same token: what the old id scoped (its sockets,
   * its Idempotency-Keys) stays with the old merchant. Live mode needs a second factor for
   * owner, admin and finance.
   */
  async switchTo(current: SignedIn, merchantId: string, environment: Environment): Promise<SignedIn> {
    const next = await this.db.tx(async (tx): Promise<SignedIn> => {
      const membership = await tx.findOneBy(Membership, { userId: current.principal.id, merchantId });
      if (!membership) throw ApiError.notFound('merchant');
      const row = await tx.findOneByOrFail(Session, { id: current.sessionId });
      if (environment === 'live' && LIVE_NEEDS_TOTP.has(membership.role) && !row.secondFactor) {
        throw new ApiError(
          'permission_denied',
          `Live mode needs a second factor for the ${membership.role} role: set up an authenticator app and sign in with its code.`,
        );
      }
      await tx.delete(Session, { id: row.id });
      const id = newId('session');
      await tx.insert(Session, { ...row, id, merchantId, environment });
      return { sessionId: id, merchantId, environment, principal: { ...current.principal, role: membership.role } };
    });
    await this.ended([current.sessionId]);
    return next;
  }

  /**
   * Changes the person's password (the current one must match) and ends their other sessions.
   * A wrong current password is a failed sign-in of the account (the same limiter, logged);
   * while the account is locked the change is 429, whatever the password.
   */
  async changePassword(current: SignedIn, oldPassword: unknown, newPassword: unknown): Promise<void> {
    const next = checkPassword(newPassword);
    const user = await this.db.tx((tx) => tx.findOneByOrFail(User, { id: current.principal.id }));
    const locked = await this.limits.account.lockedFor(user.emailNormalized);
    if (locked > 0) {
      this.refused('password change refused', user, user.emailNormalized, 'locked', { retryAfterS: locked });
      throw Object.assign(rateLimited(locked), { message: `Too many wrong passwords; retry after ${locked} s.` });
    }
    if (!(await this.passwords.verify(user.passwordHash, typeof oldPassword === 'string' ? oldPassword.slice(0, 200) : ''))) {
      this.refused('password change refused', user, user.emailNormalized, 'wrong_password');
      await this.failed(user, user.emailNormalized);
      throw ApiError.validation('currentPassword', 'The current password is wrong.');
    }
    const hash = await this.passwords.hash(next);
    await this.db.tx((tx) => tx.update(User, { id: user.id }, { passwordHash: hash, passwordChangedAt: new Date() }));
    await this.endFor(user.id, null, current.sessionId);
  }

  /** Marks a session as having passed a second factor (after TOTP enrolment in it). */
  async markSecondFactor(sessionId: string): Promise<void> {
    await this.db.tx((tx) => tx.update(Session, { id: sessionId }, { secondFactor: 1, secondFactorAt: new Date() }));
  }

  /**
   * A step-up: the signed-in member enters a current authentication code (or a recovery code)
   * again, so that a step that needs a recent one (a live approval) may follow. A wrong code
   * counts as a failed sign-in of the account (the same limiter) and is 401.
   */
  async confirmSecondFactor(me: SignedIn, code: string): Promise<Date> {
    const user = await this.db.tx((tx) => tx.findOneByOrFail(User, { id: me.principal.id }));
    if (!user.totpEnabledAt) throw new ApiError('invalid_state', 'Set up an authenticator app first (enrolTotp, then confirmTotp).');
    const locked = await this.limits.account.lockedFor(user.emailNormalized);
    if (locked > 0) {
      this.refused('second factor refused', user, user.emailNormalized, 'locked', { retryAfterS: locked });
      throw Object.assign(rateLimited(locked), { message: `Too many wrong codes; retry after ${locked} s.` });
    }
    if (!(await this.secondFactor.accept(user, code.trim()))) {
      this.refused('second factor refused', user, user.emailNormalized, 'wrong_code');
      await this.failed(user, user.emailNormalized);
      throw new ApiError('unauthorized', 'The authentication code is wrong or was used already.');
    }
    const now = new Date();
    await this.db.tx((tx) => tx.update(Session, { id: me.sessionId }, { secondFactor: 1, secondFactorAt: now }));
    return now;
  }

  /**
   * Ends the open sessions `where` selects and answers their ids. Writes first, reads after:
   * on SQLite a transaction that starts with its write waits for another process's writer.
   */
  private async endWhere(tx: Tx, where: FindOptionsWhere<Session>): Promise<string[]> {
    const stamp = new Date();
    const { affected } = await tx.update(Session, { ...where, endedAt: IsNull() }, { endedAt: stamp });
    if (!affected) return [];
    return (await tx.find(Session, { where: { ...where, endedAt: stamp }, select: { id: true } })).map((s) => s.id);
  }

  /** After the sessions' end committed: their sockets close, here and on every process. */
  private async ended(ids: string[]): Promise<void> {
    for (const id of ids) await this.endings?.revoked(id);
  }
}
