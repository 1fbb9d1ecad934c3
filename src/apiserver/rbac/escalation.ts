/**
 * Privilege-escalation prevention for RBAC writes (upstream's policybased storages):
 *
 * - Roles / ClusterRoles: the writer must already hold every permission the rules grant, unless
 *   it is in system:masters or may `escalate` the role; a ClusterRole with an aggregationRule
 *   needs full authority (cluster-admin-like) instead.
 * - RoleBindings / ClusterRoleBindings: the writer must be in system:masters, may `bind` the
 *   referenced role, or hold every permission of the referenced role.
 *
 * Writes without a user on their context are the server's own (bootstrap, aggregation) and pass.
 */
import type { AggregationRule, PolicyRule, RoleRef } from "../../apimachinery/api/rbac/v1.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { SystemMasters, type UserInfo } from "../auth/user.js";
import type { ResourceHooks, WriteContext } from "../rest/context.js";
import type { Attributes } from "./attributes.js";
import type { Authorizer } from "./authorizer.js";
import type { RuleResolver } from "./resolver.js";
import { RuleResolutionError } from "./resolver.js";
import { compactRules, compactString, covers } from "./rules.js";
import { rbacGroup } from "./strategies.js";

const fullAuthority: PolicyRule[] = [
  { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
  { verbs: ["*"], nonResourceURLs: ["*"] },
];

/** The user a write runs as (set by the HTTP handler). */
export type UserOf = (ctx: WriteContext) => UserInfo | undefined;

const goQ = (xs: readonly string[]) => `[${xs.map((x) => JSON.stringify(x)).join(" ")}]`;

/** ConfirmNoEscalation: an Error describing the missing permissions, or undefined. */
export function confirmNoEscalation(resolver: RuleResolver, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const owned = resolver.rulesFor(user, namespace);
  const c = covers(owned.rules, rules);
  if (c.covered) return undefined;
  const missing = [...new Set(compactRules(c.missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(user.username)} (groups=${goQ(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${missing.join("\n")}`;
  if (owned.errors.length) msg += `; resolution errors: [${owned.errors.map((e) => e.message).join(" ")}]`;
  return msg;
}

function escalationAllowed(user: UserInfo): boolean {
  return user.groups.includes(SystemMasters);
}

function attrs(user: UserInfo, verb: string, resource: string, namespace: string, name: string): Attributes {
  return { user, verb, resourceRequest: true, path: "", apiGroup: rbacGroup, apiVersion: "", namespace, resource, subresource: "", name };
}

/** Whether only the fields the garbage collector touches changed (IsOnlyMutatingGCFields). */
function onlyGCFields(obj: KubeObject, old: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { ownerReferences: _o, finalizers: _f, resourceVersion: _r, managedFields: _m, generation: _g, ...meta } = o.metadata ?? {};
    return JSON.stringify({ ...o, metadata: meta });
  };
  return strip(obj) === strip(old);
}

export interface EscalationDeps {
  resolver: RuleResolver;
  authorizer: Authorizer;
  userOf: UserOf;
  /** Waits until the RBAC cache reflects completed writes. */
  synced: () => Promise<void>;
}

function roleHooks(deps: EscalationDeps, resource: "roles" | "clusterroles"): ResourceHooks {
  const check = async (obj: KubeObject, ctx: WriteContext) => {
    const user = deps.userOf(ctx);
    if (!user || escalationAllowed(user)) return;
    await deps.synced();
    const ns = resource === "roles" ? (obj.metadata?.namespace ?? "") : "";
    const name = obj.metadata?.name ?? "";
    if (deps.authorizer.authorize(attrs(user, "escalate", resource, ns, name)).allowed) return;
    const gr = { group: rbacGroup, resource };
    const agg = (obj as { aggregationRule?: AggregationRule }).aggregationRule;
    if (resource === "clusterroles" && agg != null) {
      if (confirmNoEscalation(deps.resolver, user, ns, fullAuthority)) throw StatusError.forbidden(gr, name, "must have cluster-admin privileges to use the aggregationRule");
      return;
    }
    const msg = confirmNoEscalation(deps.resolver, user, ns, (obj as { rules?: PolicyRule[] }).rules ?? []);
    if (msg) throw StatusError.forbidden(gr, name, msg);
  };
  return {
    beforeCreate: (obj, ctx) => check(obj, ctx),
    beforeUpdate: (obj, old, ctx) => (onlyGCFields(obj, old) ? undefined : check(obj, ctx)),
  };
}

function bindingHooks(deps: EscalationDeps, resource: "rolebindings" | "clusterrolebindings"): ResourceHooks {
  const check = async (obj: KubeObject, ctx: WriteContext) => {
    const user = deps.userOf(ctx);
    if (!user || escalationAllowed(user)) return;
    await deps.synced();
    const ns = resource === "rolebindings" ? (obj.metadata?.namespace ?? "") : "";
    const ref = (obj as { roleRef?: RoleRef }).roleRef ?? { apiGroup: "", kind: "", name: "" };
    const roleResource = ref.kind === "Role" ? "roles" : "clusterroles";
    if (deps.authorizer.authorize(attrs(user, "bind", roleResource, ns, ref.name)).allowed) return;
    let rules: readonly PolicyRule[];
    try {
      rules = deps.resolver.roleReferenceRules(ref, ns);
    } catch (err) {
      if (err instanceof RuleResolutionError) throw StatusError.internalError(err);
      throw err;
    }
    const msg = confirmNoEscalation(deps.resolver, user, ns, rules);
    if (msg) throw StatusError.forbidden({ group: rbacGroup, resource }, obj.metadata?.name ?? "", msg);
  };
  return {
    beforeCreate: (obj, ctx) => check(obj, ctx),
    beforeUpdate: (obj, old, ctx) => (onlyGCFields(obj, old) ? undefined : check(obj, ctx)),
  };
}

/** Resource hooks by "<group>/<resource>" for the four RBAC resources. */
export function escalationHooks(deps: EscalationDeps): Record<string, ResourceHooks> {
  return {
    [`${rbacGroup}/roles`]: roleHooks(deps, "roles"),
    [`${rbacGroup}/clusterroles`]: roleHooks(deps, "clusterroles"),
    [`${rbacGroup}/rolebindings`]: bindingHooks(deps, "rolebindings"),
    [`${rbacGroup}/clusterrolebindings`]: bindingHooks(deps, "clusterrolebindings"),
  };
}
