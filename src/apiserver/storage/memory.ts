/**
 * MemoryStorage: the in-memory MVCC store (kine's log shape, held in memory).
 *
 * State and invariants:
 * - `rev` is the global revision; every create, update and delete consumes exactly one, so the
 *   event log is contiguous: `log[head + i].rev === firstLogRev + i`.
 * - `history` maps each key to its retained versions, oldest first, newest last; a version with
 *   `object === null` is a deletion (tombstone). Of the versions at or below `compacted` only
 *   the newest live one of a key is readable (reads at revisions ≥ compacted need it); the older
 *   ones are dropped in batches — once there are 64 of them, or they are half of the key's
 *   versions — so that a key written on every revision does not have its whole version list
 *   shifted by every compaction. A key whose versions are all at or below `compacted` and whose
 *   newest is a tombstone is removed at once.
 * - `keys` holds exactly the keys of `history`, sorted (list order = key order); a chunked
 *   sorted set (sortedkeys.ts), so adding a key does not shift every other key.
 * - The log keeps the events with revision in (compacted, rev]; when it grows beyond
 *   `historySize` the oldest events are compacted away, which also trims `history`, so memory is
 *   bounded by live objects + `historySize` versions (+ fewer than 64 unreadable ones per key).
 * - The log is bounded by time as well, like kube-apiserver's watch cache (its event fresh
 *   duration, 75 s): events older than `historyWindowMs` are compacted away — on the next write,
 *   or by a timer when no write comes (so the memory of a burst is given back once it has
 *   passed) — except the newest `minRetainedEvents`, which stay whatever their age (upstream's
 *   lower bound of 100 events). Each event records the clock's time of its write.
 * - Watchers do not copy events: each holds a cursor into the shared log and reads from it.
 *   `pending` counts events for its prefix delivered to the log but not yet read; a watcher
 *   with more than `maxLag` pending events, or whose unread events are compacted away, is closed
 *   ("too-slow") and its client is expected to re-watch or relist.
 */
import type { KubeObject } from "../../apimachinery/types.js";
import { realClock, type Clock, type Timer } from "../../apimachinery/clock.js";
import { deepCopy, deepFreeze, semanticEqual } from "../../apimachinery/deepcopy.js";
import { CompactedError, KeyExistsError, KeyNotFoundError, RevisionMismatchError } from "./errors.js";
import type {
  ListRequest,
  ListResult,
  Storage,
  StorageEvent,
  StorageEventType,
  StorageWatch,
  StoredObject,
  WatchEndReason,
  WatchRequest,
} from "./interface.js";
import { SortedKeys } from "./sortedkeys.js";

export interface MemoryStorageOptions {
  /** Events retained for watch resume and Exact reads (default 10 000). */
  historySize?: number;
  /** Default per-watcher limit of unread events before the watcher is closed (default 1000). */
  maxWatchLag?: number;
  /** The revision of the empty store (default 1, as etcd); the first write gets the next one. */
  initialRevision?: number;
  /** Events older than this are compacted away (default 75 s, the watch cache's fresh duration); 0: no time bound. */
  historyWindowMs?: number;
  /** The time source of the history window (default: the real clock). */
  clock?: Clock;
}

/** The default of `historyWindowMs`: kube-apiserver's DefaultEventFreshDuration (bookmark frequency + 15 s). */
export const defaultHistoryWindowMs = 75_000;
/** Events kept whatever their age (kube-apiserver's watch cache never shrinks below 100 events). */
export const minRetainedEvents = 100;

/** Called synchronously with every write's event, after watchers were told (see `subscribe`). */
export type StorageListener = (ev: StorageEvent) => void;

interface Version {
  rev: number;
  object: KubeObject | null;
}

class Event implements StorageEvent {
  private cache: Map<string, Buffer> | undefined;
  constructor(
    readonly type: StorageEventType,
    readonly key: string,
    readonly rev: number,
    readonly object: KubeObject,
    readonly prevObject: KubeObject | undefined,
    /** The clock's time of the write (for the history window). */
    readonly time: number,
  ) {}

  encoded(format: string, build: () => Buffer): Buffer {
    let b = this.cache?.get(format);
    if (b === undefined) {
      b = build();
      (this.cache ??= new Map()).set(format, b);
    }
    return b;
  }
}

function withRevision(obj: KubeObject, rev: number): KubeObject {
  const copy = deepCopy(obj);
  const meta = copy.metadata;
  // The copy's metadata is already fresh: set the field in place (same key order as a spread).
  if (meta && typeof meta === "object" && !Array.isArray(meta)) meta.resourceVersion = String(rev);
  else copy.metadata = { ...(meta ?? {}), resourceVersion: String(rev) };
  return copy;
}

/** Unreadable old versions of a key are dropped once there are this many (or half of its versions). */
const trimBatch = 64;

export class MemoryStorage implements Storage {
  private rev: number;
  private compacted: number;
  private readonly history = new Map<string, Version[]>();
  private readonly keys = new SortedKeys();
  private log: Event[] = [];
  private head = 0;
  private readonly historySize: number;
  private readonly maxWatchLag: number;
  private readonly watchers = new Set<MemoryWatch>();
  private readonly listeners = new Set<StorageListener>();
  private readonly historyWindowMs: number;
  private readonly clock: Clock;
  /** Fires when the oldest retained event leaves the history window (set only while one can). */
  private expiry: Timer | undefined;
  private closed = false;

  constructor(opts: MemoryStorageOptions = {}) {
    this.rev = opts.initialRevision ?? 1;
    this.compacted = this.rev;
    this.historySize = Math.max(1, opts.historySize ?? 10_000);
    this.maxWatchLag = Math.max(1, opts.maxWatchLag ?? 1000);
    this.historyWindowMs = Math.max(0, opts.historyWindowMs ?? defaultHistoryWindowMs);
    this.clock = opts.clock ?? realClock;
  }

  /**
   * Registers `fn` to be called synchronously with the event of every write (after the
   * watchers were notified); returns the function that unregisters it. Listeners must be cheap
   * and must not write to the store (metrics, counters).
   */
  subscribe(fn: StorageListener): () => void {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }

  currentRevision(): number {
    return this.rev;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  /** Number of events currently retained (for tests and metrics). */
  retainedEvents(): number {
    return this.log.length - this.head;
  }

  /** Number of open watchers (for tests and metrics). */
  watcherCount(): number {
    return this.watchers.size;
  }

  async get(key: string): Promise<StoredObject | undefined> {
    return this.getSync(key);
  }

  getSync(key: string): StoredObject | undefined {
    const vs = this.history.get(key);
    const last = vs?.[vs.length - 1];
    if (!last || last.object === null) return undefined;
    return { key, rev: last.rev, object: last.object };
  }

  private stateAt(key: string, rev: number): Version | undefined {
    const vs = this.history.get(key);
    if (!vs) return undefined;
    for (let i = vs.length - 1; i >= 0; i--) {
      if (vs[i].rev <= rev) return vs[i].object === null ? undefined : vs[i];
    }
    return undefined;
  }

  async list(prefix: string, req: ListRequest = {}): Promise<ListResult> {
    return this.listSync(prefix, req);
  }

  listSync(prefix: string, req: ListRequest = {}): ListResult {
    const at = req.revision ?? this.rev;
    if (at < this.compacted) throw new CompactedError(at, this.compacted, this.compacted + 1);
    const start = req.startKey !== undefined && req.startKey > prefix ? req.startKey : prefix;
    const limit = req.limit && req.limit > 0 ? req.limit : Infinity;
    const items: StoredObject[] = [];
    // `cur` is the key under consideration; after the first loop, the first one not taken.
    const keys = this.keys.from(start);
    let cur = keys.next();
    for (; !cur.done; cur = keys.next()) {
      const key = cur.value;
      if (!key.startsWith(prefix)) break;
      if (items.length >= limit) break;
      const v = this.stateAt(key, at);
      if (!v || v.object === null) continue;
      if (req.predicate && !req.predicate(v.object)) continue;
      items.push({ key, rev: v.rev, object: v.object });
    }
    const result: ListResult = { items, revision: at };
    if (items.length >= limit && !req.predicate) {
      // A page continuing the previous one (same prefix and revision, starting right after its
      // last key): its remaining count follows from the previous page's, without a rescan.
      const before = req.startKey !== undefined ? this.takeRemaining(prefix, at, req.startKey) : undefined;
      if (before !== undefined) {
        const remaining = before - items.length;
        if (remaining > 0) {
          result.nextKey = items[items.length - 1].key + "\x00";
          result.remainingItemCount = remaining;
          this.keepRemaining(prefix, at, result.nextKey, remaining);
        }
        return result;
      }
    }
    if (items.length >= limit) {
      // More to come only if some later key under the prefix is live at `at`.
      let remaining = 0;
      for (; !cur.done; cur = keys.next()) {
        const key = cur.value;
        if (!key.startsWith(prefix)) break;
        if (this.stateAt(key, at)) {
          remaining++;
          if (req.predicate) break;
        }
      }
      if (remaining > 0) {
        result.nextKey = items[items.length - 1].key + "\x00";
        if (!req.predicate) {
          result.remainingItemCount = remaining;
          this.keepRemaining(prefix, at, result.nextKey, remaining);
        }
      }
    }
    return result;
  }

  /**
   * Remaining counts of recent pages, by prefix, revision and continue key, so that paging
   * through N keys costs O(N) rather than a rescan of everything left on every page (a
   * revision's state never changes, so a count stays right while that revision is readable).
   * Bounded: the oldest entries go first. A page whose start is not in it is counted by a scan.
   */
  private readonly remainingCounts = new Map<string, number>();

  private keepRemaining(prefix: string, rev: number, nextKey: string, remaining: number): void {
    const m = this.remainingCounts;
    if (m.size >= 1024) m.delete(m.keys().next().value as string);
    m.set(`${rev}\x00${prefix}\x00${nextKey}`, remaining);
  }

  private takeRemaining(prefix: string, rev: number, startKey: string): number | undefined {
    return this.remainingCounts.get(`${rev}\x00${prefix}\x00${startKey}`);
  }

  async create(key: string, obj: KubeObject): Promise<StoredObject> {
    this.assertOpen();
    if (this.getSync(key)) throw new KeyExistsError(key);
    const rev = this.rev + 1;
    const object = deepFreeze(withRevision(obj, rev));
    this.append(key, { rev, object }, new Event("ADDED", key, rev, object, undefined, this.clock.now()));
    return { key, rev, object };
  }

  async update(key: string, obj: KubeObject, expectedRev?: number): Promise<StoredObject> {
    this.assertOpen();
    const cur = this.getSync(key);
    if (!cur) throw new KeyNotFoundError(key);
    if (expectedRev !== undefined && expectedRev !== cur.rev) throw new RevisionMismatchError(key, expectedRev, cur.rev);
    const same = withRevision(obj, cur.rev);
    if (semanticEqual(same, cur.object)) return cur;
    const rev = this.rev + 1;
    same.metadata!.resourceVersion = String(rev);
    const object = deepFreeze(same);
    this.append(key, { rev, object }, new Event("MODIFIED", key, rev, object, cur.object, this.clock.now()));
    return { key, rev, object };
  }

  async delete(key: string, expectedRev?: number): Promise<StoredObject> {
    this.assertOpen();
    const cur = this.getSync(key);
    if (!cur) throw new KeyNotFoundError(key);
    if (expectedRev !== undefined && expectedRev !== cur.rev) throw new RevisionMismatchError(key, expectedRev, cur.rev);
    const rev = this.rev + 1;
    const object = deepFreeze(withRevision(cur.object, rev));
    this.append(key, { rev, object: null }, new Event("DELETED", key, rev, object, cur.object, this.clock.now()));
    return { key, rev, object };
  }

  private append(key: string, version: Version, ev: Event): void {
    let vs = this.history.get(key);
    if (!vs) {
      vs = [];
      this.history.set(key, vs);
      this.keys.insert(key);
    }
    vs.push(version);
    this.rev = version.rev;
    this.log.push(ev);
    for (const w of this.watchers) w.notify(ev);
    for (const l of this.listeners) l(ev);
    const retained = this.log.length - this.head;
    if (retained > this.historySize) this.compact(this.rev - this.historySize);
    // The write's own time is the clock reading it was stamped with a moment ago (no second read).
    if (this.historyWindowMs > 0 && retained > minRetainedEvents) this.expire(ev.time);
  }

  /**
   * Compacts the events older than the history window (keeping the newest minRetainedEvents),
   * and arms the timer for the next one to leave it.
   */
  private expire(now = this.clock.now()): void {
    if (this.historyWindowMs <= 0 || this.closed) return;
    const cutoff = now - this.historyWindowMs;
    const keepFrom = this.log.length - minRetainedEvents;
    let i = this.head;
    while (i < keepFrom && this.log[i].time <= cutoff) i++;
    if (i > this.head) this.compact(this.log[i - 1].rev);
    if (this.expiry || this.log.length - this.head <= minRetainedEvents) return;
    const oldest = this.log[this.head].time;
    // At most one expiry a second (or per window, if shorter): under a steady stream of writes
    // each write expires what has aged out, and the timer only matters once writes stop.
    const delay = Math.max(oldest + this.historyWindowMs - now + 1, Math.min(1000, this.historyWindowMs));
    this.expiry = this.clock.setTimer(delay, () => {
      this.expiry = undefined;
      this.expire();
    });
  }

  // ---- persistence hooks (used by SqliteStorage, which validates and commits writes itself) ----

  /**
   * Appends a write that a persistent backend has already validated and made durable: `rev`
   * must be the next revision, `object` is frozen and carries resourceVersion = rev (null = the
   * key is deleted). Emits the event to watchers like any write. Returns what the write returns
   * (for a deletion: the last state stamped with the deletion revision).
   */
  applyCommitted(key: string, rev: number, object: KubeObject | null): StoredObject {
    this.assertOpen();
    if (rev !== this.rev + 1) throw new Error(`applyCommitted: revision ${rev} does not follow ${this.rev}`);
    const prev = this.getSync(key);
    if (object === null) {
      if (!prev) throw new KeyNotFoundError(key);
      const gone = deepFreeze(withRevision(prev.object, rev));
      this.append(key, { rev, object: null }, new Event("DELETED", key, rev, gone, prev.object, this.clock.now()));
      return { key, rev, object: gone };
    }
    this.append(key, { rev, object }, new Event(prev ? "MODIFIED" : "ADDED", key, rev, object, prev?.object, this.clock.now()));
    return { key, rev, object };
  }

  /**
   * Seeds an empty store with persisted state. `records` are in revision order: first the base
   * versions (rev ≤ compacted; the newest live version of each key at the floor), then one
   * record per revision in (compacted, revision] — the retained log, replayed as events so that
   * watches resume from any retained revision. Objects are frozen, resourceVersion = rev.
   */
  restore(compacted: number, revision: number, records: Iterable<{ key: string; rev: number; object: KubeObject | null }>): void {
    if (this.history.size > 0 || this.log.length > 0) throw new Error("restore: the store is not empty");
    this.rev = compacted;
    this.compacted = compacted;
    const newKeys: string[] = [];
    // Restored events count as written now: the window starts at the restart.
    const now = this.clock.now();
    for (const r of records) {
      if (r.rev <= compacted) {
        if (r.object === null) continue;
        let vs = this.history.get(r.key);
        if (!vs) {
          this.history.set(r.key, (vs = []));
          newKeys.push(r.key);
        }
        vs.push({ rev: r.rev, object: r.object });
        continue;
      }
      if (r.rev !== this.rev + 1) throw new Error(`restore: revision ${r.rev} does not follow ${this.rev}`);
      const vs = this.history.get(r.key);
      const last = vs?.[vs.length - 1];
      const prev = last && last.object !== null ? last.object : undefined;
      let ev: Event;
      if (r.object === null) {
        if (!prev) throw new Error(`restore: deletion of absent key ${r.key} at ${r.rev}`);
        ev = new Event("DELETED", r.key, r.rev, deepFreeze(withRevision(prev, r.rev)), prev, now);
      } else {
        ev = new Event(prev ? "MODIFIED" : "ADDED", r.key, r.rev, r.object, prev, now);
      }
      if (vs) vs.push({ rev: r.rev, object: r.object });
      else {
        this.history.set(r.key, [{ rev: r.rev, object: r.object }]);
        newKeys.push(r.key);
      }
      this.log.push(ev);
      this.rev = r.rev;
    }
    if (revision < this.rev) throw new Error(`restore: revision ${revision} is older than the log (${this.rev})`);
    if (revision > this.rev && this.log.length > 0) throw new Error(`restore: the log ends at ${this.rev}, not ${revision}`);
    this.rev = revision;
    if (revision > this.compacted && this.log.length === 0) this.compacted = revision;
    newKeys.sort();
    for (const k of newKeys) this.keys.insert(k);
    if (this.log.length > this.historySize) this.compact(this.rev - this.historySize);
    this.expire();
  }

  compact(target: number): void {
    const floor = Math.min(target, this.rev);
    if (floor <= this.compacted) return;
    const firstLogRev = this.compacted + 1;
    const dropCount = floor - this.compacted;
    const dropped = this.log.slice(this.head, this.head + dropCount);
    for (const w of this.watchers) w.compactedTo(floor, dropped, firstLogRev);
    this.head += dropCount;
    this.compacted = floor;
    if (this.head > 1024 && this.head * 2 > this.log.length) {
      this.log = this.log.slice(this.head);
      this.head = 0;
    }
    const touched = new Set<string>();
    for (const e of dropped) touched.add(e.key);
    for (const key of touched) this.trimKey(key, floor);
  }

  private trimKey(key: string, floor: number): void {
    const vs = this.history.get(key);
    if (!vs) return;
    // Versions are in revision order and the floor is near the oldest: scan from the front (a
    // key written on every revision holds thousands of versions; compaction runs per write).
    let base = -1;
    while (base + 1 < vs.length && vs[base + 1].rev <= floor) base++;
    if (base < 0) return;
    // Keep the newest version at or below the floor unless it is a tombstone.
    const cut = vs[base].object === null ? base + 1 : base;
    if (cut < vs.length) {
      // Unreadable versions are dropped in batches (see the invariants above).
      if (cut >= trimBatch || cut * 2 >= vs.length) vs.splice(0, cut);
      return;
    }
    // Everything up to a final tombstone is gone: so is the key.
    this.history.delete(key);
    this.keys.delete(key);
  }

  /** The retained event with this revision (must be in (compacted, rev]). */
  eventAt(rev: number): Event {
    return this.log[this.head + (rev - this.compacted - 1)];
  }

  watch(prefix: string, req: WatchRequest): StorageWatch {
    this.assertOpen();
    if (req.fromRevision < this.compacted) {
      throw new CompactedError(req.fromRevision, this.compacted, this.compacted + 1);
    }
    const w = new MemoryWatch(this, prefix, Math.min(req.fromRevision, this.rev), req.maxLag ?? this.maxWatchLag);
    this.watchers.add(w);
    if (req.signal) {
      if (req.signal.aborted) w.end("aborted");
      else req.signal.addEventListener("abort", () => w.end("aborted"), { once: true });
    }
    return w;
  }

  /** @internal */
  removeWatcher(w: MemoryWatch): void {
    this.watchers.delete(w);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.expiry?.cancel();
    this.expiry = undefined;
    for (const w of [...this.watchers]) w.end("store-stopped");
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("storage is closed");
  }
}

class MemoryWatch implements StorageWatch, AsyncIterator<StorageEvent> {
  private cursor: number;
  private pending = 0;
  private waiter: ((r: IteratorResult<StorageEvent>) => void) | undefined;
  endReason: WatchEndReason | undefined;

  constructor(
    private readonly store: MemoryStorage,
    private readonly prefix: string,
    fromRevision: number,
    private readonly maxLag: number,
  ) {
    this.cursor = fromRevision;
  }

  [Symbol.asyncIterator](): AsyncIterator<StorageEvent> {
    return this;
  }

  /** Called by the store after every append. */
  notify(ev: Event): void {
    if (this.endReason) return;
    if (this.waiter) {
      const w = this.waiter;
      const next = this.take();
      if (next) {
        this.waiter = undefined;
        w({ value: next, done: false });
      }
      return;
    }
    if (ev.key.startsWith(this.prefix)) {
      this.pending++;
      if (this.pending > this.maxLag) this.end("too-slow");
    }
  }

  /** Called before the store drops events (compacted, floor]; `dropped[0].rev === firstRev`. */
  compactedTo(floor: number, dropped: readonly Event[], firstRev: number): void {
    if (this.endReason || this.cursor >= floor) return;
    for (let r = this.cursor + 1; r <= floor; r++) {
      const e = dropped[r - firstRev];
      if (e && e.key.startsWith(this.prefix)) {
        this.end("too-slow");
        return;
      }
    }
    this.cursor = floor;
  }

  /** The next matching retained event after the cursor, advancing the cursor; undefined at the head. */
  private take(): StorageEvent | undefined {
    const head = this.store.currentRevision();
    while (this.cursor < head) {
      this.cursor++;
      const e = this.store.eventAt(this.cursor);
      if (e.key.startsWith(this.prefix)) {
        if (this.pending > 0) this.pending--;
        return e;
      }
    }
    return undefined;
  }

  next(): Promise<IteratorResult<StorageEvent>> {
    if (this.endReason) return Promise.resolve({ value: undefined, done: true });
    const e = this.take();
    if (e) return Promise.resolve({ value: e, done: false });
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  return(): Promise<IteratorResult<StorageEvent>> {
    this.end("closed");
    return Promise.resolve({ value: undefined, done: true });
  }

  close(): void {
    this.end("closed");
  }

  end(reason: WatchEndReason): void {
    if (this.endReason) return;
    this.endReason = reason;
    this.store.removeWatcher(this);
    const w = this.waiter;
    this.waiter = undefined;
    w?.({ value: undefined, done: true });
  }
}
