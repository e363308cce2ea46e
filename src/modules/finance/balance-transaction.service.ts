/**
 * Reads of balance transactions (the ledger writes them: src/modules/balances/ledger-rows.ts).
 * Pages follow the listing rules over keyset indexes: a filter on `source`, `type` or
 * `currency` reads its own index range from the cursor down, so a page costs the same at
 * any depth.
 */
import type { Db } from '../../db/db';
import { applyList, listIndexesOf, listRows } from '../../db/list-query';
import { compiledSelect } from '../../db/compiled-select';
import { ApiError } from '../../domain/errors';
import { isId } from '../../domain/ids';
import { isoInstant } from '../../domain/instant';
import { ListParams, Page, parseListQuery, toPage } from '../../domain/listing';
import { formatAmount } from '../../domain/money';
import type { Scope } from '../../domain/scope';
import { BalanceTransaction } from '../balances/finance.entity';
import { BALANCE_TRANSACTION_LIST, type BalanceTransactionWire } from './balance-transaction.schemas';

export function balanceTransactionToWire(t: BalanceTransaction): BalanceTransactionWire {
  return {
    object: 'balance_transaction',
    id: t.id,
    type: t.type,
    amount: formatAmount(t.amount),
    fee: formatAmount(t.fee),
    net: formatAmount(t.net),
    currency: t.currency,
    environment: t.environment,
    status: t.status,
    available_on: isoInstant(t.availableOn),
    source: { type: t.sourceType, id: t.sourceId },
    created_at: isoInstant(t.createdAt),
  };
}

export class BalanceTransactionService {
  constructor(private readonly db: Db) {}

  parseList(scope: Scope, query: Record<string, unknown>): ListParams {
    return parseListQuery(query, BALANCE_TRANSACTION_LIST, scope);
  }

  async list(scope: Scope, params: ListParams): Promise<Page<BalanceTransactionWire>> {
    const rows = await this.db.read((em) => {
      const qb = applyList(em.createQueryBuilder(BalanceTransaction, 't'), 't', scope, params);
      const { source, type, currency } = params.extra;
      // `currency` is applied by applyList (the listing's own filter).
      if (source) {
        // One record's movements: a range of (source_id, created_at, id).
        qb.andWhere('t.source_id = :source', { source });
        if (type) qb.andWhere('t.type IN (:...types)', { types: type.split(',') });
        return listRows(em, qb, 't', params, { list: 'ix_balance_transactions_source', sqliteToo: true });
      }
      if (type) {
        // One range of (merchant_id, environment, type, created_at, id) per type.
        const clause = 't.type IN (:...types)';
        const values = type.split(',');
        qb.andWhere(clause, { types: values });
        return listRows(em, qb, 't', params, {
          list: 'ix_balance_transactions_list',
          byValue: { clause, column: 'type', values, index: 'ix_balance_transactions_type_list' },
        });
      }
      if (currency) return listRows(em, qb, 't', params, { list: 'ix_balance_transactions_currency_list', sqliteToo: true });
      return listRows(em, qb, 't', params, listIndexesOf('balance_transactions', false));
    });
    return toPage(rows, params, BALANCE_TRANSACTION_LIST.resource, scope, balanceTransactionToWire);
  }

  async get(scope: Scope, id: string): Promise<BalanceTransactionWire> {
    const [found] = await this.getMany(scope, [id]);
    if (!found) throw new ApiError('not_found', `No such balance transaction: ${id}.`);
    return found;
  }

  /** The scope's records among `ids` (unknown, foreign and malformed ids are left out). */
  async getMany(scope: Scope, ids: readonly string[]): Promise<BalanceTransactionWire[]> {
    const wanted = [...new Set(ids.filter((id) => isId('balanceTransaction', id)))];
    if (wanted.length === 0) return [];
    const rows = await this.db.read((em) =>
      compiledSelect(em, `balanceTransactions.get.${wanted.length}`, { merchantId: scope.merchantId, environment: scope.environment, ids: wanted }, () =>
        em.createQueryBuilder(BalanceTransaction, 't').where('t.id IN (:...ids) AND t.merchant_id = :merchantId AND t.environment = :environment'),
      ),
    );
    return rows.map(balanceTransactionToWire);
  }

  /** The movements of one record (a payment intent, payout intent, refund), oldest first. */
  async ofSource(scope: Scope, sourceId: string): Promise<BalanceTransactionWire[]> {
    const rows = await this.db.read((em) =>
      em
        .createQueryBuilder(BalanceTransaction, 't')
        .where('t.source_id = :sourceId AND t.merchant_id = :merchantId AND t.environment = :environment', { sourceId, ...scope })
        .orderBy('t.created_at', 'ASC')
        .addOrderBy('t.id', 'ASC')
        .limit(100)
        .getMany(),
    );
    return rows.map(balanceTransactionToWire);
  }
}
