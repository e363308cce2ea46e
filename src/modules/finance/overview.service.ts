/**
 * The overview the dashboard lands on: for a period (UTC days), per currency, the gross volume
 * of succeeded payments, the fees, the refunds, the payouts and the net, in total and per day.
 * One SQL aggregate over the balance transactions (the ledger's read model) of the scope, by
 * currency, type and day; the sums are taken as decimal (MariaDB/MySQL) or 64-bit integers
 * (SQLite) and come back as strings, so no amount passes through a JavaScript number.
 */
import type { Db } from '../../db/db';
import type { Scope } from '../../domain/scope';

export type OverviewPeriod = 'this_month' | 'last_month' | 'last_7_days';
export const OVERVIEW_PERIODS: readonly OverviewPeriod[] = ['this_month', 'last_month', 'last_7_days'];

const DAY_MS = 86_400_000;

/** The figures of one currency over a span (minor units, signed as a person reads them: money in and out both positive). */
export interface OverviewFigures {
  /** Succeeded payments. */
  gross: bigint;
  /** Payment and payout fees, tax included (less fees given back by cancelled or failed payouts). */
  fees: bigint;
  /** Refunds (less refunds that failed and gave their amount back). */
  refunds: bigint;
  /** Payouts created (less payouts cancelled or failed). */
  payouts: bigint;
  /** gross - fees - refunds. */
  net: bigint;
}

export interface OverviewDay extends OverviewFigures {
  /** The UTC day, YYYY-MM-DD. */
  date: string;
  /** Its first instant. */
  start: Date;
}

export interface OverviewCurrency extends OverviewFigures {
  currency: string;
  /** Every day of the period up to today (zero days included), oldest first. */
  days: OverviewDay[];
}

export interface Overview {
  period: OverviewPeriod;
  /** Inclusive start (00:00 UTC). */
  from: Date;
  /** Exclusive end (00:00 UTC of the day after the period). */
  to: Date;
  /** One entry per currency that moved in the period, by currency code. */
  currencies: OverviewCurrency[];
}

/** The span of a period around `now`, in UTC days. */
export function periodSpan(period: OverviewPeriod, now: Date): { from: Date; to: Date } {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const today = Date.UTC(y, m, now.getUTCDate());
  switch (period) {
    case 'this_month':
      return { from: new Date(Date.UTC(y, m, 1)), to: new Date(Date.UTC(y, m + 1, 1)) };
    case 'last_month':
      return { from: new Date(Date.UTC(y, m - 1, 1)), to: new Date(Date.UTC(y, m, 1)) };
    case 'last_7_days':
      return { from: new Date(today - 6 * DAY_MS), to: new Date(today + DAY_MS) };
  }
}

const zero = (): OverviewFigures => ({ gross: 0n, fees: 0n, refunds: 0n, payouts: 0n, net: 0n });

/** Adds a signed balance-transaction sum of `type` to the figures it counts in. */
function add(f: OverviewFigures, type: string, sum: bigint): void {
  switch (type) {
    case 'payment':
      f.gross += sum;
      break;
    case 'payment_fee':
    case 'payout_fee':
      f.fees -= sum;
      break;
    case 'refund':
      f.refunds -= sum;
      break;
    case 'payout':
    case 'payout_reversal':
      f.payouts -= sum;
      break;
    default:
      return; // topups and adjustments are not sales
  }
  f.net = f.gross - f.fees - f.refunds;
}

const COUNTED = ['payment', 'payment_fee', 'payout_fee', 'refund', 'payout', 'payout_reversal'];

export class OverviewService {
  constructor(private readonly db: Db) {}

  async overview(scope: Scope, period: OverviewPeriod, currency?: string | null, now = new Date()): Promise<Overview> {
    const { from, to } = periodSpan(period, now);
    const mysql = this.db.kind === 'mysql';
    const sum = mysql ? 'CAST(SUM(CAST(amount AS DECIMAL(38,0))) AS CHAR)' : 'CAST(SUM(CAST(amount AS INTEGER)) AS TEXT)';
    const day = mysql ? `created_at DIV ${DAY_MS}` : `created_at / ${DAY_MS}`;
    const params: unknown[] = [scope.merchantId, scope.environment, from.getTime(), to.getTime(), ...COUNTED];
    let where = `merchant_id = ? AND environment = ? AND created_at >= ? AND created_at < ? AND type IN (${COUNTED.map(() => '?').join(',')})`;
    if (currency) {
      where += ' AND currency = ?';
      params.push(currency);
    }
    const rows: { currency: string; type: string; day: number | string; total: string | number }[] = await this.db.read((em) =>
      em.query(`SELECT currency, type, ${day} AS day, ${sum} AS total FROM balance_transactions WHERE ${where} GROUP BY currency, type, ${day}`, params),
    );

    // Every day of the period up to today: the chart draws the days with nothing as zero.
    const last = Math.min(to.getTime(), Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + DAY_MS);
    const dayStarts: number[] = [];
    for (let t = from.getTime(); t < Math.max(last, from.getTime() + DAY_MS); t += DAY_MS) dayStarts.push(t);

    const byCurrency = new Map<string, { totals: OverviewFigures; days: Map<number, OverviewFigures> }>();
    for (const row of rows) {
      const c = byCurrency.get(row.currency) ?? { totals: zero(), days: new Map<number, OverviewFigures>() };
      byCurrency.set(row.currency, c);
      const start = Number(row.day) * DAY_MS;
      const d = c.days.get(start) ?? zero();
      c.days.set(start, d);
      const value = BigInt(String(row.total));
      add(d, row.type, value);
      add(c.totals, row.type, value);
    }
    const currencies = [...byCurrency]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([code, c]) => ({
        currency: code,
        ...c.totals,
        days: dayStarts.map((start) => ({ date: new Date(start).toISOString().slice(0, 10), start: new Date(start), ...(c.days.get(start) ?? zero()) })),
      }));
    return { period, from, to, currencies };
  }
}
