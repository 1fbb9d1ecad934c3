/**
 * Completion indexes of Indexed Jobs (indexed_job_utils.go): a pod's index from its annotation,
 * the succeeded indexes as ordered intervals (status.completedIndexes "1,3-5,7"), and the first
 * indexes that no pod holds yet.
 */
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { JOB_COMPLETION_INDEX_ANNOTATION } from "./constants.js";

export const UNKNOWN_COMPLETION_INDEX = -1;

/** The pod's completion index, or UNKNOWN_COMPLETION_INDEX when absent or not a non-negative integer. */
export function getCompletionIndex(annotations: Readonly<Record<string, string>> | undefined): number {
  const v = annotations?.[JOB_COMPLETION_INDEX_ANNOTATION];
  if (v === undefined || !/^[0-9]+$/.test(v)) return UNKNOWN_COMPLETION_INDEX;
  const n = Number(v);
  return Number.isSafeInteger(n) && n <= 2 ** 31 - 1 ? n : UNKNOWN_COMPLETION_INDEX;
}

export interface Interval {
  first: number;
  last: number;
}

/** Ordered, disjoint, non-adjacent intervals of indexes (orderedIntervals). */
export class OrderedIntervals {
  constructor(readonly intervals: readonly Interval[] = []) {}

  /** Parses "1,3-5" keeping indexes below `completions`; malformed parts are skipped, as upstream logs and skips. */
  static parse(s: string | undefined, completions: number): OrderedIntervals {
    const out: number[] = [];
    if (!s) return new OrderedIntervals();
    for (const part of s.split(",")) {
      const m = /^([0-9]+)(?:-([0-9]+))?$/.exec(part);
      if (!m) continue;
      const first = Number(m[1]);
      const last = m[2] === undefined ? first : Number(m[2]);
      for (let i = first; i <= Math.min(last, completions - 1); i++) out.push(i);
    }
    return new OrderedIntervals().withOrderedIndexes(out);
  }

  /** These intervals plus `indexes` (sorted ascending). */
  withOrderedIndexes(indexes: readonly number[]): OrderedIntervals {
    const all = new Set<number>();
    for (const iv of this.intervals) for (let i = iv.first; i <= iv.last; i++) all.add(i);
    for (const i of indexes) all.add(i);
    const sorted = [...all].sort((a, b) => a - b);
    const out: Interval[] = [];
    for (const i of sorted) {
      const last = out[out.length - 1];
      if (last && last.last + 1 === i) last.last = i;
      else out.push({ first: i, last: i });
    }
    return new OrderedIntervals(out);
  }

  /** These intervals plus `other`'s (orderedIntervals.merge). */
  merge(other: OrderedIntervals): OrderedIntervals {
    const all = [...this.intervals, ...other.intervals].sort((a, b) => a.first - b.first);
    const out: Interval[] = [];
    for (const iv of all) {
      const last = out[out.length - 1];
      if (last && iv.first <= last.last + 1) last.last = Math.max(last.last, iv.last);
      else out.push({ first: iv.first, last: iv.last });
    }
    return new OrderedIntervals(out);
  }

  /** How many indexes are in both these intervals and `other`'s. */
  intersectionSize(other: OrderedIntervals): number {
    let n = 0;
    let i = 0;
    let j = 0;
    const a = this.intervals;
    const b = other.intervals;
    while (i < a.length && j < b.length) {
      const overlap = Math.min(a[i].last, b[j].last) - Math.max(a[i].first, b[j].first) + 1;
      if (overlap > 0) n += overlap;
      if (a[i].last < b[j].last) i++;
      else if (a[i].last > b[j].last) j++;
      else {
        i++;
        j++;
      }
    }
    return n;
  }

  has(ix: number): boolean {
    return this.intervals.some((iv) => iv.first <= ix && ix <= iv.last);
  }

  total(): number {
    return this.intervals.reduce((n, iv) => n + iv.last - iv.first + 1, 0);
  }

  toString(): string {
    // Two neighbours are written as a pair ("0,1"), longer runs as a range ("3-5"), as upstream.
    return this.intervals.map((iv) => (iv.first === iv.last ? `${iv.first}` : `${iv.first}${iv.last === iv.first + 1 ? "," : "-"}${iv.last}`)).join(",");
  }
}

/** The indexes of `pods` (valid ones only). */
export function getIndexes(pods: readonly Pod[]): number[] {
  const out = new Set<number>();
  for (const p of pods) {
    const ix = getCompletionIndex(p.metadata?.annotations);
    if (ix !== UNKNOWN_COMPLETION_INDEX) out.add(ix);
  }
  return [...out].sort((a, b) => a - b);
}

/** Up to `count` lowest indexes below `completions` that are not in `nonPending`. */
export function firstPendingIndexes(nonPending: OrderedIntervals, count: number, completions: number): number[] {
  const result: number[] = [];
  for (let candidate = 0; candidate < completions && result.length < count; candidate++) {
    if (!nonPending.has(candidate)) result.push(candidate);
  }
  return result;
}

/** generateName of an Indexed Job's pod: "<job>-<index>-", the job name cut to fit (podGenerateNameWithIndex). */
export function podGenerateNameWithIndex(jobName: string, index: number): string {
  const appendIndex = `-${index}-`;
  const max = 63 - 5; // validation.DNS1123LabelMaxLength - the random suffix
  let prefix = jobName + appendIndex;
  if (prefix.length > max) prefix = prefix.slice(0, max - appendIndex.length) + appendIndex;
  return prefix;
}
