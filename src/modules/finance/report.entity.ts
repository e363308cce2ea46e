import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonTransformer, timeTransformer } from '../../db/columns';
import type { Environment } from '../auth/api-key.entity';

export const REPORT_TYPES = ['balance.summary', 'balance_transactions.itemized', 'payments.itemized', 'payouts.itemized', 'refunds.itemized'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];
export const REPORT_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

export interface ReportParameters {
  interval_start: string;
  interval_end: string;
  currency: string | null;
}

const countTransformer = { to: (v: number | null) => v, from: (v: string | number | null) => (v === null ? null : Number(v)) };

/** A requested report: generated in the background by whichever process holds its lease. */
@Entity('report_runs')
export class ReportRun {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'merchant_id', type: 'varchar', length: 40 }) merchantId: string;
  @Column({ type: 'varchar', length: 4 }) environment: Environment;
  @Column({ name: 'report_type', type: 'varchar', length: 40 }) reportType: ReportType;
  @Column({ type: 'text', transformer: jsonTransformer }) parameters: ReportParameters;
  @Column({ type: 'varchar', length: 16 }) status: ReportStatus;
  @Column({ name: 'row_count', type: 'bigint', nullable: true, transformer: countTransformer }) rows: number | null;
  @Column({ name: 'size_bytes', type: 'bigint', nullable: true, transformer: countTransformer }) size: number | null;
  @Column({ type: 'varchar', length: 512, nullable: true }) error: string | null;
  /** Until when the process generating it holds it; a pending run with an expired lease is taken over. */
  @Column({ name: 'lease_until', type: 'bigint', nullable: true, transformer: timeTransformer }) leaseUntil: Date | null;
  /** When the file is deleted (7 days after the run finished). */
  @Column({ name: 'expires_at', type: 'bigint', nullable: true, transformer: timeTransformer }) expiresAt: Date | null;
  @Column({ name: 'file_deleted', type: 'int' }) fileDeleted: number;
  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer }) createdAt: Date;
  @Column({ name: 'updated_at', type: 'bigint', transformer: timeTransformer }) updatedAt: Date;
}

/** One piece of a report's CSV, in order (`seq`): stored in the database so every node can serve it. */
@Entity('report_chunks')
export class ReportChunk {
  @PrimaryColumn({ name: 'report_run_id', type: 'varchar', length: 40 }) reportRunId: string;
  @PrimaryColumn({ type: 'int' }) seq: number;
  @Column({ type: 'text' }) data: string;
}
