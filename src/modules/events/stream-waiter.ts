/**
 * How a live event stream sleeps until there may be something to read: `wake()` (from the
 * scope's shared reader, or `close()`) ends the current `wait()`, or the next one at once.
 */
export class Waiter {
  dirty = true;
  closed = false;
  private resolve?: () => void;

  wake(): void {
    this.dirty = true;
    const r = this.resolve;
    this.resolve = undefined;
    r?.();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  /** Resolves after `ms`, or earlier when closed. */
  pause(ms: number): Promise<void> {
    return new Promise((r) => {
      const timer = setTimeout(() => {
        this.resolve = undefined;
        r();
      }, ms);
      timer.unref();
      this.resolve = () => {
        clearTimeout(timer);
        r();
      };
    });
  }

  /** Resolves on the next wake, or at once if woken since the last call. */
  wait(): Promise<void> {
    if (this.dirty) {
      this.dirty = false;
      return Promise.resolve();
    }
    return new Promise((r) => (this.resolve = r));
  }
}
