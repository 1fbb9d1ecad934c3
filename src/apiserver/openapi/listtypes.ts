/**
 * Structural-merge markers the built-in Go types carry (`+listType`, `+listMapKeys`,
 * `+mapType`, `+structType`) and kubernetes-types does not: facts taken from k8s.io/api, used
 * to emit x-kubernetes-list-type / x-kubernetes-list-map-keys / x-kubernetes-map-type in the
 * served OpenAPI. Patch strategies and merge keys are not here: they come from the strategic
 * merge patch table (src/apimachinery/patch/builtinpatchmeta.ts).
 *
 * Lists that upstream leaves unmarked are left unmarked here too (clients then treat them as
 * atomic, or as a map keyed by the patch merge key for server-side apply).
 */

export type ListType = "atomic" | "set" | "map";

export interface FieldMarkers {
  listType?: ListType;
  listMapKeys?: string[];
  mapType?: "atomic" | "granular";
}

const CORE = "io.k8s.api.core.v1";
const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
const APPS = "io.k8s.api.apps.v1";
const RBAC = "io.k8s.api.rbac.v1";
const APIEXT = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1";

const atomic: FieldMarkers = { listType: "atomic" };
const set: FieldMarkers = { listType: "set" };
const mapBy = (...keys: string[]): FieldMarkers => ({ listType: "map", listMapKeys: keys });
const atomicMap: FieldMarkers = { mapType: "atomic" };

const containerLists: Record<string, FieldMarkers> = {
  args: atomic,
  command: atomic,
  env: mapBy("name"),
  envFrom: atomic,
  ports: mapBy("containerPort", "protocol"),
  resizePolicy: atomic,
  volumeDevices: mapBy("devicePath"),
  volumeMounts: mapBy("mountPath"),
};

/** Definition name → property name → markers. */
export const builtinFieldMarkers: Readonly<Record<string, Readonly<Record<string, FieldMarkers>>>> = {
  [`${META}.ObjectMeta`]: { finalizers: set, managedFields: atomic, ownerReferences: mapBy("uid") },
  [`${META}.LabelSelector`]: { matchExpressions: atomic },
  [`${META}.LabelSelectorRequirement`]: { values: atomic },
  [`${META}.StatusDetails`]: { causes: atomic },
  [`${CORE}.PodSpec`]: {
    containers: mapBy("name"),
    ephemeralContainers: mapBy("name"),
    hostAliases: mapBy("ip"),
    imagePullSecrets: mapBy("name"),
    initContainers: mapBy("name"),
    nodeSelector: atomicMap,
    readinessGates: atomic,
    resourceClaims: mapBy("name"),
    schedulingGates: mapBy("name"),
    tolerations: atomic,
    topologySpreadConstraints: mapBy("topologyKey", "whenUnsatisfiable"),
    volumes: mapBy("name"),
  },
  [`${CORE}.Container`]: containerLists,
  [`${CORE}.EphemeralContainer`]: containerLists,
  [`${CORE}.PodStatus`]: {
    conditions: mapBy("type"),
    containerStatuses: atomic,
    ephemeralContainerStatuses: atomic,
    hostIPs: atomic,
    initContainerStatuses: atomic,
    podIPs: mapBy("ip"),
    resourceClaimStatuses: mapBy("name"),
  },
  [`${CORE}.ResourceRequirements`]: { claims: mapBy("name") },
  [`${CORE}.Capabilities`]: { add: atomic, drop: atomic },
  [`${CORE}.ExecAction`]: { command: atomic },
  [`${CORE}.HTTPGetAction`]: { httpHeaders: atomic },
  [`${CORE}.NodeSelector`]: { nodeSelectorTerms: atomic },
  [`${CORE}.NodeSelectorTerm`]: { matchExpressions: atomic, matchFields: atomic },
  [`${CORE}.NodeSelectorRequirement`]: { values: atomic },
  [`${CORE}.NodeAffinity`]: { preferredDuringSchedulingIgnoredDuringExecution: atomic },
  [`${CORE}.PodAffinity`]: {
    preferredDuringSchedulingIgnoredDuringExecution: atomic,
    requiredDuringSchedulingIgnoredDuringExecution: atomic,
  },
  [`${CORE}.PodAntiAffinity`]: {
    preferredDuringSchedulingIgnoredDuringExecution: atomic,
    requiredDuringSchedulingIgnoredDuringExecution: atomic,
  },
  [`${CORE}.PodAffinityTerm`]: { matchLabelKeys: atomic, mismatchLabelKeys: atomic, namespaces: atomic },
  [`${CORE}.TopologySpreadConstraint`]: { matchLabelKeys: atomic },
  [`${CORE}.PodDNSConfig`]: { nameservers: atomic, options: atomic, searches: atomic },
  [`${CORE}.PodSecurityContext`]: { supplementalGroups: atomic, sysctls: atomic },
  [`${CORE}.ServiceSpec`]: {
    clusterIPs: atomic,
    externalIPs: atomic,
    ipFamilies: atomic,
    loadBalancerSourceRanges: atomic,
    ports: mapBy("port", "protocol"),
    selector: atomicMap,
  },
  [`${CORE}.ServiceStatus`]: { conditions: mapBy("type") },
  [`${CORE}.LoadBalancerStatus`]: { ingress: atomic },
  [`${CORE}.LoadBalancerIngress`]: { ports: atomic },
  [`${CORE}.NodeSpec`]: { podCIDRs: set, taints: atomic },
  [`${CORE}.NodeStatus`]: {
    addresses: mapBy("type"),
    conditions: mapBy("type"),
    images: atomic,
    volumesAttached: atomic,
    volumesInUse: atomic,
  },
  [`${CORE}.NamespaceSpec`]: { finalizers: atomic },
  [`${CORE}.NamespaceStatus`]: { conditions: mapBy("type") },
  [`${CORE}.Endpoints`]: { subsets: atomic },
  [`${CORE}.EndpointSubset`]: { addresses: atomic, notReadyAddresses: atomic, ports: atomic },
  [`${CORE}.ConfigMapVolumeSource`]: { items: atomic },
  [`${CORE}.SecretVolumeSource`]: { items: atomic },
  [`${CORE}.ProjectedVolumeSource`]: { sources: atomic },
  [`${CORE}.LimitRangeSpec`]: { limits: atomic },
  [`${APPS}.DeploymentStatus`]: { conditions: mapBy("type") },
  [`${APPS}.ReplicaSetStatus`]: { conditions: mapBy("type") },
  [`${APPS}.StatefulSetStatus`]: { conditions: mapBy("type") },
  [`${APPS}.DaemonSetStatus`]: { conditions: mapBy("type") },
  [`${APPS}.StatefulSetSpec`]: { volumeClaimTemplates: atomic },
  [`${RBAC}.Role`]: { rules: atomic },
  [`${RBAC}.ClusterRole`]: { rules: atomic },
  [`${RBAC}.AggregationRule`]: { clusterRoleSelectors: atomic },
  [`${RBAC}.PolicyRule`]: { apiGroups: atomic, nonResourceURLs: atomic, resourceNames: atomic, resources: atomic, verbs: atomic },
  [`${RBAC}.RoleBinding`]: { subjects: atomic },
  [`${RBAC}.ClusterRoleBinding`]: { subjects: atomic },
  [`${APIEXT}.CustomResourceDefinitionSpec`]: { versions: atomic },
  [`${APIEXT}.CustomResourceDefinitionNames`]: { categories: atomic, shortNames: atomic },
  [`${APIEXT}.CustomResourceDefinitionStatus`]: { conditions: mapBy("type"), storedVersions: atomic },
  [`${APIEXT}.CustomResourceDefinitionVersion`]: { additionalPrinterColumns: atomic, selectableFields: atomic },
  ["io.k8s.api.batch.v1.JobStatus"]: { conditions: atomic },
  ["io.k8s.api.batch.v1.CronJobStatus"]: { active: atomic },
  ["io.k8s.api.policy.v1.PodDisruptionBudgetStatus"]: { conditions: mapBy("type") },
  ["io.k8s.api.discovery.v1.EndpointSlice"]: { endpoints: atomic, ports: atomic },
  ["io.k8s.api.discovery.v1.Endpoint"]: { addresses: set },
  ["io.k8s.api.authentication.v1.TokenReviewSpec"]: { audiences: atomic },
};

/** Definitions that are atomic structs (`+structType=atomic` → x-kubernetes-map-type: atomic). */
export const atomicStructs: ReadonlySet<string> = new Set([
  `${META}.LabelSelector`,
  `${CORE}.ObjectReference`,
  `${CORE}.LocalObjectReference`,
  `${CORE}.TypedLocalObjectReference`,
  `${CORE}.NodeSelector`,
  `${CORE}.NodeSelectorTerm`,
  `${CORE}.TopologySelectorTerm`,
  `${CORE}.ConfigMapKeySelector`,
  `${CORE}.SecretKeySelector`,
  `${CORE}.ObjectFieldSelector`,
  `${CORE}.ResourceFieldSelector`,
]);
