/**
 * What the garbage collector learns from discovery: the resources to monitor (upstream
 * GetDeletableResources: every preferred-version resource supporting delete, list and watch) and
 * the kind → resource mapping used to address owners and dependents (upstream's REST mapper,
 * reset on every discovery change).
 */
import { parseGroupVersion } from "../../apimachinery/gvk.js";
import { CachedDiscoveryClient, DiscoveryClient } from "../../client/discovery.js";
import type { ResourceDescriptor } from "../../client/interfaces.js";

/** A served resource and its verbs. */
export interface DiscoveredResourceInfo extends ResourceDescriptor {
  verbs: readonly string[];
}

/**
 * The discovery the collector needs. `serverResources` (every served version, not only the
 * preferred one) is optional: without it only preferred versions can be mapped.
 */
export interface GCDiscovery {
  serverPreferredResources(signal?: AbortSignal): Promise<DiscoveredResourceInfo[]>;
  serverResources?(signal?: AbortSignal): Promise<DiscoveredResourceInfo[]>;
}

export type DiscoverySource = GCDiscovery | DiscoveryClient | CachedDiscoveryClient;

export interface DiscoveryResult {
  preferred: DiscoveredResourceInfo[];
  all: DiscoveredResourceInfo[];
  /** "group/version" strings whose resources could not be listed this time. */
  failedGroupVersions: string[];
}

/** Resources the collector never monitors (upstream DefaultIgnoredResources): events. */
export const DEFAULT_IGNORED_RESOURCES: readonly { group: string; resource: string }[] = Object.freeze([
  { group: "", resource: "events" },
  { group: "events.k8s.io", resource: "events" },
]);

/** Asks discovery afresh (a cached client's cache is bypassed: the collector wants news). */
export async function discover(source: DiscoverySource, signal?: AbortSignal): Promise<DiscoveryResult> {
  const client = source instanceof CachedDiscoveryClient ? source.delegate : source;
  if (client instanceof DiscoveryClient) {
    const snap = await client.serverGroupsAndResources(signal);
    const preferredVersion = new Map(snap.groups.map((g) => [g.name, g.preferredVersion]));
    const info = (r: (typeof snap.resources)[number]): DiscoveredResourceInfo => ({
      group: r.group,
      version: r.version,
      resource: r.resource,
      kind: r.kind,
      namespaced: r.namespaced,
      verbs: r.verbs,
    });
    return {
      preferred: snap.resources.filter((r) => preferredVersion.get(r.group) === r.version).map(info),
      all: snap.resources.map(info),
      failedGroupVersions: snap.failedGroupVersions.map((f) => f.groupVersion),
    };
  }
  const preferred = await client.serverPreferredResources(signal);
  const all = client.serverResources ? await client.serverResources(signal) : preferred;
  return { preferred, all, failedGroupVersions: [] };
}

export function gvrKey(r: { group: string; version: string; resource: string }): string {
  return `${r.group}/${r.version}/${r.resource}`;
}

/** The preferred resources that support delete, list and watch, minus the ignored ones. */
export function deletableResources(
  preferred: readonly DiscoveredResourceInfo[],
  ignored: readonly { group: string; resource: string }[] = DEFAULT_IGNORED_RESOURCES,
): Map<string, ResourceDescriptor> {
  const out = new Map<string, ResourceDescriptor>();
  for (const r of preferred) {
    if (r.resource.includes("/")) continue;
    if (!["delete", "list", "watch"].every((v) => r.verbs.includes(v))) continue;
    if (ignored.some((i) => i.group === r.group && i.resource === r.resource)) continue;
    out.set(gvrKey(r), { group: r.group, version: r.version, resource: r.resource, kind: r.kind, namespaced: r.namespaced });
  }
  return out;
}

/** An apiVersion/kind no served resource matches (upstream restMappingError): retried later. */
export class RestMappingError extends Error {
  constructor(
    readonly kind: string,
    readonly apiVersion: string,
  ) {
    super(
      `unable to get REST mapping for ${kind}/${apiVersion}. If ${kind} is a custom resource, check that the CRD has been created and its version ${apiVersion} is served`,
    );
    this.name = "RestMappingError";
  }
}

/** Maps apiVersion + kind to the resource serving it, from one discovery result. */
export class KindMapper {
  private readonly byGVK = new Map<string, ResourceDescriptor>();

  constructor(resources: readonly ResourceDescriptor[] = []) {
    for (const r of resources) {
      if (r.resource.includes("/") || !r.kind) continue;
      const k = `${r.group}/${r.version}/${r.kind}`;
      if (!this.byGVK.has(k)) this.byGVK.set(k, { group: r.group, version: r.version, resource: r.resource, kind: r.kind, namespaced: r.namespaced });
    }
  }

  /** The resource for apiVersion/kind; throws RestMappingError when nothing serves it. */
  resourceFor(apiVersion: string, kind: string): ResourceDescriptor {
    let gv;
    try {
      gv = parseGroupVersion(apiVersion);
    } catch {
      throw new RestMappingError(kind, apiVersion);
    }
    const r = this.byGVK.get(`${gv.group}/${gv.version}/${kind}`);
    if (!r) throw new RestMappingError(kind, apiVersion);
    return r;
  }
}
