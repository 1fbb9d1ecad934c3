/**
 * ProcessorListener: one registered handler with its own unbounded buffer and delivery loop, so a
 * slow or failing handler never blocks the informer or other handlers (client-go's
 * processorListener). A handler that throws is reported and the next notification still arrives.
 */
import type { TypedObject } from "../apimachinery/types.js";
import type { ResourceEventHandler } from "./handlers.js";
import type { DeletedFinalStateUnknown } from "./store.js";

export type Notification<T extends TypedObject> =
  | { kind: "add"; obj: T; initial: boolean }
  | { kind: "update"; oldObj: T; newObj: T }
  | { kind: "delete"; obj: T | DeletedFinalStateUnknown<T> }
  /** Marks the end of the initial notifications for this listener. */
  | { kind: "synced" };

export class ProcessorListener<T extends TypedObject> {
  private buffer: Notification<T>[] = [];
  private head = 0;
  private wake: (() => void) | undefined;
  private stopped = false;
  private initialDone = false;
  private loop: Promise<void> | undefined;
  /** Next time (ms) this listener is due for a resync; Infinity when it never resyncs. */
  nextResync = Infinity;

  constructor(
    readonly handler: ResourceEventHandler<T>,
    readonly resyncPeriodMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  add(n: Notification<T>): void {
    if (this.stopped) return;
    this.buffer.push(n);
    this.wake?.();
  }

  /** True once the listener has delivered every notification of the initial state. */
  get hasSynced(): boolean {
    return this.initialDone;
  }

  start(): void {
    this.loop ??= this.run();
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    return this.loop ?? Promise.resolve();
  }

  get pending(): number {
    return this.buffer.length - this.head;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (this.head >= this.buffer.length) {
        this.buffer = [];
        this.head = 0;
        await new Promise<void>((r) => (this.wake = r));
        this.wake = undefined;
        continue;
      }
      const n = this.buffer[this.head++];
      try {
        switch (n.kind) {
          case "add":
            this.handler.onAdd?.(n.obj, n.initial);
            break;
          case "update":
            this.handler.onUpdate?.(n.oldObj, n.newObj);
            break;
          case "delete":
            this.handler.onDelete?.(n.obj);
            break;
          case "synced":
            this.initialDone = true;
            break;
        }
      } catch (err) {
        this.onError(err);
      }
      // Deliver in small batches, yielding so that producers are never starved.
      if (this.head % 256 === 0) await new Promise<void>((r) => setImmediate(r));
    }
  }
}
