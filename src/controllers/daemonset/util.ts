/**
 * The DaemonSet helpers of kube-controller-manager's pkg/controller/daemon/util
 * (daemonset_util.go): the tolerations every daemon pod gets, the pod template with the
 * generation and hash labels, surge and unavailability counts, whether a pod is of the current
 * revision, and the node affinity that pins a daemon pod to its node.
 */
import type { DaemonSet } from "../../apimachinery/api/apps/v1.js";
import type { Affinity, Pod, PodSpec, PodTemplateSpec, Taint, Toleration } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { getScaledValueFromIntOrPercent } from "../../apimachinery/intstr.js";
import { OBJECT_NAME_FIELD } from "../podlifecycle/nodeaffinity.js";
import { toleratesTaint } from "../podlifecycle/scheduler.js";
import {
  DAEMONSET_TEMPLATE_GENERATION_LABEL,
  DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY,
  DEPRECATED_TEMPLATE_GENERATION_ANNOTATION,
  TAINT_NODE_DISK_PRESSURE,
  TAINT_NODE_MEMORY_PRESSURE,
  TAINT_NODE_NETWORK_UNAVAILABLE,
  TAINT_NODE_NOT_READY,
  TAINT_NODE_PID_PRESSURE,
  TAINT_NODE_UNREACHABLE,
  TAINT_NODE_UNSCHEDULABLE,
} from "./constants.js";

/** An invalid deprecated.daemonset.template.generation annotation. */
export class TemplateGenerationError extends Error {
  constructor(value: string) {
    super(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
    this.name = "TemplateGenerationError";
  }
}

/**
 * The template generation from the deprecated annotation (GetTemplateGeneration): undefined when
 * absent; throws TemplateGenerationError when it does not parse.
 */
export function getTemplateGeneration(ds: DaemonSet): number | undefined {
  const v = ds.metadata?.annotations?.[DEPRECATED_TEMPLATE_GENERATION_ANNOTATION];
  if (v === undefined) return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw new TemplateGenerationError(v);
  return Number(v);
}

/** The generation, or undefined when the annotation is absent or invalid (the callers' `generation = nil`). */
export function templateGenerationOrUndefined(ds: DaemonSet): number | undefined {
  try {
    return getTemplateGeneration(ds);
  } catch {
    return undefined;
  }
}

/** Same key, effect, operator and value (Toleration.MatchToleration). */
function sameToleration(a: Toleration, b: Toleration): boolean {
  return (a.key ?? "") === (b.key ?? "") && (a.effect ?? "") === (b.effect ?? "") && (a.operator ?? "") === (b.operator ?? "") && (a.value ?? "") === (b.value ?? "");
}

/**
 * Adds `toleration` to the spec, replacing a toleration that matches it (AddOrUpdateTolerationInPodSpec).
 * Returns whether the spec changed.
 */
export function addOrUpdateTolerationInPodSpec(spec: PodSpec, toleration: Toleration): boolean {
  const out: Toleration[] = [];
  let updated = false;
  for (const t of spec.tolerations ?? []) {
    if (sameToleration(toleration, t)) {
      if (semanticEqual(toleration, t)) return false;
      out.push({ ...toleration });
      updated = true;
      continue;
    }
    out.push(t);
  }
  if (!updated) out.push({ ...toleration });
  spec.tolerations = out;
  return true;
}

/**
 * The tolerations every daemon pod gets (AddOrUpdateDaemonPodTolerations): not-ready and
 * unreachable NoExecute, so that taint-based eviction leaves them; disk, memory and PID pressure
 * and unschedulable NoSchedule; network-unavailable NoSchedule for host-network pods.
 */
export function addOrUpdateDaemonPodTolerations(spec: PodSpec): void {
  addOrUpdateTolerationInPodSpec(spec, { key: TAINT_NODE_NOT_READY, operator: "Exists", effect: "NoExecute" });
  addOrUpdateTolerationInPodSpec(spec, { key: TAINT_NODE_UNREACHABLE, operator: "Exists", effect: "NoExecute" });
  addOrUpdateTolerationInPodSpec(spec, { key: TAINT_NODE_DISK_PRESSURE, operator: "Exists", effect: "NoSchedule" });
  addOrUpdateTolerationInPodSpec(spec, { key: TAINT_NODE_MEMORY_PRESSURE, operator: "Exists", effect: "NoSchedule" });
  addOrUpdateTolerationInPodSpec(spec, { key: TAINT_NODE_PID_PRESSURE, operator: "Exists", effect: "NoSchedule" });
  addOrUpdateTolerationInPodSpec(spec, { key: TAINT_NODE_UNSCHEDULABLE, operator: "Exists", effect: "NoSchedule" });
  if (spec.hostNetwork) {
    addOrUpdateTolerationInPodSpec(spec, { key: TAINT_NODE_NETWORK_UNAVAILABLE, operator: "Exists", effect: "NoSchedule" });
  }
}

/**
 * A copy of the template with the daemon tolerations, the pod-template-generation label (when the
 * generation is known) and the controller-revision-hash label (when the hash is not empty)
 * (CreatePodTemplate).
 */
export function createPodTemplate(template: PodTemplateSpec | undefined, generation: number | undefined, hash: string): PodTemplateSpec {
  const t: PodTemplateSpec = deepCopy(template ?? {});
  t.spec ??= { containers: [] };
  addOrUpdateDaemonPodTolerations(t.spec);
  t.metadata = { ...(t.metadata ?? {}), labels: { ...(t.metadata?.labels ?? {}) } };
  const labels = t.metadata.labels as Record<string, string>;
  if (generation !== undefined) labels[DAEMONSET_TEMPLATE_GENERATION_LABEL] = String(generation);
  if (hash) labels[DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY] = hash;
  return t;
}

/** Surge or unavailability out of `numberToSchedule`, rounding up; an absent value is an error, as upstream. */
function scaled(v: number | string | undefined | null, numberToSchedule: number): number {
  return getScaledValueFromIntOrPercent(v, numberToSchedule, true);
}

/** The allowed surge out of `numberToSchedule`: 0 unless RollingUpdate with maxSurge (SurgeCount). Throws on an invalid percentage. */
export function surgeCount(ds: DaemonSet, numberToSchedule: number): number {
  const s = ds.spec?.updateStrategy;
  if (s?.type !== "RollingUpdate") return 0;
  const r = s?.rollingUpdate;
  if (!r || r.maxSurge == null) return 0;
  return scaled(r.maxSurge, numberToSchedule);
}

/** The allowed unavailability out of `numberToSchedule`: 0 unless RollingUpdate (UnavailableCount). Throws on an invalid percentage. */
export function unavailableCount(ds: DaemonSet, numberToSchedule: number): number {
  const s = ds.spec?.updateStrategy;
  if (s?.type !== "RollingUpdate") return 0;
  const r = s?.rollingUpdate;
  if (!r) return 0;
  return scaled(r.maxUnavailable, numberToSchedule);
}

/** Whether more than one pod may run on a node during an update (AllowsSurge). */
export function allowsSurge(ds: DaemonSet): boolean {
  try {
    return surgeCount(ds, 1) > 0;
  } catch {
    return false;
  }
}

/** Whether the pod is of the current revision: its hash label, or its template generation label, matches (IsPodUpdated). */
export function isPodUpdated(pod: Pod, hash: string, generation: number | undefined): boolean {
  const labels = pod.metadata?.labels ?? {};
  const templateMatches = generation !== undefined && labels[DAEMONSET_TEMPLATE_GENERATION_LABEL] === String(generation);
  const hashMatches = hash.length > 0 && labels[DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY] === hash;
  return hashMatches || templateMatches;
}

/**
 * The affinity with its required node affinity replaced by one term, `metadata.name In [node]`
 * (ReplaceDaemonSetPodNodeNameNodeAffinity); preferred terms and pod (anti-)affinity are kept.
 * Returns a new object; `affinity` is not changed.
 */
export function replaceDaemonSetPodNodeNameNodeAffinity(affinity: Affinity | undefined, nodeName: string): Affinity {
  const required = { nodeSelectorTerms: [{ matchFields: [{ key: OBJECT_NAME_FIELD, operator: "In", values: [nodeName] }] }] };
  const a: Affinity = affinity ? deepCopy(affinity) : {};
  a.nodeAffinity = { ...(a.nodeAffinity ?? {}), requiredDuringSchedulingIgnoredDuringExecution: { ...(a.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? {}), ...required } };
  return a;
}

/** A daemon pod without a node to run on (GetTargetNodeName's errors). */
export class TargetNodeNameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TargetNodeNameError";
  }
}

/**
 * The node a daemon pod is for (GetTargetNodeName): spec.nodeName once scheduled, before that the
 * single value of its `metadata.name In [...]` required node affinity field.
 */
export function getTargetNodeName(pod: Pod): string {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const ns = pod.metadata?.namespace ?? "";
  const name = pod.metadata?.name ?? "";
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) throw new TargetNodeNameError(`no spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution for pod ${ns}/${name}`);
  const terms = required.nodeSelectorTerms ?? [];
  if (terms.length < 1) throw new TargetNodeNameError(`no nodeSelectorTerms in requiredDuringSchedulingIgnoredDuringExecution of pod ${ns}/${name}`);
  for (const term of terms) {
    for (const exp of term.matchFields ?? []) {
      if (exp.key === OBJECT_NAME_FIELD && exp.operator === "In") {
        if ((exp.values ?? []).length !== 1) throw new TargetNodeNameError(`the matchFields value of '${OBJECT_NAME_FIELD}' is not unique for pod ${ns}/${name}`);
        return (exp.values ?? [])[0];
      }
    }
  }
  throw new TargetNodeNameError(`no node name found for pod ${ns}/${name}`);
}

/**
 * The first taint (filtered by `inclusionFilter`) that no toleration tolerates
 * (v1helper.FindMatchingUntoleratedTaint), or undefined.
 */
export function findMatchingUntoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[], inclusionFilter: (t: Taint) => boolean): Taint | undefined {
  for (const taint of taints) {
    if (!inclusionFilter(taint)) continue;
    if (!tolerations.some((t) => toleratesTaint(t, taint))) return taint;
  }
  return undefined;
}
