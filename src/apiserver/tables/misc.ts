/** Leases, RoleBindings / ClusterRoleBindings, and the default table (NAME, CREATED AT). */
import type { Lease } from "../../apimachinery/api/coordination/v1.js";
import type { RoleBinding, Subject } from "../../apimachinery/api/rbac/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { OBJECT_META, ageColumn, col, colText, nameColumn } from "./columns.js";
import { translateTimestampSince } from "./duration.js";
import type { PrintContext, PrintedRow, Printer } from "./types.js";

export const leasePrinter = (): Printer => ({
  columns: [nameColumn(), col("Holder", "string", "io.k8s.api.coordination.v1.LeaseSpec", "holderIdentity"), ageColumn()],
  print: (obj, ctx) => ({
    cells: [obj.metadata?.name ?? "", (obj as unknown as Lease).spec?.holderIdentity ?? "", translateTimestampSince(obj.metadata?.creationTimestamp, ctx.now)],
  }),
});

/** rbac.SubjectsStrings: user names, group names, "namespace/name" of service accounts. */
export function subjectsStrings(subjects: Subject[] | undefined): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const out = { users: [] as string[], groups: [] as string[], serviceAccounts: [] as string[] };
  for (const s of subjects ?? []) {
    if (s.kind === "User") out.users.push(s.name);
    else if (s.kind === "Group") out.groups.push(s.name);
    else if (s.kind === "ServiceAccount") out.serviceAccounts.push(`${s.namespace ?? ""}/${s.name}`);
  }
  return out;
}

export function printRoleBinding(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const rb = obj as unknown as RoleBinding;
  const { users, groups, serviceAccounts } = subjectsStrings(rb.subjects);
  return {
    cells: [
      rb.metadata?.name ?? "",
      `${rb.roleRef?.kind ?? ""}/${rb.roleRef?.name ?? ""}`,
      translateTimestampSince(rb.metadata?.creationTimestamp, ctx.now),
      users.join(", "),
      groups.join(", "),
      serviceAccounts.join(", "),
    ],
  };
}

function roleBindingPrinter(kind: "roleBinding" | "clusterRoleBinding", definition: string): Printer {
  return {
    columns: [
      nameColumn(),
      col("Role", "string", definition, "roleRef"),
      ageColumn(),
      colText("Users", "string", `Users in the ${kind}`, 1),
      colText("Groups", "string", `Groups in the ${kind}`, 1),
      colText("ServiceAccounts", "string", `ServiceAccounts in the ${kind}`, 1),
    ],
    print: printRoleBinding,
  };
}

export const roleBindingTablePrinter = (): Printer => roleBindingPrinter("roleBinding", "io.k8s.api.rbac.v1.RoleBinding");
export const clusterRoleBindingTablePrinter = (): Printer => roleBindingPrinter("clusterRoleBinding", "io.k8s.api.rbac.v1.ClusterRoleBinding");

/**
 * kube-apiserver's default table (rest.NewDefaultTableConvertor), used for kinds without a
 * printer (roles, clusterroles, customresourcedefinitions, ...): NAME and CREATED AT, the
 * latter a "date" column holding the RFC 3339 creation timestamp (kubectl shows it as is).
 */
export const defaultPrinter = (): Printer => ({
  columns: [nameColumn(), { ...col("Created At", "date", OBJECT_META, "creationTimestamp") }],
  print: (obj) => ({ cells: [obj.metadata?.name ?? "", obj.metadata?.creationTimestamp ?? null] }),
});
