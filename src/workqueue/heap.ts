/**
 * A binary min-heap of entries ordered by `readyAt`, ties broken by `seq` (insertion order), with
 * each entry's position kept in `index` so that an entry's key can be lowered in place (the
 * delaying queue's waitForPriorityQueue with container/heap's Fix).
 *
 * Invariants: `items[i].index === i` for every entry in the heap and -1 for entries removed from
 * it; for every i > 0, `less(items[parent(i)], items[i])` or they compare equal.
 */
export interface HeapEntry {
  readyAt: number;
  seq: number;
  index: number;
}

function less(a: HeapEntry, b: HeapEntry): boolean {
  return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
}

export class MinHeap<E extends HeapEntry> {
  private readonly items: E[] = [];

  get length(): number {
    return this.items.length;
  }

  peek(): E | undefined {
    return this.items[0];
  }

  push(e: E): void {
    e.index = this.items.length;
    this.items.push(e);
    this.up(e.index);
  }

  pop(): E | undefined {
    const n = this.items.length;
    if (n === 0) return undefined;
    const top = this.items[0];
    const last = this.items.pop()!;
    if (n > 1) {
      this.items[0] = last;
      last.index = 0;
      this.down(0);
    }
    top.index = -1;
    return top;
  }

  /** Restores order after the entry at `index` changed its `readyAt`. */
  fix(index: number): void {
    if (!this.down(index)) this.up(index);
  }

  clear(): void {
    for (const e of this.items) e.index = -1;
    this.items.length = 0;
  }

  private up(i: number): void {
    const items = this.items;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(items[i], items[p])) break;
      this.swap(i, p);
      i = p;
    }
  }

  /** Sifts down; true when the entry moved. */
  private down(i0: number): boolean {
    const items = this.items;
    const n = items.length;
    let i = i0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let m = l;
      const r = l + 1;
      if (r < n && less(items[r], items[l])) m = r;
      if (!less(items[m], items[i])) break;
      this.swap(i, m);
      i = m;
    }
    return i > i0;
  }

  private swap(i: number, j: number): void {
    const items = this.items;
    const a = items[i];
    items[i] = items[j];
    items[j] = a;
    items[i].index = i;
    items[j].index = j;
  }
}
