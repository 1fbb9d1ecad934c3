/**
 * What the namespace controller asks discovery (upstream's discoverResourcesFn,
 * ServerPreferredNamespacedResources): every namespaced resource at its group's preferred version,
 * as APIResourceLists keyed by their "group/version" string, and — as client-go returns both — the
 * error of the groups that could not be listed (a partial result still counts).
 */
import { CachedDiscoveryClient, DiscoveryClient } from "../../client/discovery.js";
import type { DiscoverySource } from "../garbagecollector/discovery.js";
import { groupVersionString } from "../../apimachinery/gvk.js";

export interface NamespacedAPIResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: readonly string[];
}

export interface NamespacedResourceList {
  /** "v1", "apps/v1", … (parsed by the deleter; an unparsable one sets GroupVersionParsingFailure). */
  groupVersion: string;
  resources: readonly NamespacedAPIResource[];
}

export interface NamespaceDiscoveryResult {
  lists: NamespacedResourceList[];
  /** Set when some (or all) groups failed; `lists` holds what was found. */
  error?: unknown;
}

export type NamespaceDiscovery = (signal?: AbortSignal) => Promise<NamespaceDiscoveryResult>;

/** client-go's ErrGroupDiscoveryFailed: the group/versions whose discovery failed, and why. */
export class GroupDiscoveryFailedError extends Error {
  constructor(readonly groups: ReadonlyMap<string, unknown>) {
    const parts = [...groups].map(([gv, err]) => `${gv}: ${err instanceof Error ? err.message : String(err)}`).sort();
    super(`unable to retrieve the complete list of server APIs: ${parts.join(", ")}`);
    this.name = "GroupDiscoveryFailedError";
  }
}

/** The namespace controller's discovery over the control plane's discovery source. */
export function namespaceDiscoveryFrom(source: DiscoverySource): NamespaceDiscovery {
  return async (signal) => {
    const client = source instanceof CachedDiscoveryClient ? source.delegate : source;
    const byGV = new Map<string, NamespacedAPIResource[]>();
    const add = (gv: string, r: NamespacedAPIResource) => {
      if (!r.namespaced || r.name.includes("/")) return;
      let list = byGV.get(gv);
      if (!list) byGV.set(gv, (list = []));
      list.push(r);
    };
    let error: unknown;
    if (client instanceof DiscoveryClient) {
      const snap = await client.serverGroupsAndResources(signal);
      const preferred = new Map(snap.groups.map((g) => [g.name, g.preferredVersion]));
      for (const r of snap.resources) {
        if (preferred.get(r.group) !== r.version) continue;
        add(groupVersionString(r), { name: r.resource, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs });
      }
      if (snap.failedGroupVersions.length > 0) {
        error = new GroupDiscoveryFailedError(new Map(snap.failedGroupVersions.map((f) => [f.groupVersion, f.error])));
      }
    } else {
      for (const r of await client.serverPreferredResources(signal)) {
        add(groupVersionString(r), { name: r.resource, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs });
      }
    }
    return { lists: [...byGV].map(([groupVersion, resources]) => ({ groupVersion, resources })), error };
  };
}
