/**
 * What kube-apiserver's request metrics say about a request (endpoints/metrics): the reported
 * verb, the scope, the dry-run label, whether the request is long-running and whether it
 * mutates — derived from the method, the raw request target and the Content-Type alone, so the
 * instrumentation needs nothing from the handlers.
 *
 * Rules (1.36's metrics.go and installer.go):
 * - verb: GET/HEAD of one object → GET, of a collection → LIST, with `watch` (query or the
 *   legacy /watch/ prefix) → WATCH; PATCH with the apply content type → APPLY; the connect
 *   subresources (log, exec, portforward, attach, proxy) → CONNECT; POST, PUT, PATCH, DELETE as
 *   they are (DELETE of a collection is DELETE); any other method → "other".
 * - scope: "resource" for a request naming an object and for every POST, "namespace" for a
 *   namespaced collection, "cluster" otherwise.
 * - dry_run: "" without the parameter, "All" for dryRun=All, "invalid" for anything else.
 * - long-running (outside the in-flight limit, counted in apiserver_longrunning_requests):
 *   watches and the connect subresources (BasicLongRunningRequestCheck).
 */
import { parseBool } from "../rest/options.js";
import { parsePath } from "../server/requestinfo.js";

export interface RequestLabels {
  verb: string;
  dryRun: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
  longRunning: boolean;
}

const connectSubresources = new Set(["log", "exec", "portforward", "attach", "proxy"]);
export const applyPatchType = "application/apply-patch+yaml";

function queryParam(query: string, name: string): string | null {
  if (!query.includes(name)) return null;
  return new URLSearchParams(query).get(name);
}

function isWatch(query: string): boolean {
  try {
    return parseBool("watch", queryParam(query, "watch")) === true;
  } catch {
    return false;
  }
}

function dryRunLabel(query: string): string {
  if (!query.includes("dryRun")) return "";
  const values = new URLSearchParams(query).getAll("dryRun");
  if (values.length === 0) return "";
  return values.every((v) => v === "All") ? "All" : "invalid";
}

/** The labels of a resource request; undefined for non-resource paths (discovery, health, OpenAPI). */
export function requestLabels(method: string | undefined, target: string, contentType: string | undefined): RequestLabels | undefined {
  const q = target.indexOf("?");
  const path = q === -1 ? target : target.slice(0, q);
  const query = q === -1 ? "" : target.slice(q + 1);
  let p;
  try {
    p = parsePath(path);
  } catch {
    return undefined;
  }
  if (p.kind !== "resource") return undefined;
  const info = p.info;
  const named = info.name !== undefined;
  const subresource = info.subresource ?? "";
  const m = method ?? "GET";
  let verb: string;
  let watch = false;
  switch (m) {
    case "GET":
    case "HEAD":
      watch = info.watchPath || (query !== "" && isWatch(query));
      verb = watch ? "WATCH" : named ? "GET" : "LIST";
      break;
    case "PATCH":
      verb = contentType !== undefined && contentType.startsWith(applyPatchType) ? "APPLY" : "PATCH";
      break;
    case "POST":
    case "PUT":
    case "DELETE":
      verb = m;
      break;
    default:
      verb = "other";
  }
  const connect = subresource !== "" && connectSubresources.has(subresource);
  if (connect) verb = "CONNECT";
  return {
    verb,
    dryRun: query === "" ? "" : dryRunLabel(query),
    group: info.group,
    version: info.version,
    resource: info.resource,
    subresource,
    scope: named || m === "POST" ? "resource" : info.namespace !== undefined ? "namespace" : "cluster",
    longRunning: watch || connect,
  };
}

/**
 * requestLabels for a request, remembered per method and target (and, for PATCH, whether the
 * content type is apply): clients repeat the same targets, and the labels are a pure function
 * of these. The labels returned are shared and frozen; `undefined` results are remembered too.
 * Bounded: the oldest target goes first.
 */
export class RequestLabelsCache {
  private readonly known = new Map<string, RequestLabels | undefined>();

  constructor(private readonly max = 1024) {}

  labels(method: string | undefined, target: string, contentType: string | undefined): RequestLabels | undefined {
    const m = method ?? "GET";
    const key = m === "PATCH" ? `PATCH${contentType !== undefined && contentType.startsWith(applyPatchType) ? "+apply" : ""} ${target}` : `${m} ${target}`;
    const k = this.known;
    const hit = k.get(key);
    if (hit !== undefined || k.has(key)) return hit;
    const l = requestLabels(method, target, contentType);
    if (k.size >= this.max) k.delete(k.keys().next().value as string);
    k.set(key, l && Object.freeze(l));
    return l;
  }
}
