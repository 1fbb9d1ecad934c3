/**
 * The JSON types of the RBAC kinds' own fields, checked (and nulls read as Go's zero values) as
 * decoding into the Go structs does upstream: a wrong type is a 400 before any RBAC code — the
 * escalation checks, the authorizer, the aggregation loop — reads the object.
 */
import type { KubeObject } from "../../apimachinery/types.js";
import {
  checkList,
  checkScalarFields,
  checkStringList,
  checkStruct,
  FieldTypeError,
  labelSelectorValue,
  structValue,
  undecodableBody,
} from "../rest/metatypes.js";

const ruleLists = ["verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"];

function rules(kind: string, o: Record<string, unknown>): void {
  checkList(
    kind,
    "rules",
    o,
    "rules",
    "[]v1.PolicyRule",
    structValue(kind, "rules", "v1.PolicyRule", (r) => {
      for (const f of ruleLists) checkStringList("PolicyRule", `rules.${f}`, r, f);
    }),
  );
}

function aggregationRule(o: Record<string, unknown>): void {
  checkStruct("ClusterRole", "aggregationRule", o, "aggregationRule", "v1.AggregationRule", (a) => {
    const path = "aggregationRule.clusterRoleSelectors";
    checkList("AggregationRule", path, a, "clusterRoleSelectors", "[]v1.LabelSelector", labelSelectorValue("AggregationRule", path));
  });
}

function binding(kind: string, o: Record<string, unknown>): void {
  checkStruct(kind, "roleRef", o, "roleRef", "v1.RoleRef", (r) =>
    checkScalarFields("RoleRef", "roleRef", r, { apiGroup: ["string", "string"], kind: ["string", "string"], name: ["string", "string"] }),
  );
  checkList(
    kind,
    "subjects",
    o,
    "subjects",
    "[]v1.Subject",
    structValue(kind, "subjects", "v1.Subject", (s) =>
      checkScalarFields("Subject", "subjects", s, { kind: ["string", "string"], apiGroup: ["string", "string"], name: ["string", "string"], namespace: ["string", "string"] }),
    ),
  );
}

/** Checks the fields of a Role, ClusterRole, RoleBinding or ClusterRoleBinding; 400 Status otherwise. */
export function requireRBACTypes(kind: "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding", obj: KubeObject): void {
  const o = obj as Record<string, unknown>;
  try {
    if (kind === "Role" || kind === "ClusterRole") rules(kind, o);
    if (kind === "ClusterRole") aggregationRule(o);
    if (kind === "RoleBinding" || kind === "ClusterRoleBinding") binding(kind, o);
  } catch (err) {
    if (err instanceof FieldTypeError) throw undecodableBody(kind, "v1", err);
    throw err;
  }
}
