/**
 * Finalizer expectations of the Job controller (uidTrackingExpectations in tracking_utils.go): per
 * Job key, the UIDs of pods whose tracking-finalizer removal was issued and not yet observed.
 * While a UID is expected, the pod is treated as counted (so a stale cache never counts it twice).
 */
export class FinalizerExpectations {
  private readonly store = new Map<string, Set<string>>();

  /** A copy of the UIDs expected for `key`. */
  getExpectedUIDs(key: string): Set<string> {
    return new Set(this.store.get(key) ?? []);
  }

  expectFinalizersRemoved(key: string, uids: readonly string[]): void {
    let set = this.store.get(key);
    if (!set) this.store.set(key, (set = new Set()));
    for (const u of uids) set.add(u);
  }

  finalizerRemovalObserved(key: string, uid: string): void {
    const set = this.store.get(key);
    if (!set) return;
    set.delete(uid);
    if (set.size === 0) this.store.delete(key);
  }

  deleteExpectations(key: string): void {
    this.store.delete(key);
  }
}
