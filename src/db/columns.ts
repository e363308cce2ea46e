/**
 * Column transformers shared by every entity.
 *
 * - Money: `DECIMAL(38,0)` on MySQL/MariaDB, `TEXT` on SQLite (SQLite's NUMERIC affinity
 *   would turn a 30-digit value into a lossy REAL). In the entity it is always a bigint.
 * - Time: `BIGINT` milliseconds since the Unix epoch on both engines: UTC by construction,
 *   millisecond precision, no driver time-zone conversion, integer keyset comparisons.
 */
import { ValueTransformer } from 'typeorm';

export const moneyTransformer: ValueTransformer = {
  to: (value: bigint | null | undefined) => (value === null || value === undefined ? value : value.toString(10)),
  from: (value: string | number | null) => {
    if (value === null || value === undefined) return value;
    if (typeof value === 'number') throw new Error('money column returned as a JS number; refusing a lossy read');
    return BigInt(value);
  },
};

export const timeTransformer: ValueTransformer = {
  to: (value: Date | null | undefined) => (value === null || value === undefined ? value : value.getTime()),
  from: (value: string | number | null) => (value === null || value === undefined ? value : new Date(Number(value))),
};

/** A boolean as INT 0/1 on both engines. */
export const booleanTransformer: ValueTransformer = {
  to: (value: boolean | undefined) => (value === undefined ? value : value ? 1 : 0),
  from: (value: number | string | null) => (value === null ? null : Number(value) === 1),
};

export const jsonTransformer: ValueTransformer = {
  to: (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value)),
  from: (value: string | null) => (value === null || value === undefined ? null : (JSON.parse(value) as unknown)),
};
