/**
 * The storage contract of the embedded API server: a revisioned key-value store with etcd's
 * semantics (one global revision, compare-and-swap writes, reads at a past revision, watches
 * from a revision) in the shape kine gives it.
 *
 * Every object is stored under a key `/registry/<group|core>/<resource>/[<namespace>/]<name>`;
 * lists and watches select a key prefix, and list order is key order.
 *
 * Async-friendliness: reads and writes return Promises so that a persistent backend (SQLite)
 * can implement the same interface without touching the handlers. Revision queries
 * (`currentRevision`, `compactedRevision`) are synchronous: both backends keep them in memory.
 * Watches are async iterables of `StorageEvent`s.
 *
 * Objects handed out (in `StoredObject` and events) are deep-frozen: callers copy before changing.
 */
import type { KubeObject } from "../../apimachinery/types.js";

export interface StoredObject {
  readonly key: string;
  /** The revision of the write that produced this state (= metadata.resourceVersion). */
  readonly rev: number;
  /** Frozen; metadata.resourceVersion is String(rev). */
  readonly object: KubeObject;
}

export type StorageEventType = "ADDED" | "MODIFIED" | "DELETED";

/**
 * One write, as watchers see it. `object` is the new state (for DELETED: the last state with
 * resourceVersion set to the deletion revision); `prevObject` the state before (MODIFIED, DELETED).
 * `encoded` memoises serialisations so that a frame is built once per format and shared by every
 * watcher that wants that format.
 */
export interface StorageEvent {
  readonly type: StorageEventType;
  readonly key: string;
  readonly rev: number;
  readonly object: KubeObject;
  readonly prevObject?: KubeObject;
  encoded(format: string, build: () => Buffer): Buffer;
}

export interface ListRequest {
  /** Read the state at exactly this revision (must be ≥ the compacted revision); default latest. */
  revision?: number;
  /** Start at this key (inclusive); must lie inside the prefix. */
  startKey?: string;
  /** At most this many matching items (0 or absent: all). */
  limit?: number;
  /** Only items for which this returns true count and are returned. */
  predicate?: (obj: KubeObject) => boolean;
}

export interface ListResult {
  items: StoredObject[];
  /** The revision the list reflects. */
  revision: number;
  /** When the limit cut the list short: the key to continue from. */
  nextKey?: string;
  /** Items after this page (only when no predicate was given). */
  remainingItemCount?: number;
}

export interface WatchRequest {
  /** Deliver every event with a revision greater than this one. */
  fromRevision: number;
  /** Close the watch when it falls this many events behind the head (default: the store's setting). */
  maxLag?: number;
  signal?: AbortSignal;
}

/** Why a watch stream ended. */
export type WatchEndReason = "closed" | "aborted" | "too-slow" | "compacted" | "store-stopped";

export interface StorageWatch extends AsyncIterable<StorageEvent> {
  /** Stops the stream; a pending `next()` resolves done. Idempotent. */
  close(): void;
  /** Why the stream ended (undefined while open). */
  readonly endReason: WatchEndReason | undefined;
}

export interface Storage {
  currentRevision(): number;
  /** Revisions at or below this one are no longer readable or watchable. */
  compactedRevision(): number;

  get(key: string): Promise<StoredObject | undefined>;
  list(prefix: string, req?: ListRequest): Promise<ListResult>;
  /** Throws KeyExistsError. The object's metadata.resourceVersion is set by the store. */
  create(key: string, obj: KubeObject): Promise<StoredObject>;
  /**
   * Replaces the current state; `expectedRev` makes it a compare-and-swap (RevisionMismatchError).
   * A write whose result equals the current state (ignoring resourceVersion) consumes no revision,
   * emits no event and returns the current state.
   */
  update(key: string, obj: KubeObject, expectedRev?: number): Promise<StoredObject>;
  /** Removes the key; returns the last state with the deletion revision. */
  delete(key: string, expectedRev?: number): Promise<StoredObject>;
  /** Throws CompactedError when fromRevision is older than the retained history. */
  watch(prefix: string, req: WatchRequest): StorageWatch;
  /** Drops history at or below `rev` (bounded by the current revision). */
  compact(rev: number): void;
  /**
   * Optional: calls `fn` synchronously with the event of every committed write, in revision
   * order; returns the function that unregisters it. For cheap observers (metrics) that must see
   * every write without the lag limit of a watch; `fn` must not write to the store.
   */
  subscribe?(fn: (ev: StorageEvent) => void): () => void;
  close(): Promise<void>;
}
