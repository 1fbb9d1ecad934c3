/**
 * The ClusterRole aggregation loop (upstream's clusterrole-aggregation controller): a ClusterRole
 * with an aggregationRule gets as rules the union, without duplicates, of the rules of every
 * other ClusterRole matched by any of its selectors (selectors in order, matched roles by name).
 * Runs in-process on every ClusterRole change.
 */
import type { ClusterRole, PolicyRule } from "kubernetes-types/rbac/v1.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { selectorMatches } from "../registry/meta.js";
import { semanticDeepEqual } from "../registry/equality.js";
import { defaultWriteContext } from "../rest/context.js";
import type { ResourceStore } from "../rest/store.js";

/** The rules an aggregated ClusterRole should have, or undefined when it has no aggregationRule. */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] | undefined {
  const selectors = role.aggregationRule?.clusterRoleSelectors;
  if (!role.aggregationRule) return undefined;
  const rules: PolicyRule[] = [];
  const byName = [...all].sort((a, b) => ((a.metadata?.name ?? "") < (b.metadata?.name ?? "") ? -1 : 1));
  for (const sel of selectors ?? []) {
    for (const other of byName) {
      if (other.metadata?.name === role.metadata?.name) continue;
      if (!selectorMatches(sel, other.metadata?.labels as Record<string, string> | undefined)) continue;
      for (const rule of other.rules ?? []) if (!rules.some((x) => semanticDeepEqual(x, rule))) rules.push(rule);
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
      this.running = this.running.then(() => this.reconcileAll());
    });
  }

  private async reconcileAll(): Promise<void> {
    const all = this.deps.clusterRoles();
    for (const role of all) {
      if (this.stopped) return;
      const want = aggregatedRules(role, all);
      if (!want || semanticDeepEqual(role.rules ?? [], want)) continue;
      const name = role.metadata?.name ?? "";
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
