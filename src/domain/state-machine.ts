/**
 * Transitions as data. A resource's state table is the single description of each of its
 * transitions: the states it may start from, the refusal (code and message) when the
 * record is elsewhere, the ledger effect, and the event it records. The lifecycle engine
 * (modules/shared/lifecycle.ts) applies any transition of any table the same way.
 */
import { ApiError, ErrorCode } from './errors';
import type { LedgerEffect } from './moves';

export interface Transition<S extends string> {
  from: readonly S[];
  to: S;
  /**
   * Answer when the record is not in a `from` state. `{status}` in the message is
   * replaced by the record's current state.
   */
  refusal: { code: ErrorCode; message: string };
  /** The balance movement the transition makes, if any. */
  ledger?: LedgerEffect;
  /** The event suffix (`<object>.<event>`); defaults to the target state. */
  event?: string;
}

/** How a record comes into being: its first state, ledger effect and event (`created`). */
export interface Entry<S extends string> {
  to: S;
  ledger?: LedgerEffect;
}

export class StateMachine<S extends string, T extends string = string> {
  readonly states: readonly S[];

  constructor(
    /** The wire `object` name, e.g. `payout_intent`. */
    readonly name: string,
    states: readonly S[],
    readonly entry: Entry<S>,
    readonly transitions: Readonly<Record<T, Transition<S>>>,
  ) {
    this.states = states;
    for (const [name, t] of Object.entries<Transition<S>>(this.transitions)) {
      for (const s of [...t.from, t.to]) {
        if (!states.includes(s)) throw new Error(`${this.name}.${name}: unknown state ${s}`);
      }
    }
  }

  /** True when some transition leads from `from` to `to`. */
  can(from: S, to: S): boolean {
    return this.targets(from).includes(to);
  }

  targets(from: S): S[] {
    return Object.values<Transition<S>>(this.transitions)
      .filter((t) => t.from.includes(from))
      .map((t) => t.to);
  }

  isTerminal(state: S): boolean {
    return this.targets(state).length === 0;
  }

  isState(value: string): value is S {
    return (this.states as readonly string[]).includes(value);
  }

  /** The transition `name`, or its refusal when a record in `status` may not take it. */
  check(name: T, status: S): Transition<S> {
    const t = this.transitions[name];
    if (!t.from.includes(status)) throw new ApiError(t.refusal.code, t.refusal.message.replace('{status}', status));
    return t;
  }
}
