/**
 * Pod failure back-off of a Job (backoff_utils.go): after failures that came after the last
 * success, new pods wait 10 s doubling up to 10 min from the last failure. One record per Job key,
 * updated only once the status that counted those pods was written.
 */
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { parseTime } from "../../apimachinery/time.js";

export interface BackoffRecord {
  key: string;
  failuresAfterLastSuccess: number;
  lastFailureTime?: number;
}

/** When a pod finished: its containers' latest finishedAt, else Ready turning False, else deletion, else creation. */
export function getFinishedTime(p: Pod): number {
  let latest: number | undefined;
  for (const cs of p.status?.containerStatuses ?? []) {
    const t = parseTime(cs.state?.terminated?.finishedAt);
    if (t !== undefined && (latest === undefined || t > latest)) latest = t;
  }
  if (latest !== undefined) return latest;
  const ready = p.status?.conditions?.find((c) => c.type === "Ready" && c.status === "False");
  const t = parseTime(ready?.lastTransitionTime) ?? parseTime(p.metadata?.deletionTimestamp) ?? parseTime(p.metadata?.creationTimestamp);
  return t ?? 0;
}

function byFinishedTime(pods: readonly Pod[]): Pod[] {
  return [...pods].sort((a, b) => getFinishedTime(a) - getFinishedTime(b));
}

export class BackoffStore {
  private readonly store = new Map<string, BackoffRecord>();

  get(key: string): BackoffRecord | undefined {
    const r = this.store.get(key);
    return r ? { ...r } : undefined;
  }

  update(record: BackoffRecord): void {
    this.store.set(record.key, { ...record });
  }

  remove(key: string): void {
    this.store.delete(key);
  }

  /** The record after the newly finished pods (newBackoffRecord); the store is not changed. */
  newBackoffRecord(key: string, newSucceeded: readonly Pod[], newFailed: readonly Pod[]): BackoffRecord {
    const b: BackoffRecord = this.get(key) ?? { key, failuresAfterLastSuccess: 0 };
    const succeeded = byFinishedTime(newSucceeded);
    const failed = byFinishedTime(newFailed);
    if (succeeded.length === 0) {
      if (failed.length === 0) return b;
      b.failuresAfterLastSuccess += failed.length;
      b.lastFailureTime = getFinishedTime(failed[failed.length - 1]);
      return b;
    }
    b.failuresAfterLastSuccess = 0;
    delete b.lastFailureTime;
    const lastSuccess = getFinishedTime(succeeded[succeeded.length - 1]);
    for (let i = failed.length - 1; i >= 0; i--) {
      const t = getFinishedTime(failed[i]);
      if (t <= lastSuccess) break;
      b.lastFailureTime ??= t;
      b.failuresAfterLastSuccess++;
    }
    return b;
  }
}

/** How long new pods must still wait (getRemainingTimeForFailuresCount). */
export function remainingBackoffMs(nowMs: number, defaultMs: number, maxMs: number, failures: number, lastFailureTime: number | undefined): number {
  if (failures === 0 || lastFailureTime === undefined) return 0;
  let d = defaultMs;
  for (let i = 1; i < failures; i++) {
    d *= 2;
    if (d >= maxMs) {
      d = maxMs;
      break;
    }
  }
  const elapsed = nowMs - lastFailureTime;
  return d < elapsed ? 0 : d - elapsed;
}
