/**
 * REST mapping: kind ↔ resource, from discovery (client-go's restmapper.DeferredDiscoveryRESTMapper
 * over a memory-cached discovery client).
 *
 * Lookups use the cached discovery snapshot. On a miss, if that snapshot predates the call, the
 * cache is invalidated and the lookup retried once against a fresh snapshot — so a CRD installed
 * after start-up is found, and a truly unknown kind costs one re-fetch per lookup.
 *
 * Preference when several match: groups in discovery order (core first), versions in each group's
 * preference order. Resource names match the plural, the singular or a short name, case-insensitively.
 */
import type { GroupVersionKind, GroupVersionResource } from "../apimachinery/gvk.js";
import { groupResourceString } from "../apimachinery/gvk.js";
import type { CachedDiscoveryClient, DiscoveredResource, DiscoverySnapshot } from "./discovery.js";
import type { ResourceDescriptor } from "./interfaces.js";

export interface RESTMapping {
  resource: GroupVersionResource;
  groupVersionKind: GroupVersionKind;
  namespaced: boolean;
}

/** No resource serves the kind (meta.NoKindMatchError). */
export class NoKindMatchError extends Error {
  readonly group: string;
  readonly kind: string;
  readonly searchedVersions: string[];
  constructor(group: string, kind: string, searchedVersions: string[]) {
    const gvs = [...new Set(searchedVersions.map((v) => (group ? `${group}/${v}` : v)))].sort();
    let message: string;
    if (gvs.length === 0) message = `no matches for kind "${kind}" in group "${group}"`;
    else if (gvs.length === 1) message = `no matches for kind "${kind}" in version "${gvs[0]}"`;
    else message = `no matches for kind "${kind}" in versions [${gvs.map((v) => JSON.stringify(v)).join(" ")}]`;
    super(message);
    this.name = "NoKindMatchError";
    this.group = group;
    this.kind = kind;
    this.searchedVersions = searchedVersions;
  }
}

/** No resource matches the partial resource (meta.NoResourceMatchError). */
export class NoResourceMatchError extends Error {
  readonly partial: PartialResource;
  constructor(partial: PartialResource) {
    super(`the server doesn't have a resource type "${partial.group ? groupResourceString({ group: partial.group, resource: partial.resource }) : partial.resource}"`);
    this.name = "NoResourceMatchError";
    this.partial = partial;
  }
}

export function isNoMatchError(err: unknown): boolean {
  return err instanceof NoKindMatchError || err instanceof NoResourceMatchError;
}

/** A resource as a user may write it: group and version optional ("deploy", "deployments.apps"). */
export interface PartialResource {
  group?: string;
  version?: string;
  resource: string;
}

/** Parses kubectl-style "resource[.version].group" / "resource.group" / "resource". */
export function parsePartialResource(arg: string): PartialResource {
  const dot = arg.indexOf(".");
  if (dot < 0) return { resource: arg };
  return { resource: arg.slice(0, dot), group: arg.slice(dot + 1) };
}

function descriptorOf(r: DiscoveredResource): ResourceDescriptor {
  return { group: r.group, version: r.version, resource: r.resource, kind: r.kind, namespaced: r.namespaced };
}

function mappingOf(r: DiscoveredResource): RESTMapping {
  return {
    resource: { group: r.group, version: r.version, resource: r.resource },
    groupVersionKind: { group: r.group, version: r.version, kind: r.kind },
    namespaced: r.namespaced,
  };
}

/** Pure lookups over one discovery snapshot (client-go's DefaultRESTMapper). */
export class SnapshotRESTMapper {
  private readonly snapshot: DiscoverySnapshot;
  constructor(snapshot: DiscoverySnapshot) {
    this.snapshot = snapshot;
  }

  /** Mappings for a group/kind, in preference order; `versions` restricts and orders them. */
  restMappings(gk: { group: string; kind: string }, versions: readonly string[] = []): RESTMapping[] {
    const kindLc = gk.kind.toLowerCase();
    const candidates = this.snapshot.resources.filter((r) => r.group === gk.group && r.kind.toLowerCase() === kindLc);
    // Prefer exact-case kind matches.
    candidates.sort((a, b) => Number(b.kind === gk.kind) - Number(a.kind === gk.kind));
    let ordered = candidates;
    if (versions.length > 0) {
      ordered = [];
      for (const v of versions) ordered.push(...candidates.filter((r) => r.version === v));
    }
    if (ordered.length === 0) throw new NoKindMatchError(gk.group, gk.kind, [...versions]);
    return ordered.map(mappingOf);
  }

  restMapping(gk: { group: string; kind: string }, versions: readonly string[] = []): RESTMapping {
    return this.restMappings(gk, versions)[0];
  }

  /** Fully qualified resources matching a partial one, in preference order. */
  resourcesFor(partial: PartialResource): DiscoveredResource[] {
    const name = partial.resource.toLowerCase();
    const out = this.snapshot.resources.filter(
      (r) =>
        (partial.group === undefined || partial.group === "" ? true : r.group === partial.group) &&
        (partial.version === undefined || partial.version === "" || r.version === partial.version) &&
        (r.resource === name || r.singularName === name || r.shortNames.includes(name)),
    );
    if (out.length === 0) throw new NoResourceMatchError(partial);
    // Exact plural matches before singular/short-name matches.
    return out.sort((a, b) => Number(b.resource === name) - Number(a.resource === name));
  }

  resourceFor(partial: PartialResource): GroupVersionResource {
    const r = this.resourcesFor(partial)[0];
    return { group: r.group, version: r.version, resource: r.resource };
  }

  kindFor(partial: PartialResource): GroupVersionKind {
    const r = this.resourcesFor(partial)[0];
    return { group: r.group, version: r.version, kind: r.kind };
  }

  /** The descriptor for an exact GVK. */
  descriptorForKind(gvk: GroupVersionKind): ResourceDescriptor {
    const m = this.restMappings(gvk, gvk.version ? [gvk.version] : []);
    const r = this.snapshot.resources.find(
      (x) => x.group === m[0].resource.group && x.version === m[0].resource.version && x.resource === m[0].resource.resource,
    )!;
    return descriptorOf(r);
  }

  descriptorForResource(partial: PartialResource): ResourceDescriptor {
    return descriptorOf(this.resourcesFor(partial)[0]);
  }
}

/** A REST mapper over cached discovery that re-fetches once on a miss (DeferredDiscoveryRESTMapper). */
export class DiscoveryRESTMapper {
  private readonly discovery: CachedDiscoveryClient;

  constructor(discovery: CachedDiscoveryClient) {
    this.discovery = discovery;
  }

  private async withRetry<R>(fn: (m: SnapshotRESTMapper) => R, signal?: AbortSignal): Promise<R> {
    const before = this.discovery.fetches;
    const snap = await this.discovery.serverGroupsAndResources(signal);
    try {
      return fn(new SnapshotRESTMapper(snap));
    } catch (err) {
      if (!isNoMatchError(err) || this.discovery.fetches !== before) throw err;
      this.discovery.invalidate();
      return fn(new SnapshotRESTMapper(await this.discovery.serverGroupsAndResources(signal)));
    }
  }

  restMapping(gk: { group: string; kind: string }, versions: readonly string[] = [], signal?: AbortSignal): Promise<RESTMapping> {
    return this.withRetry((m) => m.restMapping(gk, versions), signal);
  }

  restMappings(gk: { group: string; kind: string }, versions: readonly string[] = [], signal?: AbortSignal): Promise<RESTMapping[]> {
    return this.withRetry((m) => m.restMappings(gk, versions), signal);
  }

  resourceFor(partial: PartialResource, signal?: AbortSignal): Promise<GroupVersionResource> {
    return this.withRetry((m) => m.resourceFor(partial), signal);
  }

  kindFor(partial: PartialResource, signal?: AbortSignal): Promise<GroupVersionKind> {
    return this.withRetry((m) => m.kindFor(partial), signal);
  }

  /** The ResourceDescriptor for a GVK (version "" → the preferred version). */
  descriptorForKind(gvk: GroupVersionKind, signal?: AbortSignal): Promise<ResourceDescriptor> {
    return this.withRetry((m) => m.descriptorForKind(gvk), signal);
  }

  descriptorForResource(partial: PartialResource, signal?: AbortSignal): Promise<ResourceDescriptor> {
    return this.withRetry((m) => m.descriptorForResource(partial), signal);
  }

  /** Forgets the cached discovery. */
  reset(): void {
    this.discovery.invalidate();
  }
}
