/**
 * The second factor: a TOTP authenticator (secret sealed by the data key) and single-use
 * recovery codes. Enrolment is two steps: `enrol` stores a new secret (not yet in use) and
 * answers it with its otpauth:// URI; `confirm` checks a code from it, turns it on and answers
 * ten recovery codes, shown once.
 */
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { FieldCipher } from '../../domain/crypto';
import type { Db } from '../../db/db';
import { newRecoveryCodes, newTotpSecret, recoveryCodeHash, totpStep, totpUri } from './credentials';
import { RecoveryCode, User } from './people.entity';

export interface Enrolment {
  secret: string;
  uri: string;
}

export class SecondFactor {
  constructor(
    private readonly db: Db,
    private readonly cipher: FieldCipher,
  ) {}

  /**
   * Whether `code` is a current TOTP code of `user` not used before, or one of their unused
   * recovery codes; either is spent by a conditional update, so two sign-ins cannot share one.
   */
  async accept(user: User, code: string): Promise<boolean> {
    if (!user.totpSecretEncrypted || !code) return false;
    const step = totpStep(this.cipher.decrypt(user.totpSecretEncrypted), code);
    if (step !== null) {
      const { affected } = await this.db.tx((tx) =>
        tx
          .createQueryBuilder()
          .update(User)
          .set({ totpLastStep: step })
          .where('id = :id AND (totp_last_step IS NULL OR totp_last_step < :step)', { id: user.id, step })
          .execute(),
      );
      return !!affected;
    }
    const { affected } = await this.db.tx((tx) =>
      tx
        .createQueryBuilder()
        .update(RecoveryCode)
        .set({ usedAt: new Date() })
        .where('user_id = :id AND code_hash = :h AND used_at IS NULL', { id: user.id, h: recoveryCodeHash(code) })
        .execute(),
    );
    return !!affected;
  }

  async enrol(userId: string): Promise<Enrolment> {
    const secret = newTotpSecret();
    const user = await this.db.tx(async (tx) => {
      const u = await tx.findOneByOrFail(User, { id: userId });
      if (u.totpEnabledAt) throw new ApiError('invalid_state', 'An authenticator is already set up for this account.');
      await tx.update(User, { id: userId }, { totpSecretEncrypted: this.cipher.encrypt(secret), totpLastStep: null });
      return u;
    });
    return { secret, uri: totpUri(secret, user.email) };
  }

  /** Turns the enrolled authenticator on when `code` is one of its codes; answers the recovery codes (shown once). */
  async confirm(userId: string, code: unknown): Promise<string[]> {
    const user = await this.db.read((em) => em.findOneByOrFail(User, { id: userId }));
    if (user.totpEnabledAt) throw new ApiError('invalid_state', 'An authenticator is already set up for this account.');
    if (!user.totpSecretEncrypted) throw new ApiError('invalid_state', 'Start the authenticator set-up first (enrolTotp).');
    const step = typeof code === 'string' ? totpStep(this.cipher.decrypt(user.totpSecretEncrypted), code.trim()) : null;
    if (step === null) throw ApiError.validation('code', 'That code does not match the authenticator; enter the current 6-digit code.');
    const codes = newRecoveryCodes();
    await this.db.tx(async (tx) => {
      const now = new Date();
      const { affected } = await tx
        .createQueryBuilder()
        .update(User)
        .set({ totpEnabledAt: now, totpLastStep: step })
        .where('id = :id AND totp_enabled_at IS NULL', { id: userId })
        .execute();
      if (!affected) throw new ApiError('invalid_state', 'An authenticator is already set up for this account.');
      await tx.delete(RecoveryCode, { userId });
      for (const c of codes) await tx.insert(RecoveryCode, { id: newId('recoveryCode'), userId, codeHash: recoveryCodeHash(c), usedAt: null, createdAt: now });
    });
    return codes;
  }

  /** New recovery codes for a person whose authenticator is on: the earlier codes, used or not, stop working. Shown once. */
  async replaceRecoveryCodes(userId: string): Promise<string[]> {
    const codes = newRecoveryCodes();
    await this.db.tx(async (tx) => {
      const user = await tx.findOneByOrFail(User, { id: userId });
      if (!user.totpEnabledAt) throw new ApiError('invalid_state', 'Set up an authenticator app first: recovery codes come with it.');
      const now = new Date();
      await tx.delete(RecoveryCode, { userId });
      for (const c of codes) await tx.insert(RecoveryCode, { id: newId('recoveryCode'), userId, codeHash: recoveryCodeHash(c), usedAt: null, createdAt: now });
    });
    return codes;
  }
}
