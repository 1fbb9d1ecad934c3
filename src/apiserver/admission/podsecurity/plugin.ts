/**
 * PodSecurity admission (k8s.io/pod-security-admission/admission and kube-apiserver's
 * plugin/pkg/admission/security/podsecurity): the Pod Security Standards enforced per
 * namespace by its `pod-security.kubernetes.io/enforce|audit|warn[-version]` labels.
 *
 * - Pods (CREATE, and UPDATEs that change an image or add an ephemeral container; not the
 *   status, binding, eviction, exec, attach, log, portforward or proxy subresources) are
 *   refused when they violate the enforce level: `pods "x" is forbidden: violates PodSecurity
 *   "restricted:latest": <reason> (<detail>), ...`; the warn level adds a `would violate
 *   PodSecurity ...` warning, the audit level an audit annotation.
 * - Pod controllers' templates (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs,
 *   CronJobs, ReplicationControllers, PodTemplates) get the warn and audit levels only.
 * - Namespaces: invalid labels are refused (422) on create and when they change; a stricter
 *   enforce level on an update warns about the existing pods that would violate it
 *   (`existing pods in namespace "ns" violate the new PodSecurity enforce level
 *   "restricted:latest"` and `<pod> (and N other pods): <reasons>`).
 * - Exemptions (usernames, runtimeClasses, namespaces) and the defaults for unlabelled
 *   namespaces come from the PodSecurityConfiguration; kube-apiserver's default is
 *   privileged:latest for every mode and no exemptions.
 */
import { StatusError } from "../../../apimachinery/errors.js";
import { fieldErrors } from "../../../apimachinery/fielderrors.js";
import { collectionPrefix, objectKey } from "../../rest/keys.js";
import type { AdmissionPluginContext, AdmissionPluginRegistration, AnyAdmissionPlugin } from "../chain.js";
import type { AdmissionAttributes } from "../interfaces.js";
import { evaluatePod, forbiddenDetail, forbiddenReasons } from "./checks.js";
import {
  compareLevels,
  equivalent,
  fullyPrivileged,
  labelPrefix,
  latest,
  levelVersionString,
  parseLevel,
  parseVersion,
  policyToEvaluate,
  sameLevelVersion,
  type LabelError,
  type LevelVersion,
  type Policy,
} from "./policy.js";

/** PodSecurityConfiguration (pod-security.admission.config.k8s.io/v1), as kube-apiserver reads it. */
export interface PodSecurityConfiguration {
  defaults?: { enforce?: string; "enforce-version"?: string; audit?: string; "audit-version"?: string; warn?: string; "warn-version"?: string };
  exemptions?: { usernames?: string[]; runtimeClasses?: string[]; namespaces?: string[] };
}

const namespaceMaxPodsToCheck = 3000;
const ignoredPodSubresources = new Set(["exec", "attach", "binding", "eviction", "log", "portforward", "proxy", "status"]);

/** Where each pod controller keeps its pod template (DefaultPodSpecExtractor). */
const podTemplatePaths: Record<string, string[]> = {
  "/replicationcontrollers": ["spec", "template"],
  "/podtemplates": ["template"],
  "apps/replicasets": ["spec", "template"],
  "apps/deployments": ["spec", "template"],
  "apps/statefulsets": ["spec", "template"],
  "apps/daemonsets": ["spec", "template"],
  "batch/jobs": ["spec", "template"],
  "batch/cronjobs": ["spec", "jobTemplate", "spec", "template"],
};

interface PodLike {
  metadata?: { name?: string; annotations?: Record<string, string>; ownerReferences?: { controller?: boolean; uid?: string }[] };
  spec?: Record<string, unknown> & { runtimeClassName?: string; containers?: { image?: string }[]; initContainers?: { image?: string }[]; ephemeralContainers?: { name?: string; image?: string }[] };
}

function defaultPolicyOf(config: PodSecurityConfiguration): Policy {
  const d = config.defaults ?? {};
  const lv = (level: string | undefined, version: string | undefined): LevelVersion => {
    const l = level === undefined ? "privileged" : parseLevel(level);
    const v = version === undefined ? latest : parseVersion(version);
    if (!l) throw new Error(`PodSecurity defaults: invalid level ${JSON.stringify(level)}`);
    if (!v) throw new Error(`PodSecurity defaults: invalid version ${JSON.stringify(version)}`);
    return { level: l, version: v };
  };
  return { enforce: lv(d.enforce, d["enforce-version"]), audit: lv(d.audit, d["audit-version"]), warn: lv(d.warn, d["warn-version"]) };
}

function labelFieldErrors(errors: readonly LabelError[]) {
  return errors.map((e) => fieldErrors.invalid(`metadata.labels[${e.label}]`, e.value, e.detail));
}

function sameErrors(a: readonly LabelError[], b: readonly LabelError[]): boolean {
  return a.length === b.length && a.every((e, i) => e.label === b[i].label && e.value === b[i].value && e.detail === b[i].detail);
}

/** Whether a pod update can change what the checks see (isSignificantPodUpdate: images, new ephemeral containers). */
export function isSignificantPodUpdate(pod: PodLike, old: PodLike): boolean {
  const cs = pod.spec?.containers ?? [];
  const ocs = old.spec?.containers ?? [];
  const ics = pod.spec?.initContainers ?? [];
  const oics = old.spec?.initContainers ?? [];
  if (cs.length !== ocs.length || ics.length !== oics.length) return true;
  if (cs.some((c, i) => c.image !== ocs[i].image) || ics.some((c, i) => c.image !== oics[i].image)) return true;
  for (const c of pod.spec?.ephemeralContainers ?? []) {
    const prev = (old.spec?.ephemeralContainers ?? []).find((o) => o.name === c.name);
    if (!prev || prev.image !== c.image) return true;
  }
  return false;
}

export function podSecurityPlugin(ctx: AdmissionPluginContext, config: PodSecurityConfiguration = {}): AnyAdmissionPlugin {
  const defaults = defaultPolicyOf(config);
  const exemptNamespaces = new Set(config.exemptions?.namespaces ?? []);
  const exemptUsers = new Set(config.exemptions?.usernames ?? []);
  const exemptRuntimeClasses = new Set(config.exemptions?.runtimeClasses ?? []);
  const policyOf = (labels: Record<string, string> | undefined) => policyToEvaluate(labels, defaults);

  const exemptNamespaceWarning = (ns: string, policy: Policy, labels: Record<string, string>): string | undefined => {
    if (fullyPrivileged(policy) || (equivalent(policy.enforce, defaults.enforce) && equivalent(policy.audit, defaults.audit) && equivalent(policy.warn, defaults.warn))) return undefined;
    const parts: string[] = [];
    for (const mode of ["enforce", "audit", "warn"] as const) {
      const lv = policy[mode];
      if (lv.level !== "privileged" && (labelPrefix + mode in labels || `${labelPrefix}${mode}-version` in labels)) parts.push(`${mode}=${levelVersionString(lv)}`);
    }
    return `namespace ${JSON.stringify(ns)} is exempt from Pod Security, and the policy (${parts.join(", ")}) will be ignored`;
  };

  const annotate = (a: AdmissionAttributes, key: string, value: string): void => {
    a.auditAnnotations.set(labelPrefix + key, value);
  };

  /** EvaluatePod: enforce (pods only), audit, warn. */
  const evaluate = (a: AdmissionAttributes, policy: Policy, policyErrors: LabelError[], pod: PodLike, enforce: boolean): void => {
    const runtimeClass = pod.spec?.runtimeClassName;
    if (runtimeClass && exemptRuntimeClasses.has(runtimeClass)) {
      annotate(a, "exempt", "runtimeClass");
      return;
    }
    if (policyErrors.length) {
      annotate(a, "error", `Failed to parse policy: ${policyErrors.map((e) => `metadata.labels[${e.label}]: Invalid value: ${JSON.stringify(e.value)}: ${e.detail}`).join(", ")}`);
    }
    const results = new Map<string, string | undefined>();
    const detailAt = (lv: LevelVersion): string | undefined => {
      const key = levelVersionString(lv);
      if (!results.has(key)) results.set(key, forbiddenDetail(evaluatePod(lv.level, lv.version, pod.metadata, pod.spec ?? {})));
      return results.get(key);
    };
    if (enforce) {
      annotate(a, "enforce-policy", levelVersionString(policy.enforce));
      const detail = detailAt(policy.enforce);
      if (detail !== undefined) {
        throw StatusError.forbidden({ group: a.resource.group, resource: a.resource.resource }, a.name, `violates PodSecurity "${levelVersionString(policy.enforce)}": ${detail}`);
      }
    }
    const audit = detailAt(policy.audit);
    if (audit !== undefined) annotate(a, "audit-violations", `would violate PodSecurity "${levelVersionString(policy.audit)}": ${audit}`);
    const warn = detailAt(policy.warn);
    if (warn !== undefined) a.warnings.push(`would violate PodSecurity "${levelVersionString(policy.warn)}": ${warn}`);
  };

  const namespaceLabels = async (name: string): Promise<Record<string, string> | undefined> => {
    const ns = await ctx.storage.get(objectKey("", "namespaces", undefined, name));
    if (!ns) throw StatusError.internalError(new Error(`failed to lookup namespace ${JSON.stringify(name)}`));
    return ns.object.metadata?.labels;
  };

  /** EvaluatePodsInNamespace: warnings for the existing pods that violate a new enforce level. */
  const evaluatePodsInNamespace = async (namespace: string, enforce: LevelVersion): Promise<string[]> => {
    const all = (await ctx.storage.list(collectionPrefix("", "pods", namespace))).items.map((i) => i.object as PodLike);
    const first: PodLike[] = [];
    const duplicates: PodLike[] = [];
    const seenControllers = new Set<string>();
    for (const p of all) {
      if (p.spec?.runtimeClassName && exemptRuntimeClasses.has(p.spec.runtimeClassName)) continue;
      const owner = p.metadata?.ownerReferences?.find((o) => o.controller === true);
      if (!owner?.uid) first.push(p);
      else if (seenControllers.has(owner.uid)) duplicates.push(p);
      else {
        seenControllers.add(owner.uid);
        first.push(p);
      }
    }
    const prioritized = [...first, ...duplicates];
    const total = prioritized.length;
    const checked = prioritized.slice(0, namespaceMaxPodsToCheck);
    const byWarning = new Map<string, { name: string; count: number }>();
    const order: string[] = [];
    for (const p of checked) {
      const reasons = forbiddenReasons(evaluatePod(enforce.level, enforce.version, p.metadata, p.spec ?? {}));
      if (reasons === undefined) continue;
      const name = p.metadata?.name ?? "";
      const c = byWarning.get(reasons);
      if (!c) {
        byWarning.set(reasons, { name, count: 1 });
        order.push(reasons);
      } else {
        c.count++;
        if (name < c.name) c.name = name;
      }
    }
    const warnings: string[] = [];
    if (checked.length < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked.length} of ${total} existing pods`);
    if (order.length) warnings.push(`existing pods in namespace ${JSON.stringify(namespace)} violate the new PodSecurity enforce level ${JSON.stringify(levelVersionString(enforce))}`);
    const decorated = order.map((w) => {
      const c = byWarning.get(w)!;
      if (c.count === 1) return `${c.name}: ${w}`;
      if (c.count === 2) return `${c.name} (and 1 other pod): ${w}`;
      return `${c.name} (and ${c.count - 1} other pods): ${w}`;
    });
    return [...warnings, ...decorated.sort()];
  };

  const validateNamespace = async (a: AdmissionAttributes): Promise<void> => {
    if (a.subresource !== "" || !a.object) return;
    const name = a.object.metadata?.name ?? a.name;
    const labels = a.object.metadata?.labels ?? {};
    const { policy, errors } = policyOf(labels);
    const invalid = () => StatusError.invalid({ group: "", kind: "Namespace" }, name, labelFieldErrors(errors));
    if (a.operation === "CREATE") {
      if (errors.length) throw invalid();
      if (exemptNamespaces.has(name)) {
        const w = exemptNamespaceWarning(name, policy, labels);
        if (w) a.warnings.push(w);
      }
      return;
    }
    const old = policyOf(a.oldObject?.metadata?.labels);
    if (errors.length && (old.errors.length === 0 || !sameErrors(errors, old.errors))) throw invalid();
    if (sameLevelVersion(policy.enforce, old.policy.enforce)) return;
    if (policy.enforce.level === "privileged") return;
    const sameVersion = policy.enforce.version.latest === old.policy.enforce.version.latest && policy.enforce.version.minor === old.policy.enforce.version.minor && policy.enforce.version.major === old.policy.enforce.version.major;
    if (sameVersion && compareLevels(policy.enforce.level, old.policy.enforce.level) < 1) return;
    if (exemptNamespaces.has(name)) {
      const w = exemptNamespaceWarning(name, policy, labels);
      if (w) a.warnings.push(w);
      return;
    }
    a.warnings.push(...(await evaluatePodsInNamespace(name, policy.enforce)));
  };

  const validatePod = async (a: AdmissionAttributes, pod: PodLike, enforce: boolean): Promise<void> => {
    if (exemptNamespaces.has(a.namespace)) return annotate(a, "exempt", "namespace");
    if (a.userInfo.username !== "" && exemptUsers.has(a.userInfo.username)) return annotate(a, "exempt", "user");
    let labels: Record<string, string> | undefined;
    try {
      labels = await namespaceLabels(a.namespace);
    } catch (err) {
      // A pod cannot be admitted without its namespace's policy; a controller's template is only warned about.
      if (enforce) throw err;
      annotate(a, "error", `failed to lookup namespace ${JSON.stringify(a.namespace)}`);
      return;
    }
    const { policy, errors } = policyOf(labels);
    if (errors.length === 0) {
      if (enforce && fullyPrivileged(policy)) return annotate(a, "enforce-policy", "privileged:latest");
      if (!enforce && policy.warn.level === "privileged" && policy.audit.level === "privileged") return;
    }
    evaluate(a, policy, errors, pod, enforce);
  };

  return {
    name: "PodSecurity",
    handles: (op) => op === "CREATE" || op === "UPDATE",
    handlesResource: (r, sub) =>
      (r.group === "" && (r.resource === "namespaces" || r.resource === "pods")) || (sub === "" && podTemplatePaths[`${r.group}/${r.resource}`] !== undefined),
    async validate(a) {
      const { group, resource } = a.resource;
      if (group === "" && resource === "namespaces") return validateNamespace(a);
      if (!a.object) return;
      if (group === "" && resource === "pods") {
        if (ignoredPodSubresources.has(a.subresource)) return;
        if (a.operation === "UPDATE" && a.oldObject && !isSignificantPodUpdate(a.object as PodLike, a.oldObject as PodLike)) return;
        return validatePod(a, a.object as PodLike, true);
      }
      const path = podTemplatePaths[`${group}/${resource}`];
      if (!path || a.subresource !== "") return;
      let template: unknown = a.object;
      for (const p of path) template = (template as Record<string, unknown> | undefined)?.[p];
      if (template === undefined || template === null) return;
      return validatePod(a, template as PodLike, false);
    },
  };
}

/** The registration with a configuration (kube-apiserver's --admission-control-config-file PodSecurity entry). */
export function podSecurityAdmission(config: PodSecurityConfiguration = {}): AdmissionPluginRegistration {
  defaultPolicyOf(config);
  return { name: "PodSecurity", create: (ctx) => podSecurityPlugin(ctx, config) };
}

export const podSecurity: AdmissionPluginRegistration = podSecurityAdmission();
