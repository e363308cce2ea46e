/**
 * What each report type's CSV holds (docs/finance.md "Reports"): its columns, and its rows as
 * pages read by keyset (created_at, id ascending; PAGE_ROWS a page), so a report of any size
 * is generated in bounded memory. Itemized reports list the records created in
 * [interval_start, interval_end); the balance summary gives, per currency, the available
 * balance at interval_start, the total of each balance-transaction type in the interval, and
 * the balance at interval_end.
 */
import type { EntityManager, EntityTarget, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { runRawSelect, runSelect, type Select } from '../../db/compiled-select';
import type { Db } from '../../db/db';
import { readingIndex } from '../../db/list-query';
import { isoInstant } from '../../domain/instant';
import type { Scope } from '../../domain/scope';
import { BALANCE_TRANSACTION_TYPES, BalanceTransaction } from '../balances/finance.entity';
import { PaymentIntent } from '../payments/payment.entity';
import { PayoutIntent } from '../payouts/payout.entity';
import { Refund } from '../refunds/refund.entity';
import type { ReportType } from './report.entity';

/**
 * Rows a page: one page is formatted between two turns of the event loop, and at most two are
 * alive at once (this one and the one read ahead), so the requests served beside a report wait
 * little and few rows outlive a young-generation collection (pages of 1,000 doubled the RSS
 * growth of a 1,000,000-row report; the figures are in docs/finance.md).
 */
export const PAGE_ROWS = 250;
/** Tables with an index (merchant_id, environment, currency, created_at, id). */
const CURRENCY_INDEXED = new Set(['balance_transactions']);

export interface ReportQuery {
  scope: Scope;
  start: number;
  end: number;
  currency: string | null;
}

type Row = (string | number | null)[];

interface Keyed {
  id: string;
  createdAt: Date;
}

/**
 * Pages of the rows of `entity` that `build` selects (scope, interval and currency applied) in keyset order, each page read in
 * its own short read over the table's list index (its currency index where it has one), forced
 * as lists force it: a range from the cursor, so a page costs the same at any depth. The next
 * page is read while the caller works on this one (one page ahead, so memory stays bounded).
 */
async function* pagesOf<E extends ObjectLiteral, R>(
  db: Db,
  q: ReportQuery,
  entity: EntityTarget<E>,
  build: (qb: SelectQueryBuilder<E>) => SelectQueryBuilder<E>,
  run: (em: EntityManager, select: Select<E>) => Promise<R[]>,
  keyOf: (row: R) => { t: number; id: string },
): AsyncGenerator<R[]> {
  const read = (after: { t: number; id: string } | null): Promise<R[]> =>
    db.read((em) => {
      const qb = build(em.createQueryBuilder(entity, 'r'));
      const table = em.connection.getMetadata(entity).tableName;
      const index = q.currency && CURRENCY_INDEXED.has(table) ? `ix_${table}_currency_list` : `ix_${table}_list`;
      qb.andWhere('r.merchant_id = :merchantId AND r.environment = :environment', q.scope).andWhere('r.created_at >= :start AND r.created_at < :end', {
        start: q.start,
        end: q.end,
      });
      if (q.currency) qb.andWhere('r.currency = :currency', { currency: q.currency });
      if (after) qb.andWhere('r.created_at >= :at AND (r.created_at > :at OR r.id > :aid)', { at: after.t, aid: after.id });
      return run(em, readingIndex(qb.orderBy('r.created_at', 'ASC').addOrderBy('r.id', 'ASC').limit(PAGE_ROWS), index));
    });
  let next: Promise<R[]> | null = read(null);
  while (next) {
    const page: R[] = await next;
    next = page.length === PAGE_ROWS ? read(keyOf(page[page.length - 1])) : null;
    // A caller that stops early (an error) leaves the read ahead unawaited: its failure is not an unhandled rejection.
    next?.catch(() => undefined);
    if (page.length > 0) yield page;
  }
}

/** Pages of entities (what `build` selects of `entity`, mapped as `getMany()` would). */
async function* keyset<E extends ObjectLiteral & Keyed>(
  db: Db,
  q: ReportQuery,
  entity: EntityTarget<E>,
  build: (qb: SelectQueryBuilder<E>) => SelectQueryBuilder<E> = (qb) => qb,
): AsyncGenerator<E[]> {
  yield* pagesOf(db, q, entity, build, runSelect, (e) => ({ t: e.createdAt.getTime(), id: e.id }));
}

/** The fee and tax of each of `ids` (payment_fee / payout_fee balance transactions), as positive amounts. */
async function feesOf(db: Db, scope: Scope, ids: string[], type: 'payment_fee' | 'payout_fee'): Promise<Map<string, { fee: bigint; tax: bigint }>> {
  const rows = await db.read((em) =>
    em
      .createQueryBuilder(BalanceTransaction, 't')
      .where('t.source_id IN (:...ids) AND t.type = :type AND t.merchant_id = :merchantId AND t.environment = :environment', { ids, type, ...scope })
      .getMany(),
  );
  const out = new Map<string, { fee: bigint; tax: bigint }>();
  for (const t of rows) {
    const f = out.get(t.sourceId) ?? { fee: 0n, tax: 0n };
    f.fee -= t.amount - t.tax;
    f.tax -= t.tax;
    out.set(t.sourceId, f);
  }
  return out;
}

const time = (d: Date | null) => (d ? isoInstant(d) : null);

export interface ReportSource {
  columns: string[];
  pages(db: Db, q: ReportQuery): AsyncGenerator<Row[]>;
}

const TXN_COLUMNS = ['id', 'created_at', 'available_on', 'type', 'currency', 'amount', 'fee', 'net', 'tax', 'status', 'source_type', 'source_id'];

// Property paths: the builder selects each as `r_<column>`.
const TXN_SELECT = ['id', 'createdAt', 'availableOn', 'type', 'currency', 'amount', 'fee', 'net', 'tax', 'status', 'sourceType', 'sourceId'].map(
  (c) => `r.${c}`,
);
const at = (ms: string | number) => isoInstant(new Date(Number(ms)));

/** A balance transaction as the driver reads it: times are BIGINT (a number or a string), amounts decimal strings (DECIMAL, or TEXT on SQLite). */
interface TxnRaw {
  r_id: string;
  r_created_at: string | number;
  r_available_on: string | number;
  r_type: string;
  r_currency: string;
  r_amount: string;
  r_fee: string;
  r_net: string;
  r_tax: string;
  r_status: string;
  r_source_type: string;
  r_source_id: string;
}

/** Raw rows, not entities: the largest report reads as little as it can. */
async function* transactions(db: Db, q: ReportQuery): AsyncGenerator<Row[]> {
  const build = (qb: SelectQueryBuilder<BalanceTransaction>) => qb.select(TXN_SELECT);
  const read = (em: EntityManager, select: Select<BalanceTransaction>) => runRawSelect(em, select) as Promise<TxnRaw[]>;
  for await (const page of pagesOf(db, q, BalanceTransaction, build, read, (r) => ({ t: Number(r.r_created_at), id: r.r_id }))) {
    yield page.map((r) => [
      r.r_id,
      at(r.r_created_at),
      at(r.r_available_on),
      r.r_type,
      r.r_currency,
      String(r.r_amount),
      String(r.r_fee),
      String(r.r_net),
      String(r.r_tax),
      r.r_status,
      r.r_source_type,
      r.r_source_id,
    ]);
  }
}

/** Sums of `net` per currency (and per type) of the scope's transactions in [from, to), streamed by keyset. */
async function sums(db: Db, q: ReportQuery, from: number, to: number): Promise<Map<string, Map<string, bigint>>> {
  const out = new Map<string, Map<string, bigint>>();
  for await (const page of keyset(db, { ...q, start: from, end: to }, BalanceTransaction, (qb) =>
    qb.select(['r.id', 'r.createdAt', 'r.currency', 'r.type', 'r.net']),
  )) {
    for (const t of page) {
      const byType = out.get(t.currency) ?? new Map<string, bigint>();
      byType.set(t.type, (byType.get(t.type) ?? 0n) + t.net);
      out.set(t.currency, byType);
    }
  }
  return out;
}

const total = (m: Map<string, bigint> | undefined) => [...(m?.values() ?? [])].reduce((a, b) => a + b, 0n);

async function* summary(db: Db, q: ReportQuery): AsyncGenerator<Row[]> {
  const before = await sums(db, q, 0, q.start);
  const during = await sums(db, q, q.start, q.end);
  const currencies = [...new Set([...before.keys(), ...during.keys()])].sort();
  yield currencies.map((currency) => {
    const opening = total(before.get(currency));
    const activity = during.get(currency);
    return [currency, String(opening), ...BALANCE_TRANSACTION_TYPES.map((t) => String(activity?.get(t) ?? 0n)), String(opening + total(activity))];
  });
}

async function* payments(db: Db, q: ReportQuery): AsyncGenerator<Row[]> {
  for await (const page of keyset(db, q, PaymentIntent)) {
    const fees = await feesOf(
      db,
      q.scope,
      page.map((p) => p.id),
      'payment_fee',
    );
    yield page.map((p) => {
      const f = fees.get(p.id) ?? { fee: 0n, tax: 0n };
      const net = p.status === 'succeeded' ? p.amount - f.fee - f.tax : 0n;
      return [
        p.id,
        time(p.createdAt),
        time(p.updatedAt),
        p.status,
        p.paymentMethod,
        p.currency,
        p.country,
        String(p.amount),
        String(f.fee),
        String(f.tax),
        String(net),
        String(p.amountRefunded),
        p.merchantReference,
        p.failureCode,
      ];
    });
  }
}

async function* payouts(db: Db, q: ReportQuery): AsyncGenerator<Row[]> {
  for await (const page of keyset(db, q, PayoutIntent)) {
    const fees = await feesOf(
      db,
      q.scope,
      page.map((p) => p.id),
      'payout_fee',
    );
    yield page.map((p) => {
      const f = fees.get(p.id) ?? { fee: 0n, tax: 0n };
      return [
        p.id,
        time(p.createdAt),
        time(p.updatedAt),
        p.status,
        p.currency,
        p.country,
        String(p.amount),
        String(f.fee),
        String(f.tax),
        p.merchantReference,
        p.recipientBankCode,
        p.recipientAccountLast4,
        p.recipientHolderName,
        p.failureCode,
      ];
    });
  }
}

async function* refunds(db: Db, q: ReportQuery): AsyncGenerator<Row[]> {
  for await (const page of keyset(db, q, Refund)) {
    yield page.map((r) => [
      r.id,
      time(r.createdAt),
      time(r.updatedAt),
      r.status,
      r.paymentIntentId,
      r.currency,
      String(r.amount),
      r.reason,
      r.merchantReference,
      r.failureCode,
    ]);
  }
}

export const REPORT_SOURCES: Record<ReportType, ReportSource> = {
  'balance.summary': { columns: ['currency', 'opening_balance', ...BALANCE_TRANSACTION_TYPES, 'closing_balance'], pages: summary },
  'balance_transactions.itemized': { columns: TXN_COLUMNS, pages: transactions },
  'payments.itemized': {
    columns: [
      'id',
      'created_at',
      'updated_at',
      'status',
      'payment_method',
      'currency',
      'country',
      'amount',
      'fee',
      'tax',
      'net',
      'amount_refunded',
      'merchant_reference',
      'failure_code',
    ],
    pages: payments,
  },
  'payouts.itemized': {
    columns: [
      'id',
      'created_at',
      'updated_at',
      'status',
      'currency',
      'country',
      'amount',
      'fee',
      'tax',
      'merchant_reference',
      'bank_code',
      'account_last4',
      'holder_name',
      'failure_code',
    ],
    pages: payouts,
  },
  'refunds.itemized': {
    columns: ['id', 'created_at', 'updated_at', 'status', 'payment_intent', 'currency', 'amount', 'reason', 'merchant_reference', 'failure_code'],
    pages: refunds,
  },
};

/**
 * A cell a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a
 * carriage return) gets a leading `'`. A signed whole number (`-883`, an amount) is a number
 * to every spreadsheet and is left as it is.
 */
export function neutralise(cell: string | number | null): string {
  if (cell === null) return '';
  const s = String(cell);
  if (/^-?[0-9]+$/.test(s)) return s;
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}
