/**
 * Discovery (client-go's discovery.DiscoveryClient + memory cache): the server version, the API
 * groups and the resources each group/version serves.
 *
 * `/api` and `/apis` are asked for aggregated discovery first (Accept
 * `application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`, then v2beta1, then plain
 * JSON). When the server answers with an aggregated document, nothing else is fetched; when it
 * answers with the legacy APIVersions / APIGroupList, every group/version's APIResourceList is
 * fetched in parallel (kubectl's behaviour). A group/version whose list fails is reported in
 * `failedGroupVersions` and left out; the rest of the snapshot stands.
 *
 * `CachedDiscoveryClient` keeps the last snapshot until `invalidate()`; its `fetches` counter lets
 * the REST mapper tell whether the snapshot it looked at predates its own call (a miss is then
 * worth one re-fetch).
 */
import type { APIGroupList, APIResourceList, APIVersions } from "../apimachinery/api/meta/v1.js";
import type { Info as VersionInfo } from "../apimachinery/api/version.js";
import { StatusError } from "../apimachinery/errors.js";
import { groupVersionString, type GroupVersion } from "../apimachinery/gvk.js";
import type { ResourceDescriptor } from "./interfaces.js";
import type { RestRequest, Transport } from "./transport.js";

export type { VersionInfo };

export const AGGREGATED_DISCOVERY_ACCEPT =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const LEGACY_ACCEPT = "application/json, */*";
/** kubectl's discovery request timeout. */
export const DISCOVERY_TIMEOUT_MS = 32_000;

export interface DiscoveredSubresource {
  name: string;
  kind?: string;
  verbs: string[];
}

export interface DiscoveredResource extends ResourceDescriptor {
  singularName: string;
  verbs: string[];
  shortNames: string[];
  categories: string[];
  subresources: DiscoveredSubresource[];
}

export interface DiscoveredGroup {
  /** "" for the core group. */
  name: string;
  /** Served versions, preferred first. */
  versions: string[];
  preferredVersion: string;
}

export interface DiscoverySnapshot {
  /** Groups in server order (core first). */
  groups: DiscoveredGroup[];
  /** Resources of every group/version, in group order then version preference order. */
  resources: DiscoveredResource[];
  /** Whether /api and /apis both answered with aggregated discovery. */
  aggregated: boolean;
  failedGroupVersions: { groupVersion: string; error: unknown }[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

export interface GVResources {
  gv: GroupVersion;
  resources: DiscoveredResource[];
}

/** Converts an aggregated APIGroupDiscoveryList into groups and per-GV resources. */
export function parseAggregatedDiscovery(doc: unknown): { groups: DiscoveredGroup[]; gvs: GVResources[] } {
  const groups: DiscoveredGroup[] = [];
  const gvs: GVResources[] = [];
  const items = isObj(doc) && Array.isArray(doc.items) ? doc.items : [];
  for (const item of items) {
    if (!isObj(item)) continue;
    const name = isObj(item.metadata) && typeof item.metadata.name === "string" ? item.metadata.name : "";
    const versions: string[] = [];
    for (const v of Array.isArray(item.versions) ? item.versions : []) {
      if (!isObj(v) || typeof v.version !== "string") continue;
      versions.push(v.version);
      const gv = { group: name, version: v.version };
      const resources: DiscoveredResource[] = [];
      for (const r of Array.isArray(v.resources) ? v.resources : []) {
        if (!isObj(r) || typeof r.resource !== "string") continue;
        const rk = isObj(r.responseKind) ? r.responseKind : {};
        resources.push({
          group: name,
          version: v.version,
          resource: r.resource,
          kind: typeof rk.kind === "string" ? rk.kind : "",
          namespaced: r.scope === "Namespaced",
          singularName: typeof r.singularResource === "string" ? r.singularResource : "",
          verbs: strs(r.verbs),
          shortNames: strs(r.shortNames),
          categories: strs(r.categories),
          subresources: (Array.isArray(r.subresources) ? r.subresources : []).filter(isObj).map((s) => {
            const sk = isObj(s.responseKind) ? s.responseKind : {};
            const sub: DiscoveredSubresource = { name: String(s.subresource ?? ""), verbs: strs(s.verbs) };
            if (typeof sk.kind === "string") sub.kind = sk.kind;
            return sub;
          }),
        });
      }
      gvs.push({ gv, resources });
    }
    groups.push({ name, versions, preferredVersion: versions[0] ?? "" });
  }
  return { groups, gvs };
}

/** Converts a legacy APIResourceList (subresources as "pods/status") into resources. */
export function parseResourceList(gv: GroupVersion, list: APIResourceList): DiscoveredResource[] {
  const byName = new Map<string, DiscoveredResource>();
  const subs: { parent: string; sub: DiscoveredSubresource }[] = [];
  for (const r of list.resources ?? []) {
    const slash = r.name.indexOf("/");
    if (slash >= 0) {
      const sub: DiscoveredSubresource = { name: r.name.slice(slash + 1), verbs: [...(r.verbs ?? [])] };
      if (r.kind) sub.kind = r.kind;
      subs.push({ parent: r.name.slice(0, slash), sub });
      continue;
    }
    byName.set(r.name, {
      group: gv.group,
      version: gv.version,
      resource: r.name,
      kind: r.kind,
      namespaced: r.namespaced,
      singularName: r.singularName ?? "",
      verbs: [...(r.verbs ?? [])],
      shortNames: [...(r.shortNames ?? [])],
      categories: [...(r.categories ?? [])],
      subresources: [],
    });
  }
  for (const { parent, sub } of subs) byName.get(parent)?.subresources.push(sub);
  return [...byName.values()];
}

function isAggregated(res: { headers: Record<string, unknown> }, doc: unknown): boolean {
  const ct = res.headers["content-type"];
  const s = Array.isArray(ct) ? String(ct[0]) : typeof ct === "string" ? ct : "";
  if (s.includes("as=APIGroupDiscoveryList")) return true;
  return isObj(doc) && doc.kind === "APIGroupDiscoveryList";
}

export class DiscoveryClient {
  private readonly transport: Transport;
  readonly timeoutMs: number;

  constructor(transport: Transport, opts: { timeoutMs?: number } = {}) {
    this.transport = transport;
    this.timeoutMs = opts.timeoutMs ?? DISCOVERY_TIMEOUT_MS;
  }

  private async getJSON(path: string, accept: string, signal?: AbortSignal): Promise<{ doc: unknown; headers: Record<string, unknown> }> {
    const req: RestRequest = { method: "GET", path, accept, timeoutMs: this.timeoutMs };
    if (signal) req.signal = signal;
    const res = await this.transport.request(req);
    try {
      return { doc: JSON.parse(res.body.toString("utf8")), headers: res.headers };
    } catch (e) {
      throw StatusError.internalError(new Error(`unable to decode the discovery response from ${path}: ${(e as Error).message}`));
    }
  }

  /** GET /version. */
  async serverVersion(signal?: AbortSignal): Promise<VersionInfo> {
    return (await this.getJSON("/version", LEGACY_ACCEPT, signal)).doc as VersionInfo;
  }

  /** The legacy group list (/api + /apis), core group first. */
  async serverGroups(signal?: AbortSignal): Promise<DiscoveredGroup[]> {
    const [core, named] = await Promise.all([
      this.getJSON("/api", LEGACY_ACCEPT, signal),
      this.getJSON("/apis", LEGACY_ACCEPT, signal),
    ]);
    return [...legacyCoreGroups(core.doc as APIVersions), ...legacyNamedGroups(named.doc as APIGroupList)];
  }

  /** GET /api/v1 or /apis/<g>/<v>. */
  async serverResourcesForGroupVersion(gv: GroupVersion, signal?: AbortSignal): Promise<DiscoveredResource[]> {
    const path = gv.group === "" ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
    return parseResourceList(gv, (await this.getJSON(path, LEGACY_ACCEPT, signal)).doc as APIResourceList);
  }

  /** Groups and resources, aggregated discovery first, legacy endpoints as the fallback. */
  async serverGroupsAndResources(signal?: AbortSignal): Promise<DiscoverySnapshot> {
    const [core, named] = await Promise.all([
      this.getJSON("/api", AGGREGATED_DISCOVERY_ACCEPT, signal),
      this.getJSON("/apis", AGGREGATED_DISCOVERY_ACCEPT, signal),
    ]);
    const groups: DiscoveredGroup[] = [];
    const gvs: GVResources[] = [];
    const pending: GroupVersion[] = [];
    let aggregated = true;
    for (const [part, legacy] of [
      [core, (d: unknown) => legacyCoreGroups(d as APIVersions)],
      [named, (d: unknown) => legacyNamedGroups(d as APIGroupList)],
    ] as const) {
      if (isAggregated(part, part.doc)) {
        const p = parseAggregatedDiscovery(part.doc);
        groups.push(...p.groups);
        gvs.push(...p.gvs);
      } else {
        aggregated = false;
        const gs = legacy(part.doc);
        groups.push(...gs);
        for (const g of gs) for (const v of g.versions) pending.push({ group: g.name, version: v });
      }
    }
    const failedGroupVersions: DiscoverySnapshot["failedGroupVersions"] = [];
    const fetched = await Promise.all(
      pending.map(async (gv) => {
        try {
          return { gv, resources: await this.serverResourcesForGroupVersion(gv, signal) };
        } catch (error) {
          if (signal?.aborted) throw error;
          failedGroupVersions.push({ groupVersion: groupVersionString(gv), error });
          return undefined;
        }
      }),
    );
    for (const f of fetched) if (f) gvs.push(f);
    // Order resources by group order, then by the group's version preference.
    const resources: DiscoveredResource[] = [];
    for (const g of groups) {
      for (const v of g.versions) {
        const entry = gvs.find((x) => x.gv.group === g.name && x.gv.version === v);
        if (entry) resources.push(...entry.resources);
      }
    }
    return { groups, resources, aggregated, failedGroupVersions };
  }
}

function legacyCoreGroups(doc: APIVersions | undefined): DiscoveredGroup[] {
  const versions = doc?.versions ?? [];
  return versions.length > 0 ? [{ name: "", versions: [...versions], preferredVersion: versions[0] }] : [];
}

function legacyNamedGroups(doc: APIGroupList | undefined): DiscoveredGroup[] {
  return (doc?.groups ?? []).map((g) => {
    const preferred = g.preferredVersion?.version ?? g.versions[0]?.version ?? "";
    const versions = g.versions.map((v) => v.version);
    // Preferred first, the rest in server order.
    const ordered = preferred ? [preferred, ...versions.filter((v) => v !== preferred)] : versions;
    return { name: g.name, versions: ordered, preferredVersion: preferred };
  });
}

/**
 * A discovery client that remembers its last snapshot (client-go's memCacheClient).
 *
 * State: `snapshot` is the last successful result (or a fetch in flight; a failed fetch is
 * forgotten); `fresh` is true from a fetch until the next `invalidate()`; `fetches` counts fetches.
 */
export class CachedDiscoveryClient {
  readonly delegate: DiscoveryClient;
  private snapshot?: Promise<DiscoverySnapshot>;
  private freshFlag = false;
  /** Number of fetches made (for tests and metrics). */
  fetches = 0;

  constructor(delegate: DiscoveryClient) {
    this.delegate = delegate;
  }

  get fresh(): boolean {
    return this.freshFlag;
  }

  serverVersion(signal?: AbortSignal): Promise<VersionInfo> {
    return this.delegate.serverVersion(signal);
  }

  serverGroupsAndResources(signal?: AbortSignal): Promise<DiscoverySnapshot> {
    if (!this.snapshot) {
      this.fetches++;
      const p = this.delegate.serverGroupsAndResources(signal);
      this.snapshot = p;
      this.freshFlag = true;
      p.catch(() => {
        if (this.snapshot === p) this.snapshot = undefined;
      });
    }
    return this.snapshot;
  }

  /** Forgets the snapshot; the next call fetches again. */
  invalidate(): void {
    this.snapshot = undefined;
    this.freshFlag = false;
  }
}
