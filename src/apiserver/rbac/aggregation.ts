/**
 * The ClusterRole aggregation loop (upstream's clusterrole-aggregation controller): a ClusterRole
 * with an aggregationRule gets as rules the union, without duplicates, of the rules of every
 * other ClusterRole matched by any of its selectors (selectors in order, matched roles by name).
 * Runs in-process on every ClusterRole change.
 *
 * Whatever is stored (objects written before validation was as strict as now, or restored from
 * another version's data directory), the loop never fails: a selector that is not a label
 * selector object is logged and skipped (as upstream's controller gives up on a role whose
 * selector does not convert), rules that are not objects are ignored, and a failure on one
 * role is logged and does not stop the others.
 */
import type { LabelSelector } from "../../apimachinery/api/meta/v1.js";
import type { ClusterRole, PolicyRule } from "../../apimachinery/api/rbac/v1.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { selectorMatches } from "../registry/meta.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { defaultWriteContext } from "../rest/context.js";
import type { ResourceStore } from "../rest/store.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A selector the loop can evaluate: an object whose parts have the shapes LabelSelector has. */
export function isWellFormedSelector(sel: unknown): sel is LabelSelector {
  if (!isObject(sel)) return false;
  const { matchLabels, matchExpressions } = sel;
  if (matchLabels !== undefined && matchLabels !== null) {
    if (!isObject(matchLabels) || !Object.values(matchLabels).every((v) => typeof v === "string")) return false;
  }
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) return false;
    for (const e of matchExpressions as unknown[]) {
      if (!isObject(e) || typeof e.key !== "string" || typeof e.operator !== "string") return false;
      if (e.values !== undefined && e.values !== null && !(Array.isArray(e.values) && e.values.every((v) => typeof v === "string"))) return false;
    }
  }
  return true;
}

/**
 * The rules an aggregated ClusterRole should have, or undefined when it has no aggregationRule;
 * throws when one of its selectors is not a label selector (the role is then left as it is).
 */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] | undefined {
  const agg: unknown = role.aggregationRule;
  if (agg === undefined || agg === null) return undefined;
  const selectors: unknown = isObject(agg) ? agg.clusterRoleSelectors : undefined;
  if (selectors !== undefined && selectors !== null && !Array.isArray(selectors)) throw new Error("aggregationRule.clusterRoleSelectors is not a list");
  const rules: PolicyRule[] = [];
  const byName = [...all].sort((a, b) => ((a.metadata?.name ?? "") < (b.metadata?.name ?? "") ? -1 : 1));
  for (const [i, sel] of ((selectors as unknown[] | null | undefined) ?? []).entries()) {
    // A null item decodes to Go's empty selector, which selects every ClusterRole.
    const s = sel === null ? {} : sel;
    if (!isWellFormedSelector(s)) throw new Error(`aggregationRule.clusterRoleSelectors[${i}] is not a label selector`);
    for (const other of byName) {
      if (other.metadata?.name === role.metadata?.name) continue;
      const labels: unknown = other.metadata?.labels;
      if (!selectorMatches(s, isObject(labels) ? (labels as Record<string, string>) : undefined)) continue;
      const otherRules: unknown = other.rules;
      if (!Array.isArray(otherRules)) continue;
      for (const rule of otherRules as unknown[]) {
        if (isObject(rule) && !rules.some((x) => semanticEqual(x, rule))) rules.push(rule as unknown as PolicyRule);
      }
    }
  }
  return rules;
}

export interface AggregationDeps {
  clusterRoles: () => readonly ClusterRole[];
  store: ResourceStore;
  log?: (msg: string, err: unknown) => void;
}

export class ClusterRoleAggregator {
  private scheduled = false;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly deps: AggregationDeps) {}

  /** Marks the aggregated roles for recomputation (coalesced into one pass). */
  schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      // The chain never rejects: a failed pass must not stop the next ones.
      this.running = this.running.then(() => this.reconcileAll()).catch((err: unknown) => this.deps.log?.("ClusterRole aggregation pass failed", err));
    });
  }

  private async reconcileAll(): Promise<void> {
    const all = this.deps.clusterRoles();
    for (const role of all) {
      if (this.stopped) return;
      const name = role.metadata?.name ?? "";
      let want: PolicyRule[] | undefined;
      try {
        want = aggregatedRules(role, all);
      } catch (err) {
        this.deps.log?.(`aggregating ClusterRole ${name} skipped`, err);
        continue;
      }
      if (!want || semanticEqual(role.rules ?? [], want)) continue;
      try {
        await this.deps.store.update(undefined, name, (cur) => {
          if (!cur) throw StatusError.notFound({ group: "rbac.authorization.k8s.io", resource: "clusterroles" }, name);
          return { ...cur, rules: want } as KubeObject;
        }, defaultWriteContext({ fieldManager: "clusterrole-aggregation-controller" }));
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) continue;
        this.deps.log?.(`aggregating ClusterRole ${name} failed`, err);
      }
    }
  }

  /** Resolves when no pass is pending (tests). */
  async idle(): Promise<void> {
    for (let i = 0; i < 50; i++) {
      await new Promise((r) => setImmediate(r));
      await this.running;
      if (!this.scheduled) return;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}
