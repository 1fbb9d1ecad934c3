/** The resources the server serves, as the OpenAPI builders see them (the server's contract). */

export interface ServedResource {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** Plural resource name, e.g. "deployments". */
  resource: string;
  namespaced: boolean;
  /** Verbs of the main resource: get, list, watch, create, update, patch, delete, deletecollection. */
  verbs: string[];
  /** Subresource names: status, scale, finalize, binding, eviction, token, log, ephemeralcontainers, resize. */
  subresources: string[];
  shortNames: string[];
  categories: string[];
  singular: string;
  /**
   * Optional, for custom resources: the served version's `schema.openAPIV3Schema`. Kinds with no
   * built-in definition and no schema are published with a schema that accepts any object.
   */
  openAPIV3Schema?: unknown;
  /** For a version served from another version's storage: the storage apiVersion. */
  storageVersion?: string;
}

/** "api/v1" for the core group, "apis/<group>/<version>" otherwise (the /openapi/v3 path keys). */
export function groupVersionPath(group: string, version: string): string {
  return group === "" ? `api/${version}` : `apis/${group}/${version}`;
}
