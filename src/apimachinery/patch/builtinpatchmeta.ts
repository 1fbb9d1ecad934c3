/**
 * Patch metadata of the built-in kinds, as data.
 *
 * `builtinPatchTypes` is keyed by OpenAPI definition name. Each entry lists, for one type, the
 * fields that carry a `patchStrategy` / `patchMergeKey` struct tag upstream
 * (staging/src/k8s.io/api/<group>/<version>/types.go), and every field through which such a
 * field is reachable, with `type` naming the field's definition (for lists: the element's).
 * A field entry describes a list when it has a merge key or its strategy includes "merge";
 * otherwise (no strategy, or "retainKeys"/"replace" alone) it describes a struct.
 *
 * Fields without tags are absent: strategic merge patch replaces such lists and merges such
 * maps, which is also what an absent entry means. In particular these carry no patch tags
 * upstream (lists replaced wholesale): PodSpec.tolerations, Container.envFrom,
 * Container.resizePolicy, PodSpec.readinessGates, NodeSpec.taints, Endpoints.subsets,
 * EndpointSlice.endpoints, RBAC rules and subjects, CertificateSigningRequest and
 * CustomResourceDefinition conditions (listType=map only), ServiceAccount.imagePullSecrets.
 *
 * Readers: the API server (strategic merge patch of built-in kinds, via `patchMetaForKind`) and
 * the OpenAPI generator (x-kubernetes-patch-strategy / x-kubernetes-patch-merge-key, reading the
 * table directly).
 */
import { deepFreeze } from "../deepcopy.js";
import type { PatchMeta } from "./strategicpatch.js";

export interface BuiltinFieldPatchInfo {
  /** "merge", "replace", "retainKeys" or "merge,retainKeys". */
  readonly patchStrategy?: string;
  readonly patchMergeKey?: string;
  /** Definition name of the field's type (of the element type for lists), when it matters. */
  readonly type?: string;
}

export type BuiltinPatchTypeTable = Readonly<Record<string, Readonly<Record<string, BuiltinFieldPatchInfo>>>>;

const META = "io.k8s.apimachinery.pkg.apis.meta.v1.";
const CORE = "io.k8s.api.core.v1.";
const APPS = "io.k8s.api.apps.v1.";
const BATCH = "io.k8s.api.batch.v1.";
const ADMISSION = "io.k8s.api.admissionregistration.v1.";

const OBJECT_META = `${META}ObjectMeta`;
const POD_TEMPLATE_SPEC = `${CORE}PodTemplateSpec`;

const merge = (patchMergeKey: string, type?: string): BuiltinFieldPatchInfo =>
  type === undefined ? { patchStrategy: "merge", patchMergeKey } : { patchStrategy: "merge", patchMergeKey, type };
const mergeRetainKeys = (patchMergeKey: string, type?: string): BuiltinFieldPatchInfo =>
  type === undefined ? { patchStrategy: "merge,retainKeys", patchMergeKey } : { patchStrategy: "merge,retainKeys", patchMergeKey, type };
/** A merging list of scalars (set union). */
const mergeSet: BuiltinFieldPatchInfo = { patchStrategy: "merge" };
const conditionsByType = merge("type");
const ref = (type: string): BuiltinFieldPatchInfo => ({ type });

/** A top-level kind: metadata plus, when they reach patch-annotated fields, spec and status. */
function kind(spec?: string, status?: string): Record<string, BuiltinFieldPatchInfo> {
  const fields: Record<string, BuiltinFieldPatchInfo> = { metadata: ref(OBJECT_META) };
  if (spec !== undefined) fields.spec = ref(spec);
  if (status !== undefined) fields.status = ref(status);
  return fields;
}

/** Container and EphemeralContainer (EphemeralContainerCommon) share these. */
const containerFields: Record<string, BuiltinFieldPatchInfo> = {
  ports: merge("containerPort"),
  env: merge("name"),
  volumeMounts: merge("mountPath"),
  volumeDevices: merge("devicePath"),
};

const table: Record<string, Record<string, BuiltinFieldPatchInfo>> = {
  // meta/v1
  [OBJECT_META]: {
    finalizers: mergeSet,
    ownerReferences: merge("uid"),
  },

  // core/v1: pods and templates
  [`${CORE}Pod`]: kind(`${CORE}PodSpec`, `${CORE}PodStatus`),
  [`${CORE}PodTemplate`]: { metadata: ref(OBJECT_META), template: ref(POD_TEMPLATE_SPEC) },
  [POD_TEMPLATE_SPEC]: kind(`${CORE}PodSpec`),
  [`${CORE}PodSpec`]: {
    volumes: mergeRetainKeys("name"),
    initContainers: merge("name", `${CORE}Container`),
    containers: merge("name", `${CORE}Container`),
    ephemeralContainers: merge("name", `${CORE}EphemeralContainer`),
    imagePullSecrets: merge("name"),
    hostAliases: merge("ip"),
    topologySpreadConstraints: merge("topologyKey"),
    schedulingGates: merge("name"),
    resourceClaims: mergeRetainKeys("name"),
  },
  [`${CORE}Container`]: containerFields,
  [`${CORE}EphemeralContainer`]: containerFields,
  [`${CORE}PodStatus`]: {
    conditions: conditionsByType,
    podIPs: merge("ip"),
    hostIPs: merge("ip"),
    resourceClaimStatuses: mergeRetainKeys("name"),
  },

  // core/v1: other kinds
  [`${CORE}ReplicationController`]: kind(`${CORE}ReplicationControllerSpec`, `${CORE}ReplicationControllerStatus`),
  [`${CORE}ReplicationControllerSpec`]: { template: ref(POD_TEMPLATE_SPEC) },
  [`${CORE}ReplicationControllerStatus`]: { conditions: conditionsByType },
  [`${CORE}Service`]: kind(`${CORE}ServiceSpec`, `${CORE}ServiceStatus`),
  [`${CORE}ServiceSpec`]: { ports: merge("port") },
  [`${CORE}ServiceStatus`]: { conditions: conditionsByType },
  [`${CORE}Node`]: kind(`${CORE}NodeSpec`, `${CORE}NodeStatus`),
  [`${CORE}NodeSpec`]: { podCIDRs: mergeSet },
  [`${CORE}NodeStatus`]: { conditions: conditionsByType, addresses: merge("type") },
  [`${CORE}Namespace`]: kind(undefined, `${CORE}NamespaceStatus`),
  [`${CORE}NamespaceStatus`]: { conditions: conditionsByType },
  [`${CORE}PersistentVolumeClaim`]: kind(undefined, `${CORE}PersistentVolumeClaimStatus`),
  [`${CORE}PersistentVolumeClaimStatus`]: { conditions: conditionsByType },
  [`${CORE}ServiceAccount`]: { metadata: ref(OBJECT_META), secrets: merge("name") },
  [`${CORE}ComponentStatus`]: { metadata: ref(OBJECT_META), conditions: conditionsByType },

  // apps/v1
  [`${APPS}Deployment`]: kind(`${APPS}DeploymentSpec`, `${APPS}DeploymentStatus`),
  [`${APPS}DeploymentSpec`]: { template: ref(POD_TEMPLATE_SPEC), strategy: { patchStrategy: "retainKeys" } },
  [`${APPS}DeploymentStatus`]: { conditions: conditionsByType },
  [`${APPS}ReplicaSet`]: kind(`${APPS}ReplicaSetSpec`, `${APPS}ReplicaSetStatus`),
  [`${APPS}ReplicaSetSpec`]: { template: ref(POD_TEMPLATE_SPEC) },
  [`${APPS}ReplicaSetStatus`]: { conditions: conditionsByType },
  [`${APPS}StatefulSet`]: kind(`${APPS}StatefulSetSpec`, `${APPS}StatefulSetStatus`),
  [`${APPS}StatefulSetSpec`]: { template: ref(POD_TEMPLATE_SPEC) },
  [`${APPS}StatefulSetStatus`]: { conditions: conditionsByType },
  [`${APPS}DaemonSet`]: kind(`${APPS}DaemonSetSpec`, `${APPS}DaemonSetStatus`),
  [`${APPS}DaemonSetSpec`]: { template: ref(POD_TEMPLATE_SPEC) },
  [`${APPS}DaemonSetStatus`]: { conditions: conditionsByType },

  // batch/v1
  [`${BATCH}Job`]: kind(`${BATCH}JobSpec`, `${BATCH}JobStatus`),
  [`${BATCH}JobSpec`]: { template: ref(POD_TEMPLATE_SPEC) },
  [`${BATCH}JobStatus`]: { conditions: conditionsByType },
  [`${BATCH}CronJob`]: kind(`${BATCH}CronJobSpec`),
  [`${BATCH}CronJobSpec`]: { jobTemplate: ref(`${BATCH}JobTemplateSpec`) },
  [`${BATCH}JobTemplateSpec`]: kind(`${BATCH}JobSpec`),

  // autoscaling/v2 (v1 has no patch-annotated fields beyond metadata)
  ["io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"]: kind(undefined, "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus"),
  ["io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus"]: { conditions: conditionsByType },

  // policy/v1
  ["io.k8s.api.policy.v1.PodDisruptionBudget"]: kind(undefined, "io.k8s.api.policy.v1.PodDisruptionBudgetStatus"),
  ["io.k8s.api.policy.v1.PodDisruptionBudgetStatus"]: { conditions: conditionsByType },

  // storage/v1
  ["io.k8s.api.storage.v1.CSINode"]: kind("io.k8s.api.storage.v1.CSINodeSpec"),
  ["io.k8s.api.storage.v1.CSINodeSpec"]: { drivers: merge("name") },

  // apiregistration.k8s.io/v1
  ["io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService"]: kind(
    undefined,
    "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceStatus",
  ),
  ["io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceStatus"]: { conditions: conditionsByType },

  // ---- cluster-side API groups: the patch tags of their 1.36 types.go ----
  [`${ADMISSION}ValidatingWebhookConfiguration`]: { metadata: ref(OBJECT_META), webhooks: merge("name", `${ADMISSION}ValidatingWebhook`) },
  [`${ADMISSION}ValidatingWebhook`]: { matchConditions: merge("name") },
  [`${ADMISSION}MutatingWebhookConfiguration`]: { metadata: ref(OBJECT_META), webhooks: merge("name", `${ADMISSION}MutatingWebhook`) },
  [`${ADMISSION}MutatingWebhook`]: { matchConditions: merge("name") },
  [`${ADMISSION}ValidatingAdmissionPolicy`]: kind(`${ADMISSION}ValidatingAdmissionPolicySpec`),
  [`${ADMISSION}ValidatingAdmissionPolicySpec`]: { matchConditions: merge("name"), variables: merge("name") },
  [`${ADMISSION}MutatingAdmissionPolicy`]: kind(`${ADMISSION}MutatingAdmissionPolicySpec`),
  [`${ADMISSION}MutatingAdmissionPolicySpec`]: { matchConditions: merge("name") },
  ["io.k8s.api.flowcontrol.v1.FlowSchema"]: kind(undefined, "io.k8s.api.flowcontrol.v1.FlowSchemaStatus"),
  ["io.k8s.api.flowcontrol.v1.FlowSchemaStatus"]: { conditions: conditionsByType },
  ["io.k8s.api.flowcontrol.v1.PriorityLevelConfiguration"]: kind(undefined, "io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationStatus"),
  ["io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationStatus"]: { conditions: conditionsByType },
  ["io.k8s.api.resource.v1.ResourceClaim"]: kind(undefined, "io.k8s.api.resource.v1.ResourceClaimStatus"),
  ["io.k8s.api.resource.v1.ResourceClaimStatus"]: { reservedFor: merge("uid") },
};

/**
 * Built-in kinds whose only patch-annotated fields are in metadata (ownerReferences,
 * finalizers), by "group/version" ("v1" for core).
 */
const metadataOnlyKinds: Readonly<Record<string, readonly string[]>> = {
  v1: ["ConfigMap", "Secret", "Endpoints", "Event", "LimitRange", "ResourceQuota", "PersistentVolume", "Binding"],
  "apps/v1": ["ControllerRevision"],
  "autoscaling/v1": ["HorizontalPodAutoscaler"],
  "policy/v1": ["Eviction"],
  "rbac.authorization.k8s.io/v1": ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"],
  "networking.k8s.io/v1": ["Ingress", "IngressClass", "NetworkPolicy", "IPAddress", "ServiceCIDR"],
  "coordination.k8s.io/v1": ["Lease"],
  "discovery.k8s.io/v1": ["EndpointSlice"],
  "events.k8s.io/v1": ["Event"],
  "storage.k8s.io/v1": ["StorageClass", "CSIDriver", "VolumeAttachment", "CSIStorageCapacity", "VolumeAttributesClass", "CSINode"],
  "scheduling.k8s.io/v1": ["PriorityClass"],
  "node.k8s.io/v1": ["RuntimeClass"],
  "certificates.k8s.io/v1": ["CertificateSigningRequest"],
  "admissionregistration.k8s.io/v1": [
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
  ],
  "resource.k8s.io/v1": ["DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"],
  "apiextensions.k8s.io/v1": ["CustomResourceDefinition"],
  "flowcontrol.apiserver.k8s.io/v1": ["FlowSchema", "PriorityLevelConfiguration"],
};

/** OpenAPI definition-name prefixes of API groups whose definitions do not follow io.k8s.api.<group>. */
const groupPackages: Readonly<Record<string, string>> = {
  "": "io.k8s.api.core",
  "apiextensions.k8s.io": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions",
  "apiregistration.k8s.io": "io.k8s.kube-aggregator.pkg.apis.apiregistration",
  "flowcontrol.apiserver.k8s.io": "io.k8s.api.flowcontrol",
  "internal.apiserver.k8s.io": "io.k8s.api.apiserverinternal",
};

for (const [gv, kinds] of Object.entries(metadataOnlyKinds)) {
  const slash = gv.indexOf("/");
  const group = slash < 0 ? "" : gv.slice(0, slash);
  const version = slash < 0 ? gv : gv.slice(slash + 1);
  for (const k of kinds) {
    const name = definitionName(group, version, k);
    if (!(name in table)) table[name] = kind();
  }
}

/** The table, frozen. */
export const builtinPatchTypes: BuiltinPatchTypeTable = deepFreeze(table);

function definitionName(group: string, version: string, kindName: string): string {
  const pkg = groupPackages[group] ?? `io.k8s.api.${group.replace(/\.k8s\.io$/, "").split(".")[0]}`;
  return `${pkg}.${version}.${kindName}`;
}

/**
 * The OpenAPI definition name of a built-in kind ("apps", "v1", "Deployment" →
 * "io.k8s.api.apps.v1.Deployment"), or undefined when the kind is not in the table (custom
 * resources, kinds this table does not know).
 */
export function rootTypeForKind(group: string, version: string, kindName: string): string | undefined {
  const name = definitionName(group, version, kindName);
  return Object.prototype.hasOwnProperty.call(builtinPatchTypes, name) ? name : undefined;
}

const metaCache = new Map<string, PatchMeta>();

function isListEntry(info: BuiltinFieldPatchInfo): boolean {
  return info.patchMergeKey !== undefined || (info.patchStrategy ?? "").split(",").includes("merge");
}

/** The PatchMeta tree of one definition, built from the table on first use and cached (frozen). */
export function patchMetaForType(definition: string): PatchMeta {
  const cached = metaCache.get(definition);
  if (cached !== undefined) return cached;
  const fields: Record<string, PatchMeta> = {};
  const meta: PatchMeta = { fields };
  // Cache before recursing so a self-referencing type terminates.
  metaCache.set(definition, meta);
  const entries = Object.prototype.hasOwnProperty.call(builtinPatchTypes, definition) ? builtinPatchTypes[definition] : {};
  for (const [field, info] of Object.entries(entries)) {
    const m: PatchMeta = {};
    if (info.patchStrategy !== undefined) m.patchStrategy = info.patchStrategy;
    if (info.patchMergeKey !== undefined) m.patchMergeKey = info.patchMergeKey;
    if (info.type !== undefined) {
      const sub = patchMetaForType(info.type);
      if (isListEntry(info)) m.items = sub;
      else if (sub.fields !== undefined) m.fields = sub.fields;
    }
    fields[field] = Object.freeze(m);
  }
  Object.freeze(fields);
  return Object.freeze(meta);
}

/**
 * The strategic-merge-patch metadata of a built-in kind, or undefined for kinds the table does
 * not know (kube-apiserver refuses strategic merge patches of custom resources with 415).
 */
export function patchMetaForKind(group: string, version: string, kindName: string): PatchMeta | undefined {
  const root = rootTypeForKind(group, version, kindName);
  return root === undefined ? undefined : patchMetaForType(root);
}
