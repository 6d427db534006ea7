/**
 * One queue for the calls that read or write the root: a call waits for the one before it to end, so two
 * applies on the same files never interleave and a verify never reads a half-applied tree.
 */
export class CallQueue {
  #tail: Promise<void> = Promise.resolve();
  #running = 0;

  /** Runs `task` after every task queued before it has settled. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const start = this.#tail;
    const result = start.then(async () => {
      this.#running++;
      try {
        return await task();
      } finally {
        this.#running--;
      }
    });
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Resolves once every task queued so far has settled (the server waits for it before it exits). */
  idle(): Promise<void> {
    return this.#tail;
  }

  get busy(): boolean {
    return this.#running > 0;
  }
}
