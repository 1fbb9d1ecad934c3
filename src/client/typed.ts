/**
 * Typed shortcuts for the built-in resources (client-go's kubernetes.Clientset, as
 * `client.core.v1.pods(ns)`), built over any ResourceClientFactory — the HTTP client, the dynamic
 * client or the fake client all get them from `typedClients(factory)`.
 */
import type * as corev1 from "../apimachinery/api/core/v1.js";
import type * as appsv1 from "../apimachinery/api/apps/v1.js";
import type * as batchv1 from "../apimachinery/api/batch/v1.js";
import type * as coordinationv1 from "../apimachinery/api/coordination/v1.js";
import type * as eventsv1 from "../apimachinery/api/events/v1.js";
import type * as rbacv1 from "../apimachinery/api/rbac/v1.js";
import type * as apiextensionsv1 from "../apimachinery/api/apiextensions/v1.js";
import type * as discoveryv1 from "../apimachinery/api/discovery/v1.js";
import type * as policyv1 from "../apimachinery/api/policy/v1.js";
import type * as storagev1 from "../apimachinery/api/storage/v1.js";
import { defineResource, type ResourceDescriptor } from "../apimachinery/resource.js";
import type { TypedObject } from "../apimachinery/types.js";
import type { ResourceClient, ResourceClientFactory } from "./interfaces.js";

/** Descriptors of the built-in resources the typed shortcuts address, by short name. */
export const builtin = Object.freeze({
  // core/v1
  pods: defineResource<corev1.Pod>({ group: "", version: "v1", resource: "pods", kind: "Pod", namespaced: true }),
  services: defineResource<corev1.Service>({ group: "", version: "v1", resource: "services", kind: "Service", namespaced: true }),
  configMaps: defineResource<corev1.ConfigMap>({ group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true }),
  secrets: defineResource<corev1.Secret>({ group: "", version: "v1", resource: "secrets", kind: "Secret", namespaced: true }),
  namespaces: defineResource<corev1.Namespace>({ group: "", version: "v1", resource: "namespaces", kind: "Namespace", namespaced: false }),
  nodes: defineResource<corev1.Node>({ group: "", version: "v1", resource: "nodes", kind: "Node", namespaced: false }),
  events: defineResource<corev1.Event>({ group: "", version: "v1", resource: "events", kind: "Event", namespaced: true }),
  endpoints: defineResource<corev1.Endpoints>({ group: "", version: "v1", resource: "endpoints", kind: "Endpoints", namespaced: true }),
  serviceAccounts: defineResource<corev1.ServiceAccount>({ group: "", version: "v1", resource: "serviceaccounts", kind: "ServiceAccount", namespaced: true }),
  persistentVolumeClaims: defineResource<corev1.PersistentVolumeClaim>({
    group: "",
    version: "v1",
    resource: "persistentvolumeclaims",
    kind: "PersistentVolumeClaim",
    namespaced: true,
  }),
  persistentVolumes: defineResource<corev1.PersistentVolume>({ group: "", version: "v1", resource: "persistentvolumes", kind: "PersistentVolume", namespaced: false }),
  replicationControllers: defineResource<corev1.ReplicationController>({
    group: "",
    version: "v1",
    resource: "replicationcontrollers",
    kind: "ReplicationController",
    namespaced: true,
  }),
  resourceQuotas: defineResource<corev1.ResourceQuota>({ group: "", version: "v1", resource: "resourcequotas", kind: "ResourceQuota", namespaced: true }),
  limitRanges: defineResource<corev1.LimitRange>({ group: "", version: "v1", resource: "limitranges", kind: "LimitRange", namespaced: true }),
  // apps/v1
  deployments: defineResource<appsv1.Deployment>({ group: "apps", version: "v1", resource: "deployments", kind: "Deployment", namespaced: true }),
  replicaSets: defineResource<appsv1.ReplicaSet>({ group: "apps", version: "v1", resource: "replicasets", kind: "ReplicaSet", namespaced: true }),
  statefulSets: defineResource<appsv1.StatefulSet>({ group: "apps", version: "v1", resource: "statefulsets", kind: "StatefulSet", namespaced: true }),
  daemonSets: defineResource<appsv1.DaemonSet>({ group: "apps", version: "v1", resource: "daemonsets", kind: "DaemonSet", namespaced: true }),
  controllerRevisions: defineResource<appsv1.ControllerRevision>({
    group: "apps",
    version: "v1",
    resource: "controllerrevisions",
    kind: "ControllerRevision",
    namespaced: true,
  }),
  // batch/v1
  jobs: defineResource<batchv1.Job>({ group: "batch", version: "v1", resource: "jobs", kind: "Job", namespaced: true }),
  cronJobs: defineResource<batchv1.CronJob>({ group: "batch", version: "v1", resource: "cronjobs", kind: "CronJob", namespaced: true }),
  // coordination.k8s.io/v1
  leases: defineResource<coordinationv1.Lease>({ group: "coordination.k8s.io", version: "v1", resource: "leases", kind: "Lease", namespaced: true }),
  // events.k8s.io/v1
  eventsV1: defineResource<eventsv1.Event>({ group: "events.k8s.io", version: "v1", resource: "events", kind: "Event", namespaced: true }),
  // rbac.authorization.k8s.io/v1
  roles: defineResource<rbacv1.Role>({ group: "rbac.authorization.k8s.io", version: "v1", resource: "roles", kind: "Role", namespaced: true }),
  roleBindings: defineResource<rbacv1.RoleBinding>({ group: "rbac.authorization.k8s.io", version: "v1", resource: "rolebindings", kind: "RoleBinding", namespaced: true }),
  clusterRoles: defineResource<rbacv1.ClusterRole>({ group: "rbac.authorization.k8s.io", version: "v1", resource: "clusterroles", kind: "ClusterRole", namespaced: false }),
  clusterRoleBindings: defineResource<rbacv1.ClusterRoleBinding>({
    group: "rbac.authorization.k8s.io",
    version: "v1",
    resource: "clusterrolebindings",
    kind: "ClusterRoleBinding",
    namespaced: false,
  }),
  // apiextensions.k8s.io/v1
  customResourceDefinitions: defineResource<apiextensionsv1.CustomResourceDefinition>({
    group: "apiextensions.k8s.io",
    version: "v1",
    resource: "customresourcedefinitions",
    kind: "CustomResourceDefinition",
    namespaced: false,
  }),
  // discovery.k8s.io/v1
  endpointSlices: defineResource<discoveryv1.EndpointSlice>({ group: "discovery.k8s.io", version: "v1", resource: "endpointslices", kind: "EndpointSlice", namespaced: true }),
  // policy/v1
  podDisruptionBudgets: defineResource<policyv1.PodDisruptionBudget>({
    group: "policy",
    version: "v1",
    resource: "poddisruptionbudgets",
    kind: "PodDisruptionBudget",
    namespaced: true,
  }),
  // storage.k8s.io/v1
  storageClasses: defineResource<storagev1.StorageClass>({ group: "storage.k8s.io", version: "v1", resource: "storageclasses", kind: "StorageClass", namespaced: false }),
});

/** The descriptor table (GVR, kind, namespaced) of the built-in resources, as data. */
export const builtinResources: readonly ResourceDescriptor[] = Object.freeze(Object.values(builtin));

/** The built-in descriptor for a group/version and a resource or kind, if kubeloop knows it. */
export function findBuiltinResource(q: { group: string; version?: string; resource?: string; kind?: string }): ResourceDescriptor | undefined {
  return builtinResources.find(
    (r) =>
      r.group === q.group &&
      (q.version === undefined || r.version === q.version) &&
      (q.resource === undefined || r.resource === q.resource) &&
      (q.kind === undefined || r.kind === q.kind),
  );
}

type Namespaced<T extends TypedObject> = (namespace?: string) => ResourceClient<T>;
type Cluster<T extends TypedObject> = () => ResourceClient<T>;

export interface TypedClients {
  core: {
    v1: {
      pods: Namespaced<corev1.Pod>;
      services: Namespaced<corev1.Service>;
      configMaps: Namespaced<corev1.ConfigMap>;
      secrets: Namespaced<corev1.Secret>;
      namespaces: Cluster<corev1.Namespace>;
      nodes: Cluster<corev1.Node>;
      events: Namespaced<corev1.Event>;
      endpoints: Namespaced<corev1.Endpoints>;
      serviceAccounts: Namespaced<corev1.ServiceAccount>;
      persistentVolumeClaims: Namespaced<corev1.PersistentVolumeClaim>;
      persistentVolumes: Cluster<corev1.PersistentVolume>;
      replicationControllers: Namespaced<corev1.ReplicationController>;
      resourceQuotas: Namespaced<corev1.ResourceQuota>;
      limitRanges: Namespaced<corev1.LimitRange>;
    };
  };
  apps: {
    v1: {
      deployments: Namespaced<appsv1.Deployment>;
      replicaSets: Namespaced<appsv1.ReplicaSet>;
      statefulSets: Namespaced<appsv1.StatefulSet>;
      daemonSets: Namespaced<appsv1.DaemonSet>;
      controllerRevisions: Namespaced<appsv1.ControllerRevision>;
    };
  };
  batch: { v1: { jobs: Namespaced<batchv1.Job>; cronJobs: Namespaced<batchv1.CronJob> } };
  coordination: { v1: { leases: Namespaced<coordinationv1.Lease> } };
  events: { v1: { events: Namespaced<eventsv1.Event> } };
  rbac: {
    v1: {
      roles: Namespaced<rbacv1.Role>;
      roleBindings: Namespaced<rbacv1.RoleBinding>;
      clusterRoles: Cluster<rbacv1.ClusterRole>;
      clusterRoleBindings: Cluster<rbacv1.ClusterRoleBinding>;
    };
  };
  apiextensions: { v1: { customResourceDefinitions: Cluster<apiextensionsv1.CustomResourceDefinition> } };
  discovery: { v1: { endpointSlices: Namespaced<discoveryv1.EndpointSlice> } };
  policy: { v1: { podDisruptionBudgets: Namespaced<policyv1.PodDisruptionBudget> } };
}

/**
 * The typed shortcuts over a factory. `namespace` "" (the default) addresses all namespaces for
 * list/watch, as client-go's `Pods("")`.
 */
export function typedClients(factory: ResourceClientFactory): TypedClients {
  const ns =
    <T extends TypedObject>(d: ResourceDescriptor<T>): Namespaced<T> =>
    (namespace = "") =>
      factory.resource(d, namespace);
  const cl =
    <T extends TypedObject>(d: ResourceDescriptor<T>): Cluster<T> =>
    () =>
      factory.resource(d);
  const b = builtin;
  return {
    core: {
      v1: {
        pods: ns(b.pods),
        services: ns(b.services),
        configMaps: ns(b.configMaps),
        secrets: ns(b.secrets),
        namespaces: cl(b.namespaces),
        nodes: cl(b.nodes),
        events: ns(b.events),
        endpoints: ns(b.endpoints),
        serviceAccounts: ns(b.serviceAccounts),
        persistentVolumeClaims: ns(b.persistentVolumeClaims),
        persistentVolumes: cl(b.persistentVolumes),
        replicationControllers: ns(b.replicationControllers),
        resourceQuotas: ns(b.resourceQuotas),
        limitRanges: ns(b.limitRanges),
      },
    },
    apps: {
      v1: {
        deployments: ns(b.deployments),
        replicaSets: ns(b.replicaSets),
        statefulSets: ns(b.statefulSets),
        daemonSets: ns(b.daemonSets),
        controllerRevisions: ns(b.controllerRevisions),
      },
    },
    batch: { v1: { jobs: ns(b.jobs), cronJobs: ns(b.cronJobs) } },
    coordination: { v1: { leases: ns(b.leases) } },
    events: { v1: { events: ns(b.eventsV1) } },
    rbac: {
      v1: {
        roles: ns(b.roles),
        roleBindings: ns(b.roleBindings),
        clusterRoles: cl(b.clusterRoles),
        clusterRoleBindings: cl(b.clusterRoleBindings),
      },
    },
    apiextensions: { v1: { customResourceDefinitions: cl(b.customResourceDefinitions) } },
    discovery: { v1: { endpointSlices: ns(b.endpointSlices) } },
    policy: { v1: { podDisruptionBudgets: ns(b.podDisruptionBudgets) } },
  };
}
