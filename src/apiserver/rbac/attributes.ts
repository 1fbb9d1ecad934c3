/**
 * Authorization attributes of a request (upstream's authorizer.Attributes), derived from the
 * method and URL exactly as kube-apiserver's RequestInfoFactory does, and the Forbidden answer
 * built from them (responsewriters.Forbidden).
 */
import { StatusError } from "../../apimachinery/errors.js";
import type { UserInfo } from "../auth/user.js";
import { nameIsPathSegment } from "../../apimachinery/validation.js";

export interface Attributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  /** Request path (non-resource requests). */
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

export type RequestInfo = Omit<Attributes, "user">;

const apiPrefixes = new Set(["api", "apis"]);
const grouplessPrefixes = new Set(["api"]);
const specialVerbs = new Set(["proxy", "watch"]);
const specialVerbsNoSubresources = new Set(["proxy"]);
const namespaceSubresources = new Set(["status", "finalize"]);

function methodVerb(method: string): string {
  switch (method) {
    case "POST":
      return "create";
    case "GET":
    case "HEAD":
      return "get";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return "delete";
    default:
      return "";
  }
}

/** The name of a `metadata.name=x` (or `==`) term of a field selector, when the selector requires one. */
function exactNameOf(fieldSelector: string | null): string | undefined {
  if (!fieldSelector) return undefined;
  for (const term of fieldSelector.split(",")) {
    const m = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(term);
    if (m) return m[1];
  }
  return undefined;
}

function validPathSegmentName(name: string): boolean {
  return name !== "" && nameIsPathSegment(name, false).length === 0;
}

function isWatchParam(v: string | null): boolean {
  if (v === null) return false;
  return !["false", "0"].includes(v.toLowerCase());
}

/** RequestInfoFactory.NewRequestInfo. Throws a 400-worthy Error for `/api/v1/watch` with nothing after. */
export function requestInfoOf(method: string, url: { readonly pathname: string; readonly searchParams: URLSearchParams }): RequestInfo {
  const info: RequestInfo = {
    resourceRequest: false,
    path: url.pathname,
    verb: method.toLowerCase(),
    apiGroup: "",
    apiVersion: "",
    namespace: "",
    resource: "",
    subresource: "",
    name: "",
  };
  const path = info.path;
  // The path without leading and trailing slashes (a loop: this runs on every request).
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === 0x2f) start++;
  while (end > start && path.charCodeAt(end - 1) === 0x2f) end--;
  let parts = start === end ? [] : path.slice(start, end).split("/").map(safeDecode);
  if (parts.length < 3 || !apiPrefixes.has(parts[0])) return info;
  const prefix = parts[0];
  parts = parts.slice(1);
  if (!grouplessPrefixes.has(prefix)) {
    if (parts.length < 3) return info;
    info.apiGroup = parts[0];
    parts = parts.slice(1);
  }
  info.resourceRequest = true;
  info.apiVersion = parts[0];
  parts = parts.slice(1);
  if (specialVerbs.has(parts[0])) {
    if (parts.length < 2) throw new Error(`unable to determine kind and namespace from url, ${url.pathname}`);
    info.verb = parts[0];
    parts = parts.slice(1);
  } else {
    info.verb = methodVerb(method);
  }
  if (parts[0] === "namespaces") {
    if (parts.length > 1) {
      info.namespace = parts[1];
      if (parts.length > 2 && !namespaceSubresources.has(parts[2])) parts = parts.slice(2);
    }
  }
  if (parts.length >= 3 && !specialVerbsNoSubresources.has(info.verb)) info.subresource = parts[2];
  if (parts.length >= 2) info.name = parts[1];
  if (parts.length >= 1) info.resource = parts[0];
  if (info.name === "" && info.verb === "get") {
    const q = url.searchParams;
    info.verb = isWatchParam(q.get("watch")) ? "watch" : "list";
    const n = exactNameOf(q.get("fieldSelector"));
    if (n !== undefined && validPathSegmentName(n)) info.name = n;
  }
  if (info.name === "" && info.verb === "delete") info.verb = "deletecollection";
  return info;
}

function safeDecode(s: string): string {
  // Without a '%' there is nothing to decode (decodeURIComponent would return s itself).
  if (!s.includes("%")) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** `User "u" cannot get resource "pods/log" in API group "" in the namespace "ns"` and its variants. */
export function forbiddenMessage(a: Attributes): string {
  const user = a.user.username;
  if (!a.resourceRequest) return `User ${JSON.stringify(user)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  if (a.namespace) return `User ${JSON.stringify(user)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} in the namespace ${JSON.stringify(a.namespace)}`;
  return `User ${JSON.stringify(user)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} at the cluster scope`;
}

/** The 403 Status kube-apiserver answers for a denied request. */
export function forbiddenError(a: Attributes, reason: string): StatusError {
  const msg = forbiddenMessage(a);
  return StatusError.forbidden({ group: a.apiGroup, resource: a.resource }, a.name, reason ? `${msg}: ${reason}` : msg);
}
