/**
 * Controller expectations (kubernetes pkg/controller/controller_utils.go): a controller that
 * creates or deletes N objects records that it expects to observe N creations/deletions through
 * its informers, and skips syncing the owner until they were observed (or 5 minutes passed), so
 * it never acts twice on a stale cache.
 *
 * Keys are owner keys ("ns/name"). Time comes from the injected Clock.
 */
import { realClock } from "../apimachinery/clock.js";
import type { Clock } from "../apimachinery/clock.js";

/** How long expectations are waited for before a sync goes ahead anyway (ExpectationsTimeout). */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60 * 1000;

/** A snapshot of one owner's expectations: outstanding adds and deletes, and when they were set. */
export interface Expectations {
  add: number;
  del: number;
  timestamp: number;
}

/**
 * Invariant: `store` holds, per owner key, the adds and deletes still expected since the last
 * set (counts may go below zero when more were observed than expected; ≤ 0 means fulfilled), and
 * the clock time at which they were set. Raising/lowering never changes the timestamp.
 */
export class ControllerExpectations {
  protected readonly clock: Clock;
  private readonly store = new Map<string, Expectations>();

  constructor(clock: Clock = realClock) {
    this.clock = clock;
  }

  /** A copy of the expectations of `key`, if any were set. */
  getExpectations(key: string): Expectations | undefined {
    const e = this.store.get(key);
    return e ? { ...e } : undefined;
  }

  /**
   * true when the owner may sync: no expectations recorded (new owner, or deleted ones), all
   * fulfilled, or set more than EXPECTATIONS_TIMEOUT_MS ago.
   */
  satisfiedExpectations(key: string): boolean {
    const e = this.store.get(key);
    if (!e) return true;
    return fulfilled(e) || this.isExpired(e);
  }

  /** Replaces the expectations of `key` (SetExpectations). */
  setExpectations(key: string, add: number, del: number): void {
    this.store.set(key, { add, del, timestamp: this.clock.now() });
  }

  expectCreations(key: string, adds: number): void {
    this.setExpectations(key, adds, 0);
  }

  expectDeletions(key: string, dels: number): void {
    this.setExpectations(key, 0, dels);
  }

  /** Adds to the outstanding counts; nothing when none were set. */
  raiseExpectations(key: string, add: number, del: number): void {
    const e = this.store.get(key);
    if (!e) return;
    e.add += add;
    e.del += del;
  }

  /** Subtracts from the outstanding counts; nothing when none were set. */
  lowerExpectations(key: string, add: number, del: number): void {
    const e = this.store.get(key);
    if (!e) return;
    e.add -= add;
    e.del -= del;
  }

  /** One expected creation was observed (or a create failed, so it will never be). */
  creationObserved(key: string): void {
    this.lowerExpectations(key, 1, 0);
  }

  /** One expected deletion was observed (or a delete failed, so it will never be). */
  deletionObserved(key: string): void {
    this.lowerExpectations(key, 0, 1);
  }

  /** Forgets `key` (the owner was deleted). */
  deleteExpectations(key: string): void {
    this.store.delete(key);
  }

  protected isExpired(e: Expectations): boolean {
    return this.clock.now() - e.timestamp > EXPECTATIONS_TIMEOUT_MS;
  }
}

function fulfilled(e: Expectations): boolean {
  return e.add <= 0 && e.del <= 0;
}

/**
 * Expectations that also track which objects (by key, "ns/name") are expected to be deleted, so
 * a deletion is counted once even when observed twice (a delete event and a tombstone), and only
 * for objects this owner deleted (UIDTrackingControllerExpectations).
 *
 * Invariant: for every key in `uids`, the set holds the object keys still expected to be deleted;
 * each removal from it lowers the delete count by exactly one.
 */
export class UIDTrackingControllerExpectations extends ControllerExpectations {
  private readonly uids = new Map<string, Set<string>>();

  /** The object keys whose deletion `key` still waits for (GetUIDs); the live set, do not mutate. */
  getSet(key: string): Set<string> | undefined {
    return this.uids.get(key);
  }

  /** Alias of getSet under upstream's name. */
  getUIDs(key: string): Set<string> | undefined {
    return this.getSet(key);
  }

  /**
   * With object keys: expects the deletion of exactly those objects (replacing any earlier set).
   * With a number: the plain count, as ControllerExpectations.
   */
  override expectDeletions(key: string, deletedKeys: string[]): void;
  override expectDeletions(key: string, dels: number): void;
  override expectDeletions(key: string, deleted: string[] | number): void {
    if (typeof deleted === "number") {
      super.expectDeletions(key, deleted);
      return;
    }
    const set = new Set(deleted);
    this.uids.set(key, set);
    super.expectDeletions(key, set.size);
  }

  /**
   * Records that `deleteKey` was deleted: lowers the delete count only if that object was
   * expected and not yet observed. Without `deleteKey`, lowers the count as the base class does.
   */
  override deletionObserved(key: string, deleteKey?: string): void {
    if (deleteKey === undefined) {
      super.deletionObserved(key);
      return;
    }
    const set = this.uids.get(key);
    if (set?.has(deleteKey)) {
      super.deletionObserved(key);
      set.delete(deleteKey);
    }
  }

  override deleteExpectations(key: string): void {
    super.deleteExpectations(key);
    this.uids.delete(key);
  }
}
