/**
 * The namespace conditions the deleter maintains (upstream pkg/controller/namespace/deletion's
 * status_condition_utils): every pass through a terminating namespace's content writes each of
 * the five condition types — the failure variant (status True) when something went wrong this
 * pass, otherwise the "ok" variant (status False) — so a condition that failed once reads as
 * fixed once it is.
 *
 * Invariant of `updateConditions`: an existing condition keeps its place in the list and its
 * lastTransitionTime unless its status changes; conditions of other types are left alone.
 */
import type { NamespaceCondition, NamespaceStatus } from "../../apimachinery/api/core/v1.js";
import { formatTime } from "../../apimachinery/time.js";

export const NamespaceDeletionDiscoveryFailure = "NamespaceDeletionDiscoveryFailure";
export const NamespaceDeletionGVParsingFailure = "NamespaceDeletionGroupVersionParsingFailure";
export const NamespaceDeletionContentFailure = "NamespaceDeletionContentFailure";
export const NamespaceContentRemaining = "NamespaceContentRemaining";
export const NamespaceFinalizersRemaining = "NamespaceFinalizersRemaining";

/** The condition types the deleter owns, in the order it appends them. */
export const NAMESPACE_CONDITION_TYPES: readonly string[] = Object.freeze([
  NamespaceDeletionDiscoveryFailure,
  NamespaceDeletionGVParsingFailure,
  NamespaceDeletionContentFailure,
  NamespaceContentRemaining,
  NamespaceFinalizersRemaining,
]);

const OK_MESSAGES: Readonly<Record<string, string>> = {
  [NamespaceDeletionDiscoveryFailure]: "All resources successfully discovered",
  [NamespaceDeletionGVParsingFailure]: "All legacy kube types successfully parsed",
  [NamespaceDeletionContentFailure]: "All content successfully deleted, may be waiting on finalization",
  [NamespaceContentRemaining]: "All content successfully removed",
  [NamespaceFinalizersRemaining]: "All content-preserving finalizers finished",
};

const OK_REASONS: Readonly<Record<string, string>> = {
  [NamespaceDeletionDiscoveryFailure]: "ResourcesDiscovered",
  [NamespaceDeletionGVParsingFailure]: "ParsedGroupVersions",
  [NamespaceDeletionContentFailure]: "ContentDeleted",
  [NamespaceContentRemaining]: "ContentRemoved",
  [NamespaceFinalizersRemaining]: "ContentHasNoFinalizers",
};

/** What is left after a pass: instances per resource ("deployments.apps") and per finalizer. */
export interface ContentTotals {
  /** Keyed "resource.group" (the core group gives "pods."), as upstream prints a GVR. */
  remainingByResource: ReadonlyMap<string, number>;
  remainingByFinalizer: ReadonlyMap<string, number>;
}

/** The "ok" variant of a condition type (status False). */
export function successfulCondition(type: string, nowMs: number): NamespaceCondition {
  return { type, status: "False", lastTransitionTime: formatTime(nowMs), reason: OK_REASONS[type], message: OK_MESSAGES[type] };
}

/** Message of a discovery error: a partial failure names its groups (ErrGroupDiscoveryFailed). */
export interface DiscoveryFailureLike {
  readonly groups: ReadonlyMap<string, unknown>;
}

function isGroupDiscoveryFailure(err: unknown): err is Error & DiscoveryFailureLike {
  return err instanceof Error && (err as Partial<DiscoveryFailureLike>).groups instanceof Map;
}

const sortedStrings = (xs: string[]) => xs.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * Collects one pass's failures (namespaceConditionUpdater), then writes them into a status with
 * `update`.
 */
export class NamespaceConditionUpdater {
  private readonly newConditions: NamespaceCondition[] = [];
  private readonly deleteContentErrors: unknown[] = [];

  constructor(private readonly nowMs: () => number) {}

  /** Discovery failed (wholly, or for some groups). */
  processDiscoverResourcesErr(err: unknown): void {
    const message = isGroupDiscoveryFailure(err)
      ? `Discovery failed for some groups, ${err.groups.size} failing: ${err.message}`
      : errorMessage(err);
    this.newConditions.push({
      type: NamespaceDeletionDiscoveryFailure,
      status: "True",
      lastTransitionTime: formatTime(this.nowMs()),
      reason: "DiscoveryFailed",
      message,
    });
  }

  /** A discovered group/version could not be parsed. */
  processGroupVersionErr(err: unknown): void {
    this.newConditions.push({
      type: NamespaceDeletionGVParsingFailure,
      status: "True",
      lastTransitionTime: formatTime(this.nowMs()),
      reason: "GroupVersionParsingFailed",
      message: errorMessage(err),
    });
  }

  /** Deleting one resource's content failed (gathered into one condition by `update`). */
  processDeleteContentErr(err: unknown): void {
    this.deleteContentErrors.push(err);
  }

  /** ContentRemaining / FinalizersRemaining from what is left (ProcessContentTotals). */
  processContentTotals(totals: ContentTotals): void {
    if (totals.remainingByResource.size > 0) {
      const parts: string[] = [];
      for (const [res, n] of totals.remainingByResource) if (n !== 0) parts.push(`${res} has ${n} resource instances`);
      this.newConditions.push({
        type: NamespaceContentRemaining,
        status: "True",
        lastTransitionTime: formatTime(this.nowMs()),
        reason: "SomeResourcesRemain",
        message: `Some resources are remaining: ${sortedStrings(parts).join(", ")}`,
      });
    }
    if (totals.remainingByFinalizer.size > 0) {
      const parts: string[] = [];
      for (const [fin, n] of totals.remainingByFinalizer) if (n !== 0) parts.push(`${fin} in ${n} resource instances`);
      this.newConditions.push({
        type: NamespaceFinalizersRemaining,
        status: "True",
        lastTransitionTime: formatTime(this.nowMs()),
        reason: "SomeFinalizersRemain",
        message: `Some content in the namespace has finalizers remaining: ${sortedStrings(parts).join(", ")}`,
      });
    }
  }

  /** The conditions collected so far (for tests). */
  collected(): readonly NamespaceCondition[] {
    return this.newConditions;
  }

  /** Writes the pass's conditions into `status`; true when anything changed. */
  update(status: NamespaceStatus): boolean {
    if (!this.newConditions.some((c) => c.type === NamespaceDeletionContentFailure) && this.deleteContentErrors.length > 0) {
      const msgs = sortedStrings(this.deleteContentErrors.map(errorMessage));
      this.newConditions.push({
        type: NamespaceDeletionContentFailure,
        status: "True",
        lastTransitionTime: formatTime(this.nowMs()),
        reason: "ContentDeletionFailed",
        message: `Failed to delete all resource types, ${msgs.length} remaining: ${msgs.join(", ")}`,
      });
    }
    return updateConditions(status, this.newConditions, this.nowMs());
  }
}

/**
 * Sets each owned condition type in `status` to the new condition of that type, or to its ok
 * variant when there is none (upstream updateConditions). Mutates `status`.
 */
export function updateConditions(status: NamespaceStatus, newConditions: readonly NamespaceCondition[], nowMs: number): boolean {
  let changed = false;
  for (const type of NAMESPACE_CONDITION_TYPES) {
    const next = newConditions.find((c) => c.type === type) ?? successfulCondition(type, nowMs);
    const conditions = (status.conditions ??= []);
    const i = conditions.findIndex((c) => c.type === type);
    if (i < 0) {
      conditions.push({ ...next });
      changed = true;
      continue;
    }
    const old = conditions[i];
    if (old.status !== next.status || old.message !== next.message || old.reason !== next.reason) {
      conditions[i] = {
        ...old,
        type,
        status: next.status,
        reason: next.reason,
        message: next.message,
        lastTransitionTime: old.status !== next.status ? formatTime(nowMs) : old.lastTransitionTime,
      };
      changed = true;
    }
  }
  return changed;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
