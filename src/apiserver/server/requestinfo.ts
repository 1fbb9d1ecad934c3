/** Request paths of the resource API, parsed as kube-apiserver's RequestInfoFactory does. */
import { pathSegments } from "./target.js";

export interface ResourceRequestInfo {
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
  /** The legacy /watch/ path prefix was used. */
  watchPath: boolean;
}

export type PathInfo =
  | { kind: "apiVersions" } // /api
  | { kind: "apiGroupList" } // /apis
  | { kind: "apiGroup"; group: string } // /apis/<g>
  | { kind: "resourceList"; group: string; version: string } // /api/v1, /apis/<g>/<v>
  | { kind: "resource"; info: ResourceRequestInfo }
  | { kind: "notFound" };

// Subresources of namespaces that are addressed as /namespaces/<name>/<sub>.
const namespaceSubresources = new Set(["status", "finalize"]);

/** Routes a raw (percent-encoded, not normalised) path; 400 for a malformed escape. */
export function parsePath(pathname: string): PathInfo {
  const parts = pathSegments(pathname);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === "api") {
    if (parts.length === 1) return { kind: "apiVersions" };
    group = "";
    version = parts[1];
    rest = parts.slice(2);
  } else if (parts[0] === "apis") {
    if (parts.length === 1) return { kind: "apiGroupList" };
    if (parts.length === 2) return { kind: "apiGroup", group: parts[1] };
    group = parts[1];
    version = parts[2];
    rest = parts.slice(3);
  } else {
    return { kind: "notFound" };
  }
  if (rest.length === 0) return { kind: "resourceList", group, version };
  let watchPath = false;
  if (rest[0] === "watch") {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && !namespaceSubresources.has(rest[2])) rest = rest.slice(2);
  }
  // A proxy subresource carries the proxied path after it (…/pods/p/proxy/metrics).
  if (rest.length > 3 && rest[2] === "proxy") rest = rest.slice(0, 3);
  if (rest.length === 0 || rest.length > 3) return { kind: "notFound" };
  const info: ResourceRequestInfo = { group, version, resource: rest[0], watchPath };
  if (namespace !== undefined) info.namespace = namespace;
  if (rest.length > 1) info.name = rest[1];
  if (rest.length > 2) info.subresource = rest[2];
  return { kind: "resource", info };
}
