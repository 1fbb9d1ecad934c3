/**
 * The pod subresources that update one part of a pod through their own strategy:
 *
 * - pods/ephemeralcontainers (podEphemeralContainersStrategy): everything but
 *   spec.ephemeralContainers is kept from the stored pod; existing ephemeral containers may not
 *   be changed or removed; new ones are validated as ephemeral containers (unique names across
 *   the pod, an image, no ports, probes, lifecycle, resources or resize policy, and a
 *   targetContainerName naming a container of the pod); static pods have none.
 * - pods/resize (podResizeStrategy, in-place vertical scaling, GA in 1.35): everything but the
 *   resources and resize policies of containers (and of restartable init containers) is kept;
 *   the QoS class may not change, requests and limits may not be removed, only cpu and memory
 *   may change; static and Windows pods cannot be resized.
 *
 * Both bump the pod's generation when they change its spec, as upstream's updatePodGeneration.
 * They are `prepare` hooks for ResourceStore.update: they turn the submitted pod into the pod to
 * store and return its validation errors.
 */
import type { Container, EphemeralContainer, Pod } from "../../apimachinery/api/core/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { validateObjectMetaUpdate } from "../registry/meta.js";
import { child, index } from "../registry/path.js";
import { defaultContainer } from "../registry/poddefaults.js";
import { computePodQOS, validateDNS1123Label, validatePodSpec } from "../registry/podvalidation.js";
import { rec, list, str } from "../registry/shape.js";

const mirrorPodAnnotation = "kubernetes.io/config.mirror";

/** The stored pod with the submitted identity fields (dropPodUpdates). */
function keptPod(submitted: KubeObject, old: KubeObject): KubeObject & Pod {
  const pod = structuredClone(old) as KubeObject & Pod;
  const meta = (pod.metadata ??= {}) as Record<string, unknown>;
  const sm = rec(submitted.metadata) ?? {};
  for (const k of ["name", "namespace", "resourceVersion", "uid"]) {
    if (sm[k] !== undefined) meta[k] = sm[k];
    else delete meta[k];
  }
  return pod;
}

function replaceWith(obj: KubeObject, pod: KubeObject): void {
  for (const k of Object.keys(obj)) delete obj[k];
  Object.assign(obj, pod);
}

/** updatePodGeneration: a spec change bumps metadata.generation (when the pod tracks one). */
function bumpGeneration(pod: KubeObject, old: KubeObject): void {
  const gen = old.metadata?.generation;
  if (typeof gen !== "number") return;
  const meta = pod.metadata as { generation?: number };
  meta.generation = semanticEqual(pod.spec, old.spec) ? gen : gen + 1;
}

const forbiddenEphemeralFields: ReadonlyArray<[keyof EphemeralContainer, string]> = [
  ["ports", "ports"],
  ["resources", "resources"],
  ["lifecycle", "lifecycle"],
  ["livenessProbe", "livenessProbe"],
  ["readinessProbe", "readinessProbe"],
  ["startupProbe", "startupProbe"],
  ["resizePolicy", "resizePolicy"],
  ["restartPolicy", "restartPolicy"],
];

/** The rules of validateEphemeralContainers for the containers a request adds. */
function validateEphemeralContainers(pod: Pod, added: ReadonlySet<string>): FieldError[] {
  const errs: FieldError[] = [];
  const spec = pod.spec;
  const others = new Set<string>();
  for (const c of [...list<Container>(spec?.containers), ...list<Container>(spec?.initContainers)]) {
    if (typeof c?.name === "string") others.add(c.name);
  }
  const seen = new Set<string>();
  list<EphemeralContainer>(spec?.ephemeralContainers).forEach((ec, i) => {
    const p = index("spec.ephemeralContainers", i);
    const name = str(ec?.name) ?? "";
    if (name === "") errs.push(fieldErrors.required(child(p, "name"), ""));
    else {
      errs.push(...validateDNS1123Label(name, child(p, "name")));
      if (others.has(name) || seen.has(name)) errs.push(fieldErrors.duplicate(child(p, "name"), name));
      seen.add(name);
    }
    if (!added.has(name)) return;
    if (!str(ec.image)) errs.push(fieldErrors.required(child(p, "image"), ""));
    const rec = ec as unknown as Record<string, unknown>;
    for (const [key, label] of forbiddenEphemeralFields) {
      const v = rec[key];
      const set = v !== undefined && v !== null && !(typeof v === "object" && Object.keys(v).length === 0);
      if (set) errs.push(fieldErrors.forbidden(child(p, label), "cannot be set for an Ephemeral Container"));
    }
    const target = str(ec.targetContainerName);
    if (target && !others.has(target)) errs.push(fieldErrors.notFound(child(p, "targetContainerName"), target));
  });
  return errs;
}

/** The `prepare` of pods/ephemeralcontainers. */
export function prepareEphemeralContainersUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const submitted = obj as KubeObject & Pod;
  const oldPod = old as KubeObject & Pod;
  const pod = keptPod(obj, old);
  const newEphemeral = list<EphemeralContainer>(submitted.spec?.ephemeralContainers).map((c) => structuredClone(c));
  for (const c of newEphemeral) if (rec(c)) defaultContainer(c as Container);
  const spec = (pod.spec ??= { containers: [] });
  if (newEphemeral.length > 0) spec.ephemeralContainers = newEphemeral;
  else delete spec.ephemeralContainers;
  bumpGeneration(pod, old);
  const errs = validateObjectMetaUpdate(pod.metadata, old.metadata);
  if (oldPod.metadata?.annotations?.[mirrorPodAnnotation] !== undefined) {
    replaceWith(obj, pod);
    return [fieldErrors.forbidden("", "static pods do not support ephemeral containers")];
  }
  const oldNames = new Set<string>();
  const byName = new Map(newEphemeral.map((c) => [c.name, c]));
  for (const prev of list<EphemeralContainer>(oldPod.spec?.ephemeralContainers)) {
    oldNames.add(prev.name);
    const now = byName.get(prev.name);
    if (!now) errs.push(fieldErrors.forbidden("spec.ephemeralContainers", `existing ephemeral containers "${prev.name}" may not be removed\n`));
    else if (!semanticEqual(prev, now)) {
      errs.push(fieldErrors.forbidden("spec.ephemeralContainers", `existing ephemeral containers "${prev.name}" may not be changed\n`));
    }
  }
  const added = new Set(newEphemeral.map((c) => c.name).filter((n) => !oldNames.has(n)));
  errs.push(...validatePodSpec(pod.spec, "spec", { resourceIsPod: true }));
  errs.push(...validateEphemeralContainers(pod, added));
  replaceWith(obj, pod);
  return errs;
}

function isRestartableInit(c: Container | undefined): boolean {
  return c?.restartPolicy === "Always";
}

function resourcesRemoved(next: Record<string, unknown> | undefined, prev: Record<string, unknown> | undefined): boolean {
  for (const k of Object.keys(prev ?? {})) if (!next || !(k in next)) return true;
  return false;
}

/** The resource lists with cpu and memory taken from `from` (what resize may change). */
function withoutCPUMemory(list: Record<string, unknown> | undefined, from: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = { ...(list ?? {}) };
  for (const k of ["cpu", "memory"]) {
    if (from && k in from) out[k] = from[k];
    else delete out[k];
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The `prepare` of pods/resize. */
export function preparePodResize(obj: KubeObject, old: KubeObject): FieldError[] {
  const submitted = obj as KubeObject & Pod;
  const oldPod = old as KubeObject & Pod;
  const pod = keptPod(obj, old);
  const spec = (pod.spec ??= { containers: [] });
  // Resources and resize policies of containers that exist in the stored pod, matched by name.
  const take = (mine: Container[] | undefined, theirs: unknown, onlyRestartable: boolean) => {
    const byName = new Map<string, number>();
    (mine ?? []).forEach((c, i) => byName.set(c.name, i));
    for (const c of list<Container>(theirs)) {
      const i = byName.get(str(c?.name) ?? "");
      if (i === undefined || !mine) continue;
      if (onlyRestartable && !isRestartableInit(mine[i])) continue;
      mine[i].resources = structuredClone(rec(c.resources) ?? {});
      if (c.resizePolicy !== undefined) mine[i].resizePolicy = structuredClone(c.resizePolicy);
      else delete mine[i].resizePolicy;
    }
  };
  take(spec.containers, submitted.spec?.containers, false);
  take(spec.initContainers, submitted.spec?.initContainers, true);
  bumpGeneration(pod, old);
  replaceWith(obj, pod);

  const errs = validateObjectMetaUpdate(pod.metadata, old.metadata);
  if (oldPod.metadata?.annotations?.[mirrorPodAnnotation] !== undefined) return [fieldErrors.forbidden("", "static pods cannot be resized")];
  if (oldPod.spec?.os?.name === "windows") return [fieldErrors.forbidden("", "windows pods cannot be resized")];
  errs.push(...validatePodSpec(pod.spec, "spec", { resourceIsPod: true }));
  const oldQOS = oldPod.status?.qosClass || computePodQOS(oldPod.spec);
  if (oldQOS !== computePodQOS(pod.spec)) {
    errs.push(fieldErrors.invalid("spec", oldPod.status?.qosClass ?? "", "Pod QOS Class may not change as a result of resizing"));
  }
  const check = (mine: Container[] | undefined, prev: Container[] | undefined, base: string, onlyRestartable: boolean) => {
    (prev ?? []).forEach((c, i) => {
      if (onlyRestartable && !isRestartableInit(c)) return;
      const next = mine?.[i]?.resources;
      const p = child(index(base, i), "resources");
      if (resourcesRemoved(next?.requests, c.resources?.requests)) errs.push(fieldErrors.forbidden(child(p, "requests"), "resource requests cannot be removed"));
      if (resourcesRemoved(next?.limits, c.resources?.limits)) errs.push(fieldErrors.forbidden(child(p, "limits"), "resource limits cannot be removed"));
    });
  };
  check(spec.containers, oldPod.spec?.containers, "spec.containers", false);
  check(spec.initContainers, oldPod.spec?.initContainers, "spec.initContainers", true);
  // Only cpu and memory may change: with those taken from the old pod, nothing else differs.
  const oldByName = new Map((oldPod.spec?.containers ?? []).map((c) => [c.name, c]));
  const oldInitByName = new Map((oldPod.spec?.initContainers ?? []).map((c) => [c.name, c]));
  const normalized = structuredClone(spec);
  for (const c of [...(normalized.containers ?? []), ...(normalized.initContainers ?? [])]) {
    const prev = oldByName.get(c.name) ?? oldInitByName.get(c.name);
    c.resources = { ...(c.resources ?? {}) };
    const requests = withoutCPUMemory(c.resources.requests, prev?.resources?.requests);
    const limits = withoutCPUMemory(c.resources.limits, prev?.resources?.limits);
    if (requests) c.resources.requests = requests as Record<string, string>;
    else delete c.resources.requests;
    if (limits) c.resources.limits = limits as Record<string, string>;
    else delete c.resources.limits;
    if (prev?.resizePolicy !== undefined) c.resizePolicy = prev.resizePolicy;
    else delete c.resizePolicy;
  }
  if (!semanticEqual(normalized, oldPod.spec)) errs.push(fieldErrors.forbidden("spec", "only cpu and memory resources are mutable"));
  return errs;
}
