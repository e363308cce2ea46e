/**
 * Operations whose unit of work is the database layer's `Tx` (src/db/tx.ts): what module
 * operation files define, and what their services' phases return.
 */
import type { Tx } from '../db/tx';
import { defineOperation as define, external as step, type External, type Operation, type Step } from '../domain/operation';

export { withBody, type Done } from '../domain/operation';

export type TxOperation<A, I, T> = Operation<A, I, T, Tx>;
export type TxStep<T> = Step<T, Tx>;

export function defineOperation<A, I, T>(op: TxOperation<A, I, T>): TxOperation<A, I, T> {
  return define(op);
}

/** The step "call the provider, then finish with its answer in a new Tx". */
export function external<T, X>(call: () => Promise<X>, finish: (tx: Tx, answer: X) => Promise<TxStep<T>>): External<T, X, Tx> {
  return step(call, finish);
}
