/**
 * Typed shortcuts for the built-in resources (client-go's kubernetes.Clientset, as
 * `client.core.v1.pods(ns)`), built over any ResourceClientFactory — the HTTP client, the dynamic
 * client or the fake client all get them from `typedClients(factory)`.
 */
import type * as corev1 from "kubernetes-types/core/v1.js";
import type * as appsv1 from "kubernetes-types/apps/v1.js";
import type * as batchv1 from "kubernetes-types/batch/v1.js";
import type * as coordinationv1 from "kubernetes-types/coordination/v1.js";
import type * as eventsv1 from "kubernetes-types/events/v1.js";
import type * as rbacv1 from "kubernetes-types/rbac/v1.js";
import type * as apiextensionsv1 from "kubernetes-types/apiextensions/v1.js";
import type * as discoveryv1 from "kubernetes-types/discovery/v1.js";
import type * as policyv1 from "kubernetes-types/policy/v1.js";
import type { TypedObject } from "../apimachinery/types.js";
import type { ResourceClient, ResourceClientFactory, ResourceDescriptor } from "./interfaces.js";

function rd(group: string, version: string, resource: string, kind: string, namespaced: boolean): ResourceDescriptor {
  return Object.freeze({ group, version, resource, kind, namespaced });
}

/** Descriptors of the built-in resources the typed shortcuts address, by short name. */
export const builtin = Object.freeze({
  // core/v1
  pods: rd("", "v1", "pods", "Pod", true),
  services: rd("", "v1", "services", "Service", true),
  configMaps: rd("", "v1", "configmaps", "ConfigMap", true),
  secrets: rd("", "v1", "secrets", "Secret", true),
  namespaces: rd("", "v1", "namespaces", "Namespace", false),
  nodes: rd("", "v1", "nodes", "Node", false),
  events: rd("", "v1", "events", "Event", true),
  endpoints: rd("", "v1", "endpoints", "Endpoints", true),
  serviceAccounts: rd("", "v1", "serviceaccounts", "ServiceAccount", true),
  persistentVolumeClaims: rd("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true),
  persistentVolumes: rd("", "v1", "persistentvolumes", "PersistentVolume", false),
  replicationControllers: rd("", "v1", "replicationcontrollers", "ReplicationController", true),
  resourceQuotas: rd("", "v1", "resourcequotas", "ResourceQuota", true),
  limitRanges: rd("", "v1", "limitranges", "LimitRange", true),
  // apps/v1
  deployments: rd("apps", "v1", "deployments", "Deployment", true),
  replicaSets: rd("apps", "v1", "replicasets", "ReplicaSet", true),
  statefulSets: rd("apps", "v1", "statefulsets", "StatefulSet", true),
  daemonSets: rd("apps", "v1", "daemonsets", "DaemonSet", true),
  controllerRevisions: rd("apps", "v1", "controllerrevisions", "ControllerRevision", true),
  // batch/v1
  jobs: rd("batch", "v1", "jobs", "Job", true),
  cronJobs: rd("batch", "v1", "cronjobs", "CronJob", true),
  // coordination.k8s.io/v1
  leases: rd("coordination.k8s.io", "v1", "leases", "Lease", true),
  // events.k8s.io/v1
  eventsV1: rd("events.k8s.io", "v1", "events", "Event", true),
  // rbac.authorization.k8s.io/v1
  roles: rd("rbac.authorization.k8s.io", "v1", "roles", "Role", true),
  roleBindings: rd("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true),
  clusterRoles: rd("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false),
  clusterRoleBindings: rd("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", false),
  // apiextensions.k8s.io/v1
  customResourceDefinitions: rd("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", false),
  // discovery.k8s.io/v1
  endpointSlices: rd("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", true),
  // policy/v1
  podDisruptionBudgets: rd("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true),
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
    <T extends TypedObject>(d: ResourceDescriptor): Namespaced<T> =>
    (namespace = "") =>
      factory.resource<T>(d, namespace);
  const cl =
    <T extends TypedObject>(d: ResourceDescriptor): Cluster<T> =>
    () =>
      factory.resource<T>(d);
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
