/**
 * OpenAPI documents for the embedded API server: /openapi/v2 (Swagger 2.0), the /openapi/v3
 * index and the per group-version OpenAPI 3.0 documents.
 *
 * Documents are built lazily and cached per resource set. A resource set is identified by its
 * content (the same resources in any array give the same documents and hashes); the hash in the
 * v3 index is the SHA-512 of the group-version document's JSON, so it changes exactly when the
 * document does (a CRD added, changed or removed), which is what clients caching by URL need.
 */
import { createHash } from "node:crypto";
import { buildCatalog, type Catalog } from "./catalog.js";
import { BEARER_TOKEN, routeRoots, v2Definitions, v2Paths, v3Definition, v3Paths } from "./render.js";
import { routesFor } from "./routes.js";
import { closure } from "./schema.js";
import { groupVersionPath, type ServedResource } from "./types.js";

export type { ServedResource } from "./types.js";
export { groupVersionPath } from "./types.js";
export { builtinDefinitions, definitionNameForKind, fieldDescription } from "./definitions.js";
export type { Schema, Definitions } from "./schema.js";

const INFO = { title: "Kubernetes", version: "unversioned" };

interface GroupVersion {
  group: string;
  version: string;
  resources: ServedResource[];
}

/** Everything derived from one resource set; filled in on demand. */
interface ResourceSetDocs {
  catalog: Catalog;
  groupVersions: Map<string, GroupVersion>;
  v2?: object;
  v3: Map<string, { doc: object; hash: string }>;
  index?: { paths: Record<string, { serverRelativeURL: string }> };
}

const MAX_CACHED_SETS = 8;
/** Content key → documents; insertion order doubles as LRU order. */
const byContent = new Map<string, ResourceSetDocs>();
/** The same array passed again skips computing its content key. */
const byArray = new WeakMap<readonly ServedResource[], { key: string; docs: ResourceSetDocs }>();

function contentKey(resources: readonly ServedResource[]): string {
  const sorted = [...resources].sort((a, b) => {
    const ka = `${a.group}/${a.version}/${a.resource}`;
    const kb = `${b.group}/${b.version}/${b.resource}`;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  return JSON.stringify(sorted);
}

function docsFor(resources: readonly ServedResource[]): ResourceSetDocs {
  const known = byArray.get(resources);
  if (known && byContent.get(known.key) === known.docs) return known.docs;
  const key = contentKey(resources);
  let docs = byContent.get(key);
  if (docs) {
    byContent.delete(key);
    byContent.set(key, docs);
  } else {
    const groupVersions = new Map<string, GroupVersion>();
    for (const r of resources) {
      const path = groupVersionPath(r.group, r.version);
      let gv = groupVersions.get(path);
      if (!gv) {
        gv = { group: r.group, version: r.version, resources: [] };
        groupVersions.set(path, gv);
      }
      gv.resources.push(r);
    }
    docs = { catalog: buildCatalog(resources), groupVersions, v3: new Map() };
    byContent.set(key, docs);
    while (byContent.size > MAX_CACHED_SETS) byContent.delete(byContent.keys().next().value!);
  }
  byArray.set(resources, { key, docs });
  return docs;
}

/** The Swagger 2.0 document (/openapi/v2) for the served resources. */
export function openAPIV2(resources: ServedResource[]): object {
  const docs = docsFor(resources);
  if (!docs.v2) {
    const paths: Record<string, unknown> = {};
    const roots = new Set<string>();
    for (const gv of docs.groupVersions.values()) {
      const routes = routesFor(gv.group, gv.version, gv.resources, (r) => docs.catalog.definitionsOf(r));
      Object.assign(paths, v2Paths(routes, gv.group, gv.version));
      for (const r of routeRoots(routes)) roots.add(r);
    }
    const names = closure(docs.catalog.definitions, roots);
    docs.v2 = {
      swagger: "2.0",
      info: INFO,
      paths: sortKeys(paths),
      definitions: v2Definitions(docs.catalog.definitions, names),
      securityDefinitions: { BearerToken: BEARER_TOKEN },
      security: [{ BearerToken: [] }],
    };
  }
  return docs.v2;
}

function v3Entry(docs: ResourceSetDocs, path: string): { doc: object; hash: string } | undefined {
  const cached = docs.v3.get(path);
  if (cached) return cached;
  const gv = docs.groupVersions.get(path);
  if (!gv) return undefined;
  const routes = routesFor(gv.group, gv.version, gv.resources, (r) => docs.catalog.definitionsOf(r));
  const names = closure(docs.catalog.definitions, routeRoots(routes));
  const schemas: Record<string, unknown> = {};
  for (const n of names) schemas[n] = v3Definition(n, docs.catalog.definitions[n]!);
  const doc = {
    openapi: "3.0.0",
    info: INFO,
    paths: v3Paths(routes, gv.group, gv.version),
    components: { schemas, securitySchemes: { BearerToken: BEARER_TOKEN } },
    security: [{ BearerToken: [] }],
  };
  const hash = createHash("sha512").update(JSON.stringify(doc)).digest("hex").toUpperCase();
  const entry = { doc, hash };
  docs.v3.set(path, entry);
  return entry;
}

/**
 * The /openapi/v3 index: one entry per served group-version ("api/v1", "apis/apps/v1"), each
 * pointing at its document with the content hash as query parameter.
 */
export function openAPIV3Paths(resources: ServedResource[]): { paths: Record<string, { serverRelativeURL: string }> } {
  const docs = docsFor(resources);
  if (!docs.index) {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const path of [...docs.groupVersions.keys()].sort()) {
      const entry = v3Entry(docs, path)!;
      paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${entry.hash}` };
    }
    docs.index = { paths };
  }
  return docs.index;
}

/** The OpenAPI 3.0 document of one group-version ("api/v1", "apis/apps/v1"), or undefined if not served. */
export function openAPIV3GroupVersion(groupVersionPath: string, resources: ServedResource[]): object | undefined {
  const path = groupVersionPath.replace(/^\/+/, "").replace(/\/+$/, "");
  return v3Entry(docsFor(resources), path)?.doc;
}

/** The content hash of a group-version document (the value the index puts in `?hash=`), for ETags. */
export function openAPIV3Hash(groupVersionPath: string, resources: ServedResource[]): string | undefined {
  const path = groupVersionPath.replace(/^\/+/, "").replace(/\/+$/, "");
  return v3Entry(docsFor(resources), path)?.hash;
}

function sortKeys<T>(obj: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.keys(obj).sort().map((k) => [k, obj[k]!]));
}
