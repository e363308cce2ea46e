/** States as data: each machine is a table of allowed transitions, checked in one place. */
export class StateMachine<S extends string> {
  constructor(
    readonly name: string,
    private readonly transitions: Readonly<Record<S, readonly S[]>>,
  ) {}

  get states(): S[] {
    return Object.keys(this.transitions) as S[];
  }

  can(from: S, to: S): boolean {
    return this.transitions[from]?.includes(to) ?? false;
  }

  isTerminal(state: S): boolean {
    return (this.transitions[state] ?? []).length === 0;
  }

  isState(value: string): value is S {
    return Object.prototype.hasOwnProperty.call(this.transitions, value);
  }
}
