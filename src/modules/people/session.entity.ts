import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timeTransformer } from '../../db/columns';
import type { Environment } from '../../domain/scope';

const time = (name: string, nullable = false) => Column({ name, type: 'bigint', nullable, transformer: timeTransformer });

/**
 * A signed-in member's session: one merchant and environment at a time. The cookie's token
 * is stored only as its SHA-256 digest. Ended sessions keep their row (`endedAt`).
 */
@Entity('sessions')
export class Session {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'token_hash', type: 'varchar', length: 64 }) tokenHash: string;
  @Column({ name: 'user_id', type: 'varchar', length: 40 }) userId: string;
  @Column({ name: 'merchant_id', type: 'varchar', length: 40 }) merchantId: string;
  @Column({ type: 'varchar', length: 4 }) environment: Environment;
  /** 1 when the sign-in included a TOTP or recovery code (live mode needs it for owner, admin, finance). */
  @Column({ name: 'second_factor', type: 'int' }) secondFactor: number;
  /** When the member last entered a code in this session (sign-in, turning TOTP on, a step-up); a live approval needs one from the last 5 minutes. */
  @time('second_factor_at', true) secondFactorAt: Date | null;
  @Column({ name: 'user_agent', type: 'varchar', length: 200, nullable: true }) userAgent: string | null;
  @time('created_at') createdAt: Date;
  @time('last_seen_at') lastSeenAt: Date;
  /** The absolute timeout: the session ends then, however active. */
  @time('expires_at') expiresAt: Date;
  @time('ended_at', true) endedAt: Date | null;
}
