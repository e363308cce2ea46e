/**
 * Operations whose unit of work is the database layer's `Tx` (src/db/tx.ts): what module
 * operation files define, and what their services' phases return.
 */
import type { EndWork, Written } from '../db/batch';
import type { Tx } from '../db/tx';
import { ApiError } from '../domain/errors';
import type { Scope } from '../domain/scope';
import { defineOperation as define, external as step, type Done as DoneOf, type External, type Operation, type Outcome, type Step } from '../domain/operation';

export { withBody } from '../domain/operation';

/** What an operation did, with the writes it leaves for the end of its unit (src/db/batch.ts). */
export type Done<T> = DoneOf<T, EndWork>;

/** `outcome` with what a write gave: its value, and the writes it left for the end of the unit. */
export function done<T>(outcome: Outcome, written: Written<T>): Done<T> {
  return { outcome, value: written.value, end: written.end };
}

export type TxOperation<A, I, T> = Operation<A, I, T, Tx>;
export type TxStep<T> = Step<T, Tx>;

export function defineOperation<A, I, T>(op: TxOperation<A, I, T>): TxOperation<A, I, T> {
  return define(op);
}

/**
 * `op` for test-mode keys, and for live keys only where `live` (the providers behind it serve
 * live mode): otherwise a live call is refused with no_provider_available before it changes
 * anything. `live` is true where the simulated providers serve live mode
 * (SIMULATED_PROVIDERS_IN_LIVE), else the module's check for a connected provider account.
 */
export function providedIn<A, I, T>(op: TxOperation<A, I, T>, live: boolean | LiveCheck): TxOperation<A, I, T> {
  if (live === true) return op;
  const refuse = () =>
    new ApiError(
      'no_provider_available',
      'No provider serves live mode for this request: no provider account is connected for live mode, and the simulated providers serve test mode only.',
    );
  return {
    ...op,
    execute: async (tx, ctx, input, args) => {
      if (ctx.environment === 'live' && (live === false || !(await live(ctx, tx)))) throw refuse();
      return op.execute(tx, ctx, input, args);
    },
  };
}

/** Whether a live-mode request of `scope` has a provider (a connected provider account). */
export type LiveCheck = (scope: Scope, tx: Tx) => Promise<boolean>;

/** The module's operations, each `create` gated by `providedIn` (the ones that reach a provider). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any operation's create
export function liveGated<O extends { create: TxOperation<any, any, any> }>(ops: O, live: boolean | LiveCheck): O {
  return { ...ops, create: providedIn(ops.create, live) };
}

/** The step "call the provider, then finish with its answer in a new Tx". */
export function external<T, X>(call: () => Promise<X>, finish: (tx: Tx, answer: X) => Promise<TxStep<T>>): External<T, X, Tx> {
  return step(call, finish);
}
