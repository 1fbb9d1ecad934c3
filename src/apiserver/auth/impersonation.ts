/**
 * Impersonation (Impersonate-User, Impersonate-Group, Impersonate-Uid, Impersonate-Extra-<key>),
 * as kube-apiserver's impersonation filter: each requested attribute needs the verb
 * `impersonate` on users / serviceaccounts / groups / uids / userextras/<key>; the resulting
 * user gets system:authenticated (or system:unauthenticated for system:anonymous) unless the
 * groups say otherwise, and a ServiceAccount without explicit groups gets its fixed groups.
 */
import type { IncomingMessage } from "node:http";
import { StatusError } from "../../apimachinery/errors.js";
import { forbiddenError, type Attributes } from "../rbac/attributes.js";
import type { Decision } from "../rbac/authorizer.js";
import { AllAuthenticated, AllUnauthenticated, Anonymous, parseServiceAccountUsername, serviceAccountGroups, serviceAccountUsername, type UserInfo } from "./user.js";

const userHeader = "impersonate-user";
const groupHeader = "impersonate-group";
const uidHeader = "impersonate-uid";
const extraPrefix = "impersonate-extra-";
/** The prefix every header above shares. */
const headerPrefix = "impersonate-";

type ImpersonationRequest =
  | { kind: "User"; name: string }
  | { kind: "ServiceAccount"; namespace: string; name: string }
  | { kind: "Group"; name: string }
  | { kind: "UserExtra"; key: string; value: string }
  | { kind: "UID"; uid: string };

function unescapeExtraKey(k: string): string {
  try {
    return decodeURIComponent(k);
  } catch {
    return k;
  }
}

function describe(r: ImpersonationRequest): string {
  switch (r.kind) {
    case "User":
    case "Group":
      return `{${r.kind} ${r.name}}`;
    case "ServiceAccount":
      return `{ServiceAccount ${r.namespace} ${r.name}}`;
    case "UserExtra":
      return `{UserExtra ${r.value} ${r.key}}`;
    case "UID":
      return `{UID ${r.uid}}`;
  }
}

/** Whether any Impersonate-* header is present (the common case, none, skips headersDistinct). */
function hasImpersonationHeaders(req: IncomingMessage): boolean {
  for (const name in req.headers) if (name.startsWith(headerPrefix)) return true;
  return false;
}

function requestsOf(req: IncomingMessage): { list: ImpersonationRequest[]; groupsSpecified: boolean } {
  if (!hasImpersonationHeaders(req)) return { list: [], groupsSpecified: false };
  const headers = req.headersDistinct;
  const list: ImpersonationRequest[] = [];
  const user = headers[userHeader]?.[0] ?? "";
  if (user) {
    const sa = parseServiceAccountUsername(user);
    list.push(sa ? { kind: "ServiceAccount", ...sa } : { kind: "User", name: user });
  }
  const groups = headers[groupHeader] ?? [];
  for (const g of groups) list.push({ kind: "Group", name: g });
  let hasExtra = false;
  for (const [name, values] of Object.entries(headers)) {
    if (!name.startsWith(extraPrefix) || !values) continue;
    hasExtra = true;
    const key = unescapeExtraKey(name.slice(extraPrefix.length).toLowerCase());
    for (const v of values) list.push({ kind: "UserExtra", key, value: v });
  }
  const uid = headers[uidHeader]?.[0] ?? "";
  if (uid) list.push({ kind: "UID", uid });
  if ((groups.length > 0 || hasExtra || uid) && !user) {
    throw StatusError.internalError(new Error(`requested [${list.map(describe).join(" ")}] without impersonating a user`));
  }
  return { list, groupsSpecified: groups.length > 0 };
}

/**
 * The user to act as: `requestor` itself when no impersonation header is present. Throws a
 * 403 StatusError when the requestor may not impersonate what it asked for.
 */
export function impersonate(req: IncomingMessage, requestor: UserInfo, authorize: (a: Attributes) => Decision): UserInfo {
  const { list, groupsSpecified } = requestsOf(req);
  if (list.length === 0) return requestor;
  let username = "";
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  let uid = "";
  for (const r of list) {
    const attrs: Attributes = {
      user: requestor,
      verb: "impersonate",
      resourceRequest: true,
      path: "",
      apiGroup: r.kind === "UserExtra" || r.kind === "UID" ? "authentication.k8s.io" : "",
      apiVersion: "v1",
      namespace: "",
      resource: "",
      subresource: "",
      name: "",
    };
    switch (r.kind) {
      case "ServiceAccount":
        attrs.resource = "serviceaccounts";
        attrs.namespace = r.namespace;
        attrs.name = r.name;
        username = serviceAccountUsername(r.namespace, r.name);
        if (!groupsSpecified) groups = serviceAccountGroups(r.namespace);
        break;
      case "User":
        attrs.resource = "users";
        attrs.name = r.name;
        username = r.name;
        break;
      case "Group":
        attrs.resource = "groups";
        attrs.name = r.name;
        groups.push(r.name);
        break;
      case "UserExtra":
        attrs.resource = "userextras";
        attrs.subresource = r.key;
        attrs.name = r.value;
        (extra[r.key] ??= []).push(r.value);
        break;
      case "UID":
        attrs.resource = "uids";
        attrs.name = r.uid;
        uid = r.uid;
        break;
    }
    const d = authorize(attrs);
    if (!d.allowed) throw forbiddenError(attrs, d.reason);
  }
  if (username !== Anonymous) {
    if (!groups.some((g) => g === AllAuthenticated || g === AllUnauthenticated)) groups.push(AllAuthenticated);
  } else if (!groups.includes(AllUnauthenticated)) {
    groups.push(AllUnauthenticated);
  }
  const user: UserInfo = { username, groups };
  if (uid) user.uid = uid;
  if (Object.keys(extra).length) user.extra = extra;
  return user;
}
