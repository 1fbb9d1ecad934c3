/**
 * Discovery documents: /version, legacy /api, /apis, /apis/<g>, /api/v1 and /apis/<g>/<v>
 * (APIVersions, APIGroupList, APIGroup, APIResourceList), and aggregated discovery
 * (apidiscovery.k8s.io v2 / v2beta1 APIGroupDiscoveryList) for /api and /apis.
 */
import type { ResourceRegistry, ServedResource } from "./resources.js";

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export function versionInfo(): VersionInfo {
  return {
    major: "1",
    minor: "35",
    gitVersion: "v1.35.0-kubeloop",
    gitCommit: "0000000000000000000000000000000000000000",
    gitTreeState: "clean",
    buildDate: "2026-01-01T00:00:00Z",
    goVersion: `node${process.versions.node}`,
    compiler: "tsc",
    platform: `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`,
  };
}

const subresourceVerbs: Record<string, string[]> = {
  status: ["get", "patch", "update"],
  scale: ["get", "patch", "update"],
  finalize: ["update"],
  approval: ["get", "patch", "update"],
  binding: ["create"],
  eviction: ["create"],
  token: ["create"],
  ephemeralcontainers: ["get", "patch", "update"],
  resize: ["get", "patch", "update"],
};

/** Subresources whose kind is not the resource's own (upstream's GroupVersionKindProvider). */
const subresourceKinds: Record<string, { group: string; version: string; kind: string }> = {
  scale: { group: "autoscaling", version: "v1", kind: "Scale" },
  binding: { group: "", version: "v1", kind: "Binding" },
  eviction: { group: "policy", version: "v1", kind: "Eviction" },
  token: { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" },
};

function gvString(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

export function apiVersions(serverAddress: string): object {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

function apiGroup(group: string, versions: string[]): object {
  const vs = versions.map((v) => ({ groupVersion: gvString(group, v), version: v }));
  return { name: group, versions: vs, preferredVersion: vs[0] };
}

export function apiGroupList(reg: ResourceRegistry): object {
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: reg
      .groups()
      .filter((g) => g.group !== "")
      .map((g) => apiGroup(g.group, g.versions)),
  };
}

export function apiGroupDoc(reg: ResourceRegistry, group: string): object | undefined {
  const g = reg.groups().find((x) => x.group === group && group !== "");
  if (!g) return undefined;
  return { kind: "APIGroup", apiVersion: "v1", ...apiGroup(g.group, g.versions) };
}

function subresourceKind(r: ServedResource, sub: string): { group: string; version: string; kind: string } {
  return subresourceKinds[sub] ?? { group: r.group, version: r.version, kind: r.kind };
}

export function apiResourceList(reg: ResourceRegistry, group: string, version: string): object | undefined {
  const rs = reg.served().filter((r) => r.group === group && r.version === version);
  if (rs.length === 0) return undefined;
  const resources: object[] = [];
  for (const r of rs) {
    resources.push({
      name: r.resource,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.verbs,
      ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
      ...(r.categories.length ? { categories: r.categories } : {}),
      storageVersionHash: storageVersionHash(r),
    });
    for (const sub of r.subresources) {
      const k = subresourceKind(r, sub);
      resources.push({
        name: `${r.resource}/${sub}`,
        singularName: "",
        namespaced: r.namespaced,
        ...(k.group !== r.group || k.version !== r.version ? { group: k.group, version: k.version } : {}),
        kind: k.kind,
        verbs: subresourceVerbs[sub] ?? ["get"],
      });
    }
  }
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: gvString(group, version), resources };
}

/**
 * A short stable hash of the storage group/version/kind, as storageVersionHash (8 bytes base64):
 * the same for every version served from one storage version.
 */
function storageVersionHash(r: ServedResource): string {
  let h = 2166136261 >>> 0;
  let h2 = 5381;
  const storageVersion = r.storageVersion ? r.storageVersion.slice(r.storageVersion.indexOf("/") + 1) : r.version;
  for (const c of `${r.group}/${storageVersion}/${r.kind}`) {
    h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
    h2 = (Math.imul(h2, 33) + c.charCodeAt(0)) >>> 0;
  }
  const b = Buffer.alloc(8);
  b.writeUInt32BE(h, 0);
  b.writeUInt32BE(h2, 4);
  return b.toString("base64");
}

/** Aggregated discovery for /api (core group only) or /apis (every other group). */
export function aggregatedDiscovery(reg: ResourceRegistry, legacy: boolean, version: "v2" | "v2beta1"): object {
  const served = reg.served();
  const items = reg
    .groups()
    .filter((g) => (legacy ? g.group === "" : g.group !== ""))
    .map((g) => ({
      metadata: { name: g.group, creationTimestamp: null },
      versions: g.versions.map((v) => ({
        version: v,
        resources: served
          .filter((r) => r.group === g.group && r.version === v)
          .map((r) => ({
            resource: r.resource,
            responseKind: { group: r.group, version: r.version, kind: r.kind },
            scope: r.namespaced ? "Namespaced" : "Cluster",
            singularResource: r.singular,
            verbs: r.verbs,
            ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
            ...(r.categories.length ? { categories: r.categories } : {}),
            ...(r.subresources.length
              ? {
                  subresources: r.subresources.map((s) => ({
                    subresource: s,
                    responseKind: subresourceKind(r, s),
                    verbs: subresourceVerbs[s] ?? ["get"],
                  })),
                }
              : {}),
          })),
        freshness: "Current",
      })),
    }));
  return { kind: "APIGroupDiscoveryList", apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

export function aggregatedContentType(version: "v2" | "v2beta1"): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}
