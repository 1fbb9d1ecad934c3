/**
 * An unbounded push-to-pull channel exposed as an async iterable: the producer `push`es values
 * and finally `end`s (or `fail`s); one consumer iterates. Used for fake watch streams.
 *
 * Invariants: `buffer` holds values pushed and not yet taken; `waiting` is set only while the
 * consumer awaits and the buffer is empty; after `end`/`fail` no value is accepted.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private buffer: T[] = [];
  private waiting: ((r: IteratorResult<T>) => void) | undefined;
  private waitingReject: ((e: unknown) => void) | undefined;
  private closed = false;
  private error: unknown;
  private onClose: (() => void) | undefined;

  constructor(signal?: AbortSignal, onClose?: () => void) {
    this.onClose = onClose;
    if (signal) {
      if (signal.aborted) this.end();
      else signal.addEventListener("abort", () => this.end(), { once: true });
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  push(v: T): void {
    if (this.closed) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = this.waitingReject = undefined;
      w({ value: v, done: false });
    } else this.buffer.push(v);
  }

  /** Ends the stream once buffered values are consumed. */
  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose?.();
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = this.waitingReject = undefined;
      w({ value: undefined, done: true });
    }
  }

  /** Ends the stream with an error, thrown to the consumer after buffered values. */
  fail(err: unknown): void {
    if (this.closed) return;
    this.error = err;
    this.closed = true;
    this.onClose?.();
    if (this.waitingReject) {
      const r = this.waitingReject;
      this.waiting = this.waitingReject = undefined;
      r(err);
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.buffer.length > 0) return Promise.resolve({ value: this.buffer.shift() as T, done: false });
        if (this.closed) {
          if (this.error !== undefined) {
            const e = this.error;
            this.error = undefined;
            return Promise.reject(e);
          }
          return Promise.resolve({ value: undefined, done: true });
        }
        return new Promise<IteratorResult<T>>((resolve, reject) => {
          this.waiting = resolve;
          this.waitingReject = reject;
        });
      },
      return: () => {
        this.buffer = [];
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
