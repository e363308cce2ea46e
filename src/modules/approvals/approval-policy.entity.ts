import { Column, Entity, PrimaryColumn } from 'typeorm';
import { moneyTransformer, timeTransformer } from '../../db/columns';
import type { Environment } from '../../domain/scope';

/** Four eyes: payouts of `currency` at or above `minAmount` need `approvals` votes; `keysCount`: an API key's vote counts. */
@Entity('approval_policies')
export class ApprovalPolicy {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'merchant_id', type: 'varchar', length: 40 }) merchantId: string;
  @Column({ type: 'varchar', length: 4 }) environment: Environment;
  @Column({ type: 'varchar', length: 6 }) currency: string;
  @Column({ name: 'min_amount', type: 'varchar', length: 40, transformer: moneyTransformer }) minAmount: bigint;
  @Column({ type: 'int' }) approvals: number;
  @Column({ name: 'keys_count', type: 'int', transformer: { to: (v: boolean) => (v ? 1 : 0), from: (v: number | string) => Number(v) === 1 } })
  keysCount: boolean;
  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer }) createdAt: Date;
  @Column({ name: 'updated_at', type: 'bigint', transformer: timeTransformer }) updatedAt: Date;
}
