/**
 * The bootstrap RBAC policy kube-apiserver creates at start (plugin/pkg/auth/authorizer/rbac/
 * bootstrappolicy): the user-facing roles cluster-admin, admin, edit, view (the last three
 * aggregated from the system:aggregate-to-* roles), the discovery, basic-user and
 * public-info-viewer roles, and their bindings. Data transcribed from upstream's testdata.
 *
 * Reconciliation at start (the rbac/bootstrap-roles post-start hook): missing objects are
 * created; existing ones annotated `rbac.authorization.kubernetes.io/autoupdate: "true"` get the
 * bootstrap permissions / subjects they lack added (nothing is removed).
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Subject } from "../../apimachinery/api/rbac/v1.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { defaultWriteContext } from "../rest/context.js";
import type { ResourceStore } from "../rest/store.js";
import { covers } from "./rules.js";
import { rbacGroup } from "./strategies.js";

export const autoUpdateAnnotation = "rbac.authorization.kubernetes.io/autoupdate";
const bootstrapLabels = { "kubernetes.io/bootstrapping": "rbac-defaults" };
const read = ["get", "list", "watch"];
const write = ["create", "delete", "deletecollection", "patch", "update"];
const readWrite = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

const r = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
});
const url = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

function clusterRole(name: string, rules: PolicyRule[] | undefined, extra: { labels?: Record<string, string>; aggregateFrom?: string } = {}): ClusterRole {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name, labels: { ...bootstrapLabels, ...extra.labels }, annotations: { [autoUpdateAnnotation]: "true" } },
    ...(extra.aggregateFrom ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [extra.aggregateFrom]: "true" } }] } } : {}),
    ...(rules ? { rules } : {}),
  };
}

const aggToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin";
const aggToEdit = "rbac.authorization.k8s.io/aggregate-to-edit";
const aggToView = "rbac.authorization.k8s.io/aggregate-to-view";

export function bootstrapClusterRoles(): ClusterRole[] {
  return [
    clusterRole("cluster-admin", [r(["*"], ["*"], ["*"]), url(["*"], ["*"])]),
    clusterRole("admin", undefined, { aggregateFrom: aggToAdmin }),
    clusterRole("edit", undefined, { aggregateFrom: aggToEdit, labels: { [aggToAdmin]: "true" } }),
    clusterRole("view", undefined, { aggregateFrom: aggToView, labels: { [aggToEdit]: "true" } }),
    clusterRole(
      "system:aggregate-to-admin",
      [r(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews"]), r(readWrite, [rbacGroup], ["rolebindings", "roles"])],
      { labels: { [aggToAdmin]: "true" } },
    ),
    clusterRole(
      "system:aggregate-to-edit",
      [
        r(read, [""], ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"]),
        r(["impersonate"], [""], ["serviceaccounts"]),
        r(write, [""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"]),
        r(["create"], [""], ["pods/eviction"]),
        r(write, [""], ["configmaps", "events", "persistentvolumeclaims", "replicationcontrollers", "replicationcontrollers/scale", "secrets", "serviceaccounts", "services", "services/proxy"]),
        r(["create"], [""], ["serviceaccounts/token"]),
        r(write, ["apps"], ["daemonsets", "deployments", "deployments/rollback", "deployments/scale", "replicasets", "replicasets/scale", "statefulsets", "statefulsets/scale"]),
        r(write, ["autoscaling"], ["horizontalpodautoscalers"]),
        r(write, ["batch"], ["cronjobs", "jobs"]),
        r(write, ["extensions"], ["daemonsets", "deployments", "deployments/rollback", "deployments/scale", "ingresses", "networkpolicies", "replicasets", "replicasets/scale", "replicationcontrollers/scale"]),
        r(write, ["policy"], ["poddisruptionbudgets"]),
        r(write, ["networking.k8s.io"], ["ingresses", "networkpolicies"]),
        r(readWrite, ["coordination.k8s.io"], ["leases"]),
      ],
      { labels: { [aggToEdit]: "true" } },
    ),
    clusterRole(
      "system:aggregate-to-view",
      [
        r(read, [""], ["configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services", "services/status"]),
        r(read, [""], ["bindings", "events", "limitranges", "namespaces/status", "pods/log", "pods/status", "replicationcontrollers/status", "resourcequotas", "resourcequotas/status"]),
        r(read, [""], ["namespaces"]),
        r(read, ["discovery.k8s.io"], ["endpointslices"]),
        r(read, ["apps"], ["controllerrevisions", "daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status", "replicasets", "replicasets/scale", "replicasets/status", "statefulsets", "statefulsets/scale", "statefulsets/status"]),
        r(read, ["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
        r(read, ["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"]),
        r(read, ["extensions"], ["daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status", "ingresses", "ingresses/status", "networkpolicies", "replicasets", "replicasets/scale", "replicasets/status", "replicationcontrollers/scale"]),
        r(read, ["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
        r(read, ["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"]),
      ],
      { labels: { [aggToView]: "true" } },
    ),
    // metrics-server's role (its manifest installs it beside the APIService; the metrics API is
    // served by this server): reading metrics.k8s.io, aggregated into admin, edit and view.
    clusterRole("system:aggregated-metrics-reader", [r(read, ["metrics.k8s.io"], ["pods", "nodes"])], {
      labels: { "k8s-app": "metrics-server", [aggToAdmin]: "true", [aggToEdit]: "true", [aggToView]: "true" },
    }),
    clusterRole("system:auth-delegator", [r(["create"], ["authentication.k8s.io"], ["tokenreviews"]), r(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"])]),
    clusterRole("system:basic-user", [
      r(["create"], ["authorization.k8s.io"], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
      r(["create"], ["authentication.k8s.io"], ["selfsubjectreviews"]),
    ]),
    clusterRole("system:discovery", [url(["get"], ["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"])]),
    clusterRole("system:monitoring", [url(["get"], ["/healthz", "/healthz/*", "/livez", "/livez/*", "/metrics", "/metrics/slis", "/readyz", "/readyz/*"])]),
    clusterRole("system:public-info-viewer", [url(["get"], ["/healthz", "/livez", "/readyz", "/version", "/version/"])]),
  ];
}

const group = (name: string): Subject => ({ kind: "Group", apiGroup: rbacGroup, name });

function binding(name: string, role: string, subjects: Subject[]): ClusterRoleBinding {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name, labels: { ...bootstrapLabels }, annotations: { [autoUpdateAnnotation]: "true" } },
    roleRef: { apiGroup: rbacGroup, kind: "ClusterRole", name: role },
    subjects,
  };
}

export function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    binding("cluster-admin", "cluster-admin", [group("system:masters")]),
    binding("system:basic-user", "system:basic-user", [group("system:authenticated")]),
    binding("system:discovery", "system:discovery", [group("system:authenticated")]),
    binding("system:monitoring", "system:monitoring", [group("system:monitoring")]),
    binding("system:public-info-viewer", "system:public-info-viewer", [group("system:authenticated"), group("system:unauthenticated")]),
  ];
}

const systemContext = () => defaultWriteContext({ fieldManager: "kube-apiserver" });

const autoUpdates = (o: KubeObject) => o.metadata?.annotations?.[autoUpdateAnnotation] !== "false";

async function ensure(store: ResourceStore, want: KubeObject, reconcile: (cur: KubeObject) => KubeObject | undefined): Promise<void> {
  const name = want.metadata!.name!;
  let cur: KubeObject | undefined;
  try {
    cur = await store.get(undefined, name);
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 404)) throw err;
  }
  if (!cur) {
    try {
      await store.create(undefined, structuredClone(want), systemContext());
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
    return;
  }
  if (!autoUpdates(cur)) return;
  const next = reconcile(cur);
  if (next) await store.update(undefined, name, () => next, systemContext());
}

function mergeMeta(cur: KubeObject, want: KubeObject): KubeObject["metadata"] {
  return {
    ...cur.metadata,
    labels: { ...want.metadata?.labels, ...cur.metadata?.labels },
    annotations: { ...want.metadata?.annotations, ...cur.metadata?.annotations },
  };
}

/** Creates or reconciles the bootstrap ClusterRoles and ClusterRoleBindings. */
export async function ensureBootstrapPolicy(stores: { clusterRoles: ResourceStore; clusterRoleBindings: ResourceStore }): Promise<void> {
  for (const want of bootstrapClusterRoles()) {
    await ensure(stores.clusterRoles, want as unknown as KubeObject, (curObj) => {
      const cur = curObj as unknown as ClusterRole;
      const missing = covers(cur.rules ?? [], want.rules ?? []).covered ? [] : (want.rules ?? []).filter((w) => !covers(cur.rules ?? [], [w]).covered);
      const aggregation = cur.aggregationRule ?? want.aggregationRule;
      if (missing.length === 0 && aggregation === cur.aggregationRule) return undefined;
      return { ...curObj, metadata: mergeMeta(curObj, want as unknown as KubeObject), rules: [...(cur.rules ?? []), ...missing], ...(aggregation ? { aggregationRule: aggregation } : {}) } as KubeObject;
    });
  }
  for (const want of bootstrapClusterRoleBindings()) {
    await ensure(stores.clusterRoleBindings, want as unknown as KubeObject, (curObj) => {
      const cur = curObj as unknown as ClusterRoleBinding;
      const have = cur.subjects ?? [];
      const missing = (want.subjects ?? []).filter((s) => !have.some((h) => h.kind === s.kind && h.name === s.name && (h.namespace ?? "") === (s.namespace ?? "")));
      if (missing.length === 0) return undefined;
      return { ...curObj, metadata: mergeMeta(curObj, want as unknown as KubeObject), subjects: [...have, ...missing] } as KubeObject;
    });
  }
}
