/**
 * The served resources: one ResourceStore per strategy, looked up by group/version/resource,
 * and their description for discovery and OpenAPI (ServedResource).
 */
import type { ResourceStrategy } from "../registry/strategy.js";
import type { ResourceStore } from "../rest/store.js";

/** A served resource as discovery and OpenAPI describe it: the openapi module's contract. */
export type { ServedResource } from "../openapi/types.js";
import type { ServedResource } from "../openapi/types.js";

export function servedResourceOf(s: ResourceStrategy): ServedResource {
  const n = s.names;
  const subresources: string[] = [];
  if (s.subresources.status) subresources.push("status");
  if (s.subresources.scale) subresources.push("scale");
  if (n.group === "" && n.resource === "namespaces") subresources.push("finalize");
  subresources.push(...Object.keys(s.subresources.updates ?? {}));
  for (const x of s.subresources.extra ?? []) if (!subresources.includes(x)) subresources.push(x);
  // Discovery lists subresources in path order, as kube-apiserver's installer sorts them.
  subresources.sort();
  return {
    group: n.group,
    version: n.version,
    kind: n.kind,
    listKind: n.listKind,
    resource: n.resource,
    namespaced: n.namespaced,
    verbs: [...s.verbs],
    subresources,
    shortNames: [...n.shortNames],
    categories: [...n.categories],
    singular: n.singular,
    ...(s.openAPIV3Schema !== undefined ? { openAPIV3Schema: s.openAPIV3Schema } : {}),
    ...(s.conversion ? { storageVersion: s.conversion.storageVersion } : {}),
  };
}

/** Group preference order of kube-apiserver's discovery (core first; built-in groups in upstream's order). */
const groupOrder = [
  "",
  "apiregistration.k8s.io",
  "apps",
  "events.k8s.io",
  "authentication.k8s.io",
  "authorization.k8s.io",
  "autoscaling",
  "batch",
  "certificates.k8s.io",
  "networking.k8s.io",
  "policy",
  "rbac.authorization.k8s.io",
  "storage.k8s.io",
  "admissionregistration.k8s.io",
  "apiextensions.k8s.io",
  "scheduling.k8s.io",
  "coordination.k8s.io",
  "node.k8s.io",
  "discovery.k8s.io",
  "resource.k8s.io",
  "flowcontrol.apiserver.k8s.io",
];

export class ResourceRegistry {
  private readonly byPath = new Map<string, ResourceStore>();
  private readonly order: ResourceStore[] = [];

  private changes = 0;
  private readonly listeners = new Set<() => void>();

  /** Increases whenever the set of served resources changes (custom resources come and go). */
  get generation(): number {
    return this.changes;
  }

  /**
   * Calls `listener` (synchronously, after the change) whenever a resource is added or removed;
   * returns the function that unsubscribes it (the APIService registration loop uses this).
   */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.changes++;
    for (const l of this.listeners) l();
  }

  add(store: ResourceStore): void {
    const n = store.strategy.names;
    const k = `${n.group}/${n.version}/${n.resource}`;
    if (this.byPath.has(k)) throw new Error(`resource ${k} registered twice`);
    this.byPath.set(k, store);
    this.order.push(store);
    this.changed();
  }

  /** Stops serving a store (a custom resource version whose CRD changed or went away). */
  remove(store: ResourceStore): void {
    const n = store.strategy.names;
    const k = `${n.group}/${n.version}/${n.resource}`;
    if (this.byPath.get(k) !== store) return;
    this.byPath.delete(k);
    this.order.splice(this.order.indexOf(store), 1);
    this.changed();
  }

  lookup(group: string, version: string, resource: string): ResourceStore | undefined {
    return this.byPath.get(`${group}/${version}/${resource}`);
  }

  /** The store serving `group`/`resource` at any version (the first registered). */
  byGroupResource(group: string, resource: string): ResourceStore | undefined {
    return this.order.find((s) => s.gr.group === group && s.gr.resource === resource);
  }

  all(): readonly ResourceStore[] {
    return this.order;
  }

  /**
   * The served resources, each group-version's in resource-name order (kube-apiserver's
   * installer sorts a group-version's storage paths; `kubectl get all` follows that order).
   */
  served(): ServedResource[] {
    const out = this.order.map((s) => servedResourceOf(s.strategy));
    const gvRank = new Map<string, number>();
    out.forEach((r, i) => {
      const gv = `${r.group}/${r.version}`;
      if (!gvRank.has(gv)) gvRank.set(gv, i);
    });
    return out.sort(
      (a, b) =>
        gvRank.get(`${a.group}/${a.version}`)! - gvRank.get(`${b.group}/${b.version}`)! ||
        (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0),
    );
  }

  /** Groups with their versions, in discovery preference order. */
  groups(): { group: string; versions: string[] }[] {
    const m = new Map<string, string[]>();
    for (const s of this.order) {
      const { group, version } = s.strategy.names;
      const vs = m.get(group) ?? [];
      if (!vs.includes(version)) vs.push(version);
      m.set(group, vs);
    }
    const rank = (g: string) => {
      const i = groupOrder.indexOf(g);
      return i < 0 ? groupOrder.length : i;
    };
    return [...m.entries()]
      .map(([group, versions]) => ({ group, versions }))
      .sort((a, b) => rank(a.group) - rank(b.group) || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  }
}
