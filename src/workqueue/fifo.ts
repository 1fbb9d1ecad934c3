/**
 * Fifo: a growable ring buffer, the ordered storage behind the work queue (client-go's
 * DefaultQueue is a slice; a ring avoids both O(n) shifts and unbounded slack).
 *
 * Invariants: `buf.length` is a power of two; the live elements are `buf[(head + i) & mask]` for
 * 0 ≤ i < size; every other slot holds `undefined`, so popped items can be garbage-collected.
 */
export class Fifo<T> {
  private buf: Array<T | undefined>;
  private mask: number;
  private head = 0;
  private size = 0;

  constructor(initialCapacity = 16) {
    let cap = 4;
    while (cap < initialCapacity) cap *= 2;
    this.buf = new Array<T | undefined>(cap);
    this.mask = cap - 1;
  }

  get length(): number {
    return this.size;
  }

  push(item: T): void {
    if (this.size === this.buf.length) this.grow();
    this.buf[(this.head + this.size) & this.mask] = item;
    this.size++;
  }

  /** Removes and returns the oldest element; undefined when empty. */
  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.buf[this.head];
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    this.size--;
    return item;
  }

  /** The oldest element without removing it. */
  peek(): T | undefined {
    return this.size === 0 ? undefined : this.buf[this.head];
  }

  clear(): void {
    this.buf.fill(undefined);
    this.head = 0;
    this.size = 0;
  }

  /** Elements oldest first (a copy). */
  toArray(): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.size; i++) out.push(this.buf[(this.head + i) & this.mask] as T);
    return out;
  }

  private grow(): void {
    const next = new Array<T | undefined>(this.buf.length * 2);
    for (let i = 0; i < this.size; i++) next[i] = this.buf[(this.head + i) & this.mask];
    this.buf = next;
    this.mask = next.length - 1;
    this.head = 0;
  }
}

/**
 * StampedFifo: a Fifo whose elements each carry a number (the work queue's: the time an item was
 * added, for workqueue_queue_duration_seconds), kept in a parallel Float64Array so a stamp costs
 * no allocation.
 *
 * Invariants: those of Fifo, for `items` and `stamps` alike (same capacity, same head and size);
 * `stamps[i]` belongs to `items[i]`.
 */
export class StampedFifo<T> {
  private items: Array<T | undefined>;
  private stamps: Float64Array;
  private mask: number;
  private head = 0;
  private size = 0;
  /** The stamp of the element the last `shift()` returned. */
  shiftedStamp = 0;

  constructor(initialCapacity = 16) {
    let cap = 4;
    while (cap < initialCapacity) cap *= 2;
    this.items = new Array<T | undefined>(cap);
    this.stamps = new Float64Array(cap);
    this.mask = cap - 1;
  }

  get length(): number {
    return this.size;
  }

  push(item: T, stamp: number): void {
    if (this.size === this.items.length) this.grow();
    const at = (this.head + this.size) & this.mask;
    this.items[at] = item;
    this.stamps[at] = stamp;
    this.size++;
  }

  /** Removes and returns the oldest element (its stamp in `shiftedStamp`); undefined when empty. */
  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.items[this.head];
    this.shiftedStamp = this.stamps[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    this.size--;
    return item;
  }

  private grow(): void {
    const cap = this.items.length * 2;
    const items = new Array<T | undefined>(cap);
    const stamps = new Float64Array(cap);
    for (let i = 0; i < this.size; i++) {
      const from = (this.head + i) & this.mask;
      items[i] = this.items[from];
      stamps[i] = this.stamps[from];
    }
    this.items = items;
    this.stamps = stamps;
    this.mask = cap - 1;
    this.head = 0;
  }
}
