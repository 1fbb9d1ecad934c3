/**
 * The rule resolver (upstream's DefaultRuleResolver): which rules apply to a user in a
 * namespace — every ClusterRoleBinding naming the user, then the RoleBindings of the namespace —
 * with a describer of where each rule came from (for "RBAC: allowed by ..." reasons) and the
 * errors met on the way (a binding to a missing role).
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject } from "../../apimachinery/api/rbac/v1.js";
import { parseServiceAccountUsername, type UserInfo } from "../auth/user.js";

/** Read access to the RBAC objects (a cache kept in step with storage, or fixed lists in tests). */
export interface RbacObjects {
  clusterRoleBindings(): readonly ClusterRoleBinding[];
  roleBindings(namespace: string): readonly RoleBinding[];
  role(namespace: string, name: string): Role | undefined;
  clusterRole(name: string): ClusterRole | undefined;
}

export class RuleResolutionError extends Error {}

/** Where a rule came from. */
export type RuleSource =
  | { kind: "ClusterRoleBinding"; binding: ClusterRoleBinding; subject: Subject }
  | { kind: "RoleBinding"; binding: RoleBinding; subject: Subject };

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === "ServiceAccount") return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}

export function describeSource(src: RuleSource): string {
  const b = src.binding;
  const name = src.kind === "RoleBinding" ? `${b.metadata?.name ?? ""}/${b.metadata?.namespace ?? ""}` : (b.metadata?.name ?? "");
  return `${src.kind} ${JSON.stringify(name)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(src.subject, src.kind === "RoleBinding" ? (b.metadata?.namespace ?? "") : "")}`;
}

export function appliesToUser(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case "User":
      return user.username === subject.name;
    case "Group":
      return user.groups.includes(subject.name);
    case "ServiceAccount": {
      const ns = subject.namespace || namespace;
      if (!ns) return false;
      const sa = parseServiceAccountUsername(user.username);
      return sa !== undefined && sa.namespace === ns && sa.name === subject.name;
    }
    default:
      return false;
  }
}

function appliesTo(user: UserInfo, subjects: readonly Subject[] | undefined, namespace: string): Subject | undefined {
  return (subjects ?? []).find((s) => appliesToUser(user, s, namespace));
}

/** Return false to stop visiting. */
export type RuleVisitor = (source: RuleSource | undefined, rule: PolicyRule | undefined, err: RuleResolutionError | undefined) => boolean;

export class RuleResolver {
  constructor(private readonly objects: RbacObjects) {}

  /** The rules a role reference grants; throws RuleResolutionError for a missing role. */
  roleReferenceRules(ref: RoleRef, namespace: string): readonly PolicyRule[] {
    if (ref.kind === "Role") {
      const r = this.objects.role(namespace, ref.name);
      if (!r) throw new RuleResolutionError(`role.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`);
      return r.rules ?? [];
    }
    if (ref.kind === "ClusterRole") {
      const r = this.objects.clusterRole(ref.name);
      if (!r) throw new RuleResolutionError(`clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`);
      return r.rules ?? [];
    }
    throw new RuleResolutionError(`unsupported role reference kind: ${JSON.stringify(ref.kind)}`);
  }

  visitRulesFor(user: UserInfo, namespace: string, visit: RuleVisitor): void {
    for (const b of this.objects.clusterRoleBindings()) {
      const subject = appliesTo(user, b.subjects, "");
      if (!subject) continue;
      let rules: readonly PolicyRule[];
      try {
        rules = this.roleReferenceRules(b.roleRef, "");
      } catch (err) {
        if (!(err instanceof RuleResolutionError)) throw err;
        if (!visit(undefined, undefined, err)) return;
        continue;
      }
      const src: RuleSource = { kind: "ClusterRoleBinding", binding: b, subject };
      for (const r of rules) if (!visit(src, r, undefined)) return;
    }
    if (!namespace) return;
    for (const b of this.objects.roleBindings(namespace)) {
      const subject = appliesTo(user, b.subjects, namespace);
      if (!subject) continue;
      let rules: readonly PolicyRule[];
      try {
        rules = this.roleReferenceRules(b.roleRef, namespace);
      } catch (err) {
        if (!(err instanceof RuleResolutionError)) throw err;
        if (!visit(undefined, undefined, err)) return;
        continue;
      }
      const src: RuleSource = { kind: "RoleBinding", binding: b, subject };
      for (const r of rules) if (!visit(src, r, undefined)) return;
    }
  }

  /** Every rule that applies, and the resolution errors (the list may then be incomplete). */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: RuleResolutionError[] } {
    const rules: PolicyRule[] = [];
    const errors: RuleResolutionError[] = [];
    this.visitRulesFor(user, namespace, (_src, rule, err) => {
      if (rule) rules.push(rule);
      if (err) errors.push(err);
      return true;
    });
    return { rules, errors };
  }
}

/** Fixed lists of RBAC objects (tests, or a snapshot). */
export class StaticRbacObjects implements RbacObjects {
  constructor(
    private readonly data: {
      roles?: readonly Role[];
      clusterRoles?: readonly ClusterRole[];
      roleBindings?: readonly RoleBinding[];
      clusterRoleBindings?: readonly ClusterRoleBinding[];
    },
  ) {}
  clusterRoleBindings(): readonly ClusterRoleBinding[] {
    return this.data.clusterRoleBindings ?? [];
  }
  roleBindings(namespace: string): readonly RoleBinding[] {
    return (this.data.roleBindings ?? []).filter((b) => b.metadata?.namespace === namespace);
  }
  role(namespace: string, name: string): Role | undefined {
    return (this.data.roles ?? []).find((r) => r.metadata?.namespace === namespace && r.metadata?.name === name);
  }
  clusterRole(name: string): ClusterRole | undefined {
    return (this.data.clusterRoles ?? []).find((r) => r.metadata?.name === name);
  }
}
