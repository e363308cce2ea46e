/** The balances' wire record, its type, and what GET /v1/balances publishes in the OpenAPI document. */
import { Type, type Static } from '@sinclair/typebox';
import { AmountText, EnvironmentName, Instant } from '../../domain/fields';
import { commonFailures, type RouteDoc } from '../../http/route-docs';

export const BalanceSchema = Type.Object(
  {
    object: Type.Literal('balance'),
    currency: Type.String(),
    environment: EnvironmentName,
    available: Type.Unsafe<string>({ ...AmountText, description: 'Minor units available to pay out.' }),
    pending: Type.Unsafe<string>({ ...AmountText, description: 'Minor units pending settlement.' }),
    reserved: Type.Unsafe<string>({ ...AmountText, description: 'Minor units reserved by payouts in flight.' }),
    updated_at: Instant,
  },
  {
    $id: 'Balance',
    additionalProperties: false,
    description: 'One per currency the merchant has used in the environment; always the sum of its ledger entries.',
  },
);
export type BalanceWire = Static<typeof BalanceSchema>;

export const BALANCE_ROUTES = {
  list: {
    operationId: 'listBalances',
    permission: 'balances:read',
    summary: "The merchant's balances in the key's environment, one per currency.",
    responses: {
      200: Type.Object({ data: Type.Array(Type.Ref('Balance')) }, { description: 'Balances, by currency.' }),
      401: commonFailures[401],
      503: commonFailures[503],
    },
  },
} satisfies Record<string, RouteDoc>;
