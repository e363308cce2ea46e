/** A merchant's people: users, their memberships (one role per merchant), setup links and recovery codes. */
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timeTransformer } from '../../db/columns';
import type { Role } from '../../domain/permissions';

const time = (name: string, nullable = false) => Column({ name, type: 'bigint', nullable, transformer: timeTransformer });

/** A person. The password is stored only as an argon2id hash, the TOTP secret sealed by the data key. */
@Entity('users')
export class User {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  /** As given (shown back); `emailNormalized` (trimmed, lower case) is the unique one. */
  @Column({ type: 'varchar', length: 320 }) email: string;
  @Column({ name: 'email_normalized', type: 'varchar', length: 320 }) emailNormalized: string;
  @Column({ name: 'display_name', type: 'varchar', length: 200, nullable: true }) displayName: string | null;
  /** Null until the person has used their setup link. */
  @Column({ name: 'password_hash', type: 'varchar', length: 200, nullable: true }) passwordHash: string | null;
  /** Sealed; set at enrolment, in use once `totpEnabledAt` is set. */
  @Column({ name: 'totp_secret_encrypted', type: 'text', nullable: true }) totpSecretEncrypted: string | null;
  @time('totp_enabled_at', true) totpEnabledAt: Date | null;
  /** The last 30-second step a code was accepted for: a code is never accepted twice. */
  @Column({ name: 'totp_last_step', type: 'int', nullable: true }) totpLastStep: number | null;
  /** When sign-in was last locked by failed attempts; told (and cleared) at the next successful sign-in. */
  @time('locked_at', true) lockedAt: Date | null;
  @time('password_changed_at', true) passwordChangedAt: Date | null;
  @time('created_at') createdAt: Date;
}

@Entity('memberships')
export class Membership {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'user_id', type: 'varchar', length: 40 }) userId: string;
  @Column({ name: 'merchant_id', type: 'varchar', length: 40 }) merchantId: string;
  @Column({ type: 'varchar', length: 16 }) role: Role;
  @time('created_at') createdAt: Date;
}

/** A one-time link that lets a person choose a password; only the token's SHA-256 digest is stored. */
@Entity('setup_links')
export class SetupLink {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'token_hash', type: 'varchar', length: 64 }) tokenHash: string;
  @Column({ name: 'user_id', type: 'varchar', length: 40 }) userId: string;
  @Column({ name: 'merchant_id', type: 'varchar', length: 40 }) merchantId: string;
  @time('expires_at') expiresAt: Date;
  @time('used_at', true) usedAt: Date | null;
  @time('created_at') createdAt: Date;
}

/** A single-use recovery code for a lost authenticator; only its SHA-256 digest is stored. */
@Entity('recovery_codes')
export class RecoveryCode {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'user_id', type: 'varchar', length: 40 }) userId: string;
  @Column({ name: 'code_hash', type: 'varchar', length: 64 }) codeHash: string;
  @time('used_at', true) usedAt: Date | null;
  @time('created_at') createdAt: Date;
}
