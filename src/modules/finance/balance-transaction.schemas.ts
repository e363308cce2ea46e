/**
 * Balance transactions' schemas: the listing's filters, the wire record and its type, and
 * what the routes publish in the OpenAPI document (docs/contract.md "Finance").
 */
import { Type, type Static } from '@sinclair/typebox';
import { EnvironmentName, Instant } from '../../domain/fields';
import type { ListSpec } from '../../domain/listing';
import { CURRENCY } from '../../domain/validation';
import { pageOf, readFailures, type RouteDoc } from '../../http/route-docs';
import { BALANCE_TRANSACTION_TYPES } from '../balances/finance.entity';

const TYPE_ALTERNATIVES = BALANCE_TRANSACTION_TYPES.join('|');
const ONE_TYPE = `\\s*(?:${TYPE_ALTERNATIVES})\\s*`;
/** The records a balance transaction's `source` may name. */
const SOURCE_ID = /^(pi|po|re|tu)_[0-9a-z]{26}$/;

export const BALANCE_TRANSACTION_LIST: ListSpec = {
  resource: 'balance_transaction',
  statuses: [],
  noCountryCurrency: true,
  noMerchantReference: true,
  extra: {
    type: {
      schema: Type.String({
        pattern: `^${ONE_TYPE}(?:,${ONE_TYPE})*$`,
        'x-expected': `one or a comma-separated list of: ${BALANCE_TRANSACTION_TYPES.join(', ')}`,
        description: `One type or a comma-separated list of: ${BALANCE_TRANSACTION_TYPES.join(', ')}.`,
      }),
      parse: (v) => [...new Set(v.split(',').map((t) => t.trim()))].join(','),
    },
    source: {
      schema: Type.String({
        pattern: SOURCE_ID.source,
        'x-expected': 'the id of a payment intent, payout intent, refund or topup intent',
        description: 'Only the movements of this record (a payment intent, payout intent, refund or topup intent id).',
      }),
    },
    currency: {
      schema: Type.String({ pattern: CURRENCY.source, 'x-expected': 'an upper-case code of 3 to 6 letters such as THB', description: 'Only this currency.' }),
    },
  },
};

const Signed = (description: string) => Type.String({ pattern: '^-?[0-9]+$', description });

export const BalanceTransactionSchema = Type.Object(
  {
    object: Type.Literal('balance_transaction'),
    id: Type.String(),
    type: Type.Union(
      BALANCE_TRANSACTION_TYPES.map((t) => Type.Literal(t)),
      { description: 'What moved the balance: a payment, its fee, a refund, a payout, its fee or its reversal, a topup, an adjustment.' },
    ),
    amount: Signed('Signed minor units: money in is positive, money out negative.'),
    fee: Signed('Fees taken inside this movement, minor units. Fees are balance transactions of their own (payment_fee, payout_fee), so this is "0".'),
    net: Signed('amount - fee: what the movement did to the available balance.'),
    currency: Type.String(),
    environment: EnvironmentName,
    status: Type.Union([Type.Literal('pending'), Type.Literal('available')], { description: 'Whether the money is available yet (see available_on).' }),
    available_on: Type.Unsafe<string>({ ...Instant, description: 'When the money became (or becomes) available.' }),
    source: Type.Object(
      {
        type: Type.String({ description: 'payment_intent, payout_intent, refund or topup_intent.' }),
        id: Type.String(),
      },
      { additionalProperties: false, description: 'The record whose transition made the movement.' },
    ),
    created_at: Instant,
  },
  { $id: 'BalanceTransaction', additionalProperties: false, description: 'One movement of the available balance.' },
);
export type BalanceTransactionWire = Static<typeof BalanceTransactionSchema>;

export const BALANCE_TRANSACTION_ROUTES = {
  list: {
    operationId: 'listBalanceTransactions',
    permission: 'balance_transactions:read',
    summary: 'Movements of the available balance, newest first.',
    description: 'Filters: `type`, `source` (a record id), `currency`, `created_gte`, `created_lt`. The sum of `net` over a currency is its available balance.',
    responses: { 200: pageOf('BalanceTransaction'), ...readFailures },
  },
  get: {
    operationId: 'getBalanceTransaction',
    permission: 'balance_transactions:read',
    summary: 'One balance transaction.',
    responses: { 200: Type.Ref('BalanceTransaction', { description: 'The balance transaction.' }), ...readFailures },
  },
} satisfies Record<string, RouteDoc>;
