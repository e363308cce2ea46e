/**
 * GraphQL enums: UPPER_CASE names whose internal values are the REST wire strings. The enums
 * shared by every module (Environment, FailureCode) and the builders each module's own enums
 * use (`stateEnum` over a state table, `wireEnum` over a wire list) live here; a module's enums
 * live with its types.
 */
import { registerEnumType } from 'type-graphql';
import { FAILURE_CODES, type FailureCodeName } from '../domain/failure-codes';

type WireEnum<V extends string> = { [K in V as Uppercase<K>]: K };

/** The GraphQL enum of a state list (`REQUIRES_ACTION` -> `requires_action`): it cannot drift from the state machine. */
export function stateEnum<V extends string>(states: readonly V[], name: string, what: string, meaning: Record<V, string>): WireEnum<V> {
  const values = Object.fromEntries(states.map((state) => [state.toUpperCase(), state])) as WireEnum<V>;
  const valuesConfig = Object.fromEntries(states.map((state) => [state.toUpperCase(), { description: meaning[state] }])) as Partial<
    Record<keyof WireEnum<V>, { description: string }>
  >;
  registerEnumType(values, { name, description: `Where a ${what} is in its lifecycle (REST: the lower-case status).`, valuesConfig });
  return values;
}

export enum EnvironmentEnum {
  TEST = 'test',
  LIVE = 'live',
}
registerEnumType(EnvironmentEnum, {
  name: 'Environment',
  description: 'Set by the API key prefix; never by input.',
  valuesConfig: { TEST: { description: 'Test mode: simulated providers, test keys.' }, LIVE: { description: 'Live mode: real money.' } },
});

/** The enum value name of a wire string: `payout_intent.cancelled` -> `PAYOUT_INTENT_CANCELLED`. */
export const enumName = (wire: string): string => wire.replace(/\./g, '_').toUpperCase();

/**
 * A GraphQL enum over wire strings (value name `enumName(wire)`, internal value the wire string).
 * These enums sit beside the contract's String fields (`type`, `failureCode`, `paymentMethod`),
 * as `<field>Enum` fields and arguments, as `amountMoney` sits beside `amount` (docs/graphql.md).
 */
export function wireEnum<V extends string>(wires: readonly V[], name: string, description: string, meaning: (wire: V) => string): Record<string, V> {
  const values = Object.fromEntries(wires.map((w) => [enumName(w), w])) as Record<string, V>;
  const valuesConfig = Object.fromEntries(wires.map((w) => [enumName(w), { description: meaning(w) }]));
  registerEnumType(values, { name, description, valuesConfig });
  return values;
}

/** The failure codes the service sets, and OTHER for a test helper's own code. */
const FAILURE_CODE_VALUES = [...(Object.keys(FAILURE_CODES) as FailureCodeName[]), 'other' as const];
export const FailureCodeEnum = wireEnum(
  FAILURE_CODE_VALUES,
  'FailureCode',
  'Why a payment, payout, topup or refund failed or was cancelled (the String `failureCode` upper-cased). OTHER: a code a test helper named; `failureCode` has it.',
  (code) => (code === 'other' ? 'A code not in this list (a test helper may name any snake_case code); read failureCode.' : FAILURE_CODES[code]),
);
export type FailureCodeEnum = FailureCodeName | 'other';

/** The FailureCode of a wire failure code: null stays null, a code outside the list is OTHER. */
export function failureCodeEnum(code: string | null): FailureCodeEnum | null {
  if (code === null) return null;
  return code in FAILURE_CODES ? (code as FailureCodeName) : 'other';
}
