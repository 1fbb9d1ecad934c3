/**
 * core/v1 Pods: SetDefaults_PodSpec + SetDefaults_Pod, ValidatePodCreate / ValidatePodUpdate /
 * ValidatePodStatusUpdate (the covered subset, see podvalidation.ts), and the pod strategy:
 * on create `status = {phase: Pending, qosClass}` (plus the SchedulingGated condition when
 * scheduling gates are present) and generation 1; on update the old status is kept and the
 * generation bumps on spec changes (PodObservedGenerationTracking, on by default since 1.34);
 * status updates keep the spec, owner references and deletion timestamp, and backfill qosClass.
 */
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isQualifiedName, isValidIP, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy, metaOf } from "./define.js";
import { validateImmutableField } from "./meta.js";
import { child, index } from "./path.js";
import { defaultPodOnlySpec, defaultPodSpec } from "./poddefaults.js";
import { computePodQOS, validateContainersOnlyForPod, validatePodSpec, validatePodSpecUpdate } from "./podvalidation.js";
import type { ResourceStrategy } from "./strategy.js";

const asPod = (o: KubeObject) => o as unknown as Pod;

export function defaultPod(obj: KubeObject): void {
  const pod = asPod(obj);
  pod.spec ??= { containers: [] };
  defaultPodSpec(pod.spec);
  defaultPodOnlySpec(pod.spec);
}

function validatePodSpecForPod(obj: KubeObject): FieldError[] {
  const pod = asPod(obj);
  const errs = validatePodSpec(pod.spec, "spec", { resourceIsPod: true });
  if (!pod.spec?.serviceAccountName) {
    (pod.spec?.volumes ?? []).forEach((v, vi) => {
      (v.projected?.sources ?? []).forEach((s, si) => {
        if (s.serviceAccountToken) {
          errs.push(
            fieldErrors.forbidden(
              `spec.volumes[${vi}].projected.sources[${si}].serviceAccountToken`,
              "must not be specified when serviceAccountName is not set",
            ),
          );
        }
      });
    });
  }
  errs.push(...validateContainersOnlyForPod(pod.spec?.containers, "spec.containers"));
  errs.push(...validateContainersOnlyForPod(pod.spec?.initContainers, "spec.initContainers"));
  return errs;
}

function validatePodIPs(pod: Pod): FieldError[] {
  const errs: FieldError[] = [];
  const ips = pod.status?.podIPs ?? [];
  ips.forEach((ip, i) => {
    for (const msg of isValidIP(ip.ip ?? "")) errs.push(fieldErrors.invalid(index("status.podIPs", i), ip.ip ?? "", msg));
  });
  const seen = new Set<string>();
  ips.forEach((ip, i) => {
    if (ips.length > 1 && seen.has(ip.ip ?? "")) errs.push(fieldErrors.duplicate(index("status.podIPs", i), ip));
    seen.add(ip.ip ?? "");
  });
  return errs;
}

function validatePodCreate(obj: KubeObject): FieldError[] {
  const pod = asPod(obj);
  const errs: FieldError[] = [];
  if ((pod.spec?.ephemeralContainers ?? []).length > 0) {
    errs.push(fieldErrors.forbidden("spec.ephemeralContainers", "cannot be set on create"));
  }
  if (pod.spec?.nodeName && (pod.spec.schedulingGates ?? []).length > 0) {
    errs.push(fieldErrors.forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"));
  }
  errs.push(...validatePodIPs(pod));
  return errs;
}

/** ValidatePodStatusUpdate (the covered subset). */
export function validatePodStatusUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const pod = asPod(obj);
  const oldPod = asPod(old);
  const errs: FieldError[] = [];
  const system = new Set(["PodScheduled", "Ready", "Initialized"]);
  (pod.status?.conditions ?? []).forEach((c, i) => {
    if (system.has(c.type)) return;
    // Upstream reports these under metadata.conditions[i].Type (its path is built from "metadata").
    for (const msg of isQualifiedName(c.type)) errs.push(fieldErrors.invalid(child(index("metadata.conditions", i), "Type"), c.type, msg));
  });
  if ((pod.spec?.nodeName ?? "") !== (oldPod.spec?.nodeName ?? "")) {
    errs.push(fieldErrors.forbidden("status.nodeName", "may not be changed directly"));
  }
  const nominated = pod.status?.nominatedNodeName ?? "";
  if (nominated !== (oldPod.status?.nominatedNodeName ?? "") && nominated !== "") {
    for (const msg of nameIsDNSSubdomain(nominated, false)) errs.push(fieldErrors.invalid("status.nominatedNodeName", nominated, msg));
  }
  errs.push(...validateImmutableField(pod.status?.qosClass ?? "", oldPod.status?.qosClass ?? "", "status.qosClass"));
  errs.push(...validatePodIPs(pod));
  return errs;
}

export const podStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "",
    version: "v1",
    kind: "Pod",
    resource: "pods",
    singular: "pod",
    listKind: "PodList",
    shortNames: ["po"],
    categories: ["all"],
    namespaced: true,
  },
  // binding, eviction, ephemeralcontainers and resize are served by their own handlers (core/).
  subresources: { status: true, extra: ["binding", "eviction", "ephemeralcontainers", "resize"] },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  emptyStatus: (obj) => {
    const pod = asPod(obj);
    const status: Record<string, unknown> = { phase: "Pending", qosClass: computePodQOS(pod.spec) };
    if ((pod.spec?.schedulingGates ?? []).length > 0) {
      status.conditions = [
        {
          type: "PodScheduled",
          status: "False",
          reason: "SchedulingGated",
          message: "Scheduling is blocked due to non-empty scheduling gates",
        },
      ];
    }
    return status;
  },
  defaults: defaultPod,
  prepareForStatusUpdate(obj, old) {
    const meta = metaOf(obj);
    if (old.metadata?.ownerReferences) meta.ownerReferences = structuredClone(old.metadata.ownerReferences);
    else delete meta.ownerReferences;
    if (old.metadata?.deletionTimestamp) meta.deletionTimestamp = old.metadata.deletionTimestamp;
    else delete meta.deletionTimestamp;
    const status = (obj.status ??= {}) as Record<string, unknown>;
    const oldQos = (old.status as Record<string, unknown> | undefined)?.qosClass;
    if (!status.qosClass && oldQos !== undefined) status.qosClass = oldQos;
  },
  validateSpec: validatePodSpecForPod,
  validateCreate: validatePodCreate,
  validateUpdate: (obj, old) => validatePodSpecUpdate(asPod(obj).spec ?? { containers: [] }, asPod(old).spec ?? { containers: [] }),
  validateStatus: validatePodStatusUpdate,
  fields: (obj) => {
    const pod = asPod(obj);
    return {
      "spec.nodeName": pod.spec?.nodeName ?? "",
      "spec.restartPolicy": pod.spec?.restartPolicy ?? "",
      "spec.schedulerName": pod.spec?.schedulerName ?? "",
      "spec.serviceAccountName": pod.spec?.serviceAccountName ?? "",
      "spec.hostNetwork": String(pod.spec?.hostNetwork ?? false),
      "status.phase": pod.status?.phase ?? "",
      "status.podIP": pod.status?.podIPs?.[0]?.ip ?? pod.status?.podIP ?? "",
      "status.nominatedNodeName": pod.status?.nominatedNodeName ?? "",
    };
  },
});
