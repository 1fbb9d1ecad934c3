/**
 * SortedKeys: a set of strings in sorted order (code-unit order, as `<` compares), for the
 * storage's key index. Kept as a list of sorted chunks of at most `chunkSize` keys, so that an
 * insertion or removal moves at most one chunk's worth of entries instead of shifting the whole
 * key space (one flat sorted array made every create cost O(number of keys)).
 *
 * Invariants: no chunk is empty; each chunk is sorted and holds at most `chunkSize` keys; every
 * key of chunk i sorts before every key of chunk i + 1; `count` is the total number of keys.
 */
export class SortedKeys {
  private chunks: string[][] = [];
  private count = 0;

  constructor(private readonly chunkSize = 512) {
    if (chunkSize < 2) throw new Error("SortedKeys: chunkSize must be at least 2");
  }

  get size(): number {
    return this.count;
  }

  /** The index of the first chunk whose last key is ≥ `key` (chunks.length when there is none). */
  private chunkIndex(key: string): number {
    const chunks = this.chunks;
    let lo = 0;
    let hi = chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = chunks[mid];
      if (c[c.length - 1] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  has(key: string): boolean {
    const c = this.chunks[this.chunkIndex(key)];
    return c !== undefined && c[lowerBound(c, key)] === key;
  }

  /** Adds `key`; false when it was already present. */
  insert(key: string): boolean {
    const chunks = this.chunks;
    if (chunks.length === 0) {
      chunks.push([key]);
      this.count = 1;
      return true;
    }
    // Past every key: it goes at the end of the last chunk.
    const ci = Math.min(this.chunkIndex(key), chunks.length - 1);
    const c = chunks[ci];
    const i = lowerBound(c, key);
    if (c[i] === key) return false;
    c.splice(i, 0, key);
    this.count++;
    if (c.length > this.chunkSize) chunks.splice(ci + 1, 0, c.splice(c.length >>> 1));
    return true;
  }

  /** Removes `key`; false when it was absent. */
  delete(key: string): boolean {
    const ci = this.chunkIndex(key);
    const c = this.chunks[ci];
    if (c === undefined) return false;
    const i = lowerBound(c, key);
    if (c[i] !== key) return false;
    c.splice(i, 1);
    this.count--;
    if (c.length === 0) this.chunks.splice(ci, 1);
    return true;
  }

  /** The keys ≥ `start`, in order. The set must not change while the iteration runs. */
  *from(start: string): IterableIterator<string> {
    const chunks = this.chunks;
    let ci = this.chunkIndex(start);
    if (ci >= chunks.length) return;
    let i = lowerBound(chunks[ci], start);
    for (; ci < chunks.length; ci++, i = 0) {
      const c = chunks[ci];
      for (; i < c.length; i++) yield c[i];
    }
  }

  [Symbol.iterator](): IterableIterator<string> {
    return this.from("");
  }
}

/** The index of the first element ≥ x in a sorted array (arr.length when there is none). */
function lowerBound(arr: readonly string[], x: string): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
