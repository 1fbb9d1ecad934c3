/**
 * batch/v1 Jobs.
 *
 * Defaults (SetDefaults_Job): completions and parallelism 1 when both are unset, parallelism 1,
 * backoffLimit 6 (MaxInt32 with backoffLimitPerIndex), the template's labels copied to the Job
 * when it has none, completionMode NonIndexed, suspend false, podReplacementPolicy Failed with a
 * podFailurePolicy and TerminatingOrFailed otherwise, manualSelector false, onPodConditions
 * status True; the pod template's defaults.
 *
 * Selector generation (the job strategy's PrepareForCreate): unless manualSelector, the template
 * gets job-name, batch.kubernetes.io/job-name, controller-uid and
 * batch.kubernetes.io/controller-uid labels (a label the user set is left for validation to
 * reject) and the selector matches batch.kubernetes.io/controller-uid=<uid>.
 *
 * Validation (ValidateJob / ValidateJobUpdate / the status subset): the generated selector, the
 * selector against the template, the counts, completion modes and their limits, pod failure and
 * success policies, pod replacement policy, the pod template with restartPolicy OnFailure or
 * Never; on update the selector, completions, completionMode, podFailurePolicy,
 * backoffLimitPerIndex, managedBy, successPolicy and the template are immutable — except node
 * affinity, node selector, tolerations, labels, annotations and scheduling gates of a suspended
 * Job that never started.
 *
 * batch/v1 deletes orphan a Job's pods unless a propagation policy is given, with upstream's
 * warning. Field selector: status.successful.
 */
import type { Job, JobSpec } from "../../apimachinery/api/batch/v1.js";
import type { PodTemplateSpec } from "../../apimachinery/api/core/v1.js";
import { fieldErrors, omitValue, FieldError } from "../../apimachinery/fielderrors.js";
import { labelSelectorAsSelector } from "../../apimachinery/labels.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isDNS1123Label, isQualifiedName, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy, metaOf } from "./define.js";
import { validateDomainPrefixedPath } from "./identifiers.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { validateImmutableField, validateLabelSelector, validateNonnegative } from "./meta.js";
import { child, index, key } from "./path.js";
import { defaultPodTemplateSpec } from "./poddefaults.js";
import { validatePodTemplateSpec } from "./podvalidation.js";
import { rec, ensureRecord, list, stringMapOf } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

export const legacyJobNameLabel = "job-name";
export const jobNameLabel = "batch.kubernetes.io/job-name";
export const legacyControllerUidLabel = "controller-uid";
export const controllerUidLabel = "batch.kubernetes.io/controller-uid";

const maxInt32 = 2147483647;
const maxParallelismForIndexedJob = 100000;
const maxFailedIndexesForIndexedJob = 100_000;
const completionsSoftLimit = 100_000;
const parallelismLimitForHighCompletions = 10_000;
const maxFailedIndexesLimitForHighCompletions = 10_000;
const maxPodFailurePolicyRules = 20;
const maxPodFailurePolicyOnExitCodesValues = 255;
const maxPodFailurePolicyOnPodConditionsPatterns = 20;
const maxManagedByLength = 63;
const maxSuccessPolicyRule = 20;
const maxJobSuccessPolicySucceededIndexesLimit = 64 * 1024;

export const jobDeleteWarning =
  "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning";

const asJob = (o: KubeObject) => o as unknown as Job;

/** SetDefaults_Job on a Job's spec (CronJob job templates get only the pod template defaults). */
export function defaultJobSpec(spec: JobSpec & Record<string, unknown>): void {
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  if (spec.backoffLimit == null) spec.backoffLimit = spec.backoffLimitPerIndex != null ? maxInt32 : 6;
  spec.completionMode ??= "NonIndexed";
  spec.suspend ??= false;
  defaultPodFailurePolicy(spec);
  spec.podReplacementPolicy ??= spec.podFailurePolicy != null ? "Failed" : "TerminatingOrFailed";
  spec.manualSelector ??= false;
}

/** SetDefaults_PodFailurePolicyOnPodConditionsPattern: status True. */
export function defaultPodFailurePolicy(spec: JobSpec): void {
  for (const rule of list<Record<string, unknown>>(rec(spec.podFailurePolicy)?.rules)) {
    for (const pattern of list<Record<string, unknown>>(rec(rule)?.onPodConditions)) {
      if (rec(pattern) && !pattern.status) pattern.status = "True";
    }
  }
}

export function defaultJob(obj: KubeObject): void {
  const spec = ensureRecord(obj, "spec") as (JobSpec & Record<string, unknown>) | undefined;
  if (!spec) return;
  defaultJobSpec(spec);
  const labels = stringMapOf(rec(rec(spec.template)?.metadata)?.labels);
  const meta = metaOf(obj);
  if (labels && Object.keys(meta.labels ?? {}).length === 0) meta.labels = { ...labels };
  if (rec(spec.template)) defaultPodTemplateSpec(spec.template as PodTemplateSpec);
}

/** generateSelector: the labels and selector that tie the pods to this Job. */
export function generateJobSelector(obj: KubeObject): void {
  const spec = rec(obj.spec) as (JobSpec & Record<string, unknown>) | undefined;
  if (!spec || spec.manualSelector === true) return;
  const template = ensureRecord(spec, "template");
  const tmeta = template && ensureRecord(template, "metadata");
  const labels = tmeta && ensureRecord(tmeta, "labels");
  if (!labels) return;
  const name = obj.metadata?.name ?? "";
  const uid = obj.metadata?.uid ?? "";
  // A label the user set is kept: validation then reports the conflict.
  for (const k of [legacyJobNameLabel, jobNameLabel]) if (!(k in labels)) labels[k] = name;
  for (const k of [legacyControllerUidLabel, controllerUidLabel]) if (!(k in labels)) labels[k] = uid;
  const selector = ensureRecord(spec, "selector");
  const matchLabels = selector && ensureRecord(selector, "matchLabels");
  if (matchLabels && !(controllerUidLabel in matchLabels)) matchLabels[controllerUidLabel] = uid;
}

/**
 * The job strategy's PrepareForCreate: the generated selector, then the label defaulting that
 * upstream applies when it reads the stored Job back (SetDefaults_Job copies the template's
 * labels, by now including the generated ones, to a Job without labels).
 */
export function prepareJobForCreate(obj: KubeObject): void {
  generateJobSelector(obj);
  const labels = stringMapOf(rec(rec(rec(obj.spec)?.template)?.metadata)?.labels);
  const meta = metaOf(obj);
  if (labels && Object.keys(meta.labels ?? {}).length === 0) meta.labels = { ...labels };
}

/** ValidateHasLabel. */
function validateHasLabel(labels: Record<string, string> | undefined, base: string, k: string, want: string): FieldError[] {
  const p = key(child(base, "labels"), k);
  if (!labels || !(k in labels)) return [fieldErrors.required(p, `must be '${want}'`)];
  if (labels[k] !== want) return [fieldErrors.invalid(p, labels, `must be '${want}'`)];
  return [];
}

/** validateGeneratedSelector. */
export function validateGeneratedSelector(obj: KubeObject, requirePrefixedLabels: boolean): FieldError[] {
  const job = asJob(obj);
  const errs: FieldError[] = [];
  if (job.spec?.manualSelector === true || !job.spec?.selector) return errs;
  const uid = job.metadata?.uid ?? "";
  const name = job.metadata?.name ?? "";
  if (uid === "") errs.push(fieldErrors.required("metadata.uid", ""));
  const labels = stringMapOf(job.spec.template?.metadata?.labels);
  const base = "spec.template.metadata";
  errs.push(...validateHasLabel(labels, base, legacyControllerUidLabel, uid));
  errs.push(...validateHasLabel(labels, base, legacyJobNameLabel, name));
  const expected: Record<string, string> = {};
  if (requirePrefixedLabels) {
    errs.push(...validateHasLabel(labels, base, controllerUidLabel, uid));
    errs.push(...validateHasLabel(labels, base, jobNameLabel, name));
    expected[controllerUidLabel] = uid;
    expected[jobNameLabel] = name;
  }
  expected[legacyControllerUidLabel] = uid;
  expected[legacyJobNameLabel] = name;
  try {
    if (!labelSelectorAsSelector(job.spec.selector).matches(expected)) {
      errs.push(fieldErrors.invalid("spec.selector", job.spec.selector, "`selector` not auto-generated"));
    }
  } catch {
    // An invalid selector is reported by ValidateJobSpec.
  }
  return errs;
}

/** Go's %q of a list of strings: ["a" "b"]. */
function goQuotedList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(" ")}]`;
}

const podFailurePolicyActions = ["Count", "FailIndex", "FailJob", "Ignore"];
const onExitCodesOperators = ["In", "NotIn"];
const conditionStatuses = ["False", "True", "Unknown"];

function validatePodFailurePolicy(spec: JobSpec, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const rules = list<Record<string, unknown>>(rec(spec.podFailurePolicy)?.rules);
  const rulesPath = child(field, "rules");
  if (rules.length > maxPodFailurePolicyRules) errs.push(fieldErrors.tooMany(rulesPath, rules.length, maxPodFailurePolicyRules));
  const containerNames = new Set<string>();
  for (const c of [...list<{ name?: string }>(spec.template?.spec?.containers), ...list<{ name?: string }>(spec.template?.spec?.initContainers)]) {
    if (typeof c?.name === "string") containerNames.add(c.name);
  }
  rules.forEach((rule, i) => {
    const rp = index(rulesPath, i);
    const ap = child(rp, "action");
    const action = rule?.action;
    if (!action) errs.push(fieldErrors.required(ap, `valid values: ${goQuotedList(podFailurePolicyActions)}`));
    else if (action === "FailIndex") {
      if (spec.backoffLimitPerIndex == null) errs.push(fieldErrors.invalid(ap, action, "requires the backoffLimitPerIndex to be set"));
    } else if (typeof action !== "string" || !podFailurePolicyActions.includes(action)) {
      errs.push(fieldErrors.notSupported(ap, action, podFailurePolicyActions));
    }
    const onExit = rec(rule?.onExitCodes);
    if (onExit) {
      const ep = child(rp, "onExitCodes");
      const op = onExit.operator;
      if (!op) errs.push(fieldErrors.required(child(ep, "operator"), `valid values: ${goQuotedList(onExitCodesOperators)}`));
      else if (typeof op !== "string" || !onExitCodesOperators.includes(op)) errs.push(fieldErrors.notSupported(child(ep, "operator"), op, onExitCodesOperators));
      if (typeof onExit.containerName === "string" && !containerNames.has(onExit.containerName)) {
        errs.push(fieldErrors.invalid(child(ep, "containerName"), onExit.containerName, "must be one of the container or initContainer names in the pod template"));
      }
      const values = list<number>(onExit.values);
      const vp = child(ep, "values");
      if (values.length === 0) errs.push(fieldErrors.invalid(vp, onExit.values ?? null, "at least one value is required"));
      else if (values.length > maxPodFailurePolicyOnExitCodesValues) errs.push(fieldErrors.tooMany(vp, values.length, maxPodFailurePolicyOnExitCodesValues));
      let ordered = true;
      const seen = new Set<number>();
      values.forEach((v, j) => {
        if (op === "In" && v === 0) errs.push(fieldErrors.invalid(index(vp, j), v, "must not be 0 for the In operator"));
        if (seen.has(v)) errs.push(fieldErrors.duplicate(index(vp, j), v));
        else seen.add(v);
        if (j > 0 && values[j - 1] > v) ordered = false;
      });
      if (!ordered) errs.push(fieldErrors.invalid(vp, values, "must be ordered"));
    }
    const patterns = list<Record<string, unknown>>(rule?.onPodConditions);
    if (patterns.length > 0) {
      const pp = child(rp, "onPodConditions");
      if (patterns.length > maxPodFailurePolicyOnPodConditionsPatterns) errs.push(fieldErrors.tooMany(pp, patterns.length, maxPodFailurePolicyOnPodConditionsPatterns));
      patterns.forEach((pat, j) => {
        const patp = index(pp, j);
        const t = typeof pat?.type === "string" ? pat.type : "";
        for (const msg of isQualifiedName(t)) errs.push(fieldErrors.invalid(child(patp, "type"), t, msg));
        const st = pat?.status;
        if (!st) errs.push(fieldErrors.required(child(patp, "status"), `valid values: ${goQuotedList(conditionStatuses)}`));
        else if (typeof st !== "string" || !conditionStatuses.includes(st)) errs.push(fieldErrors.notSupported(child(patp, "status"), st, conditionStatuses));
      });
    }
    if (onExit && patterns.length > 0) errs.push(new FieldError("FieldValueInvalid", rp, omitValue, "specifying both OnExitCodes and OnPodConditions is not supported"));
    if (!onExit && patterns.length === 0) errs.push(new FieldError("FieldValueInvalid", rp, omitValue, "specifying one of OnExitCodes and OnPodConditions is required"));
  });
  return errs;
}

/** The number of indexes in "1,3-5" style text, or an error (validateIndexesFormat). */
function validateIndexesFormat(indexes: string, completions: number): { count: number; error?: string } {
  if (indexes === "") return { count: 0 };
  let count = 0;
  let prev = -1;
  for (const part of indexes.split(",")) {
    const bounds = part.split("-");
    if (bounds.length > 2) return { count, error: `the fragment "${part}" violates the requirement that an index interval can have at most two parts separated by '-'` };
    const nums: number[] = [];
    for (const b of bounds) {
      if (!/^[0-9]+$/.test(b)) return { count, error: `cannot convert string to integer for index: "${b}"` };
      nums.push(Number(b));
    }
    const [x, y = nums[0]] = nums;
    if (x >= completions) return { count, error: `too large index: "${x}"` };
    if (y >= completions) return { count, error: `too large index: "${y}"` };
    if (x <= prev) return { count, error: `non-increasing order, previous: ${prev}, current: ${x}` };
    if (bounds.length === 2 && x >= y) return { count, error: `non-increasing order, previous: ${x}, current: ${y}` };
    prev = y;
    count += y - x + 1;
  }
  return { count };
}

function validateSuccessPolicy(spec: JobSpec, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const rules = list<Record<string, unknown>>(rec(spec.successPolicy)?.rules);
  const rp = child(field, "rules");
  if (rules.length === 0) errs.push(fieldErrors.required(rp, "at least one rules must be specified when the successPolicy is specified"));
  if (rules.length > maxSuccessPolicyRule) errs.push(fieldErrors.tooMany(rp, rules.length, maxSuccessPolicyRule));
  const completions = spec.completions ?? 0;
  rules.forEach((rule, i) => {
    const p = index(rp, i);
    if (rule?.succeededCount == null && rule?.succeededIndexes == null) {
      errs.push(fieldErrors.required(p, "at least one of succeededCount or succeededIndexes must be specified"));
    }
    let total = 0;
    if (typeof rule?.succeededIndexes === "string") {
      const ip = child(p, "succeededIndexes");
      if (rule.succeededIndexes.length > maxJobSuccessPolicySucceededIndexesLimit) errs.push(fieldErrors.tooLong(ip, "", maxJobSuccessPolicySucceededIndexesLimit));
      const r = validateIndexesFormat(rule.succeededIndexes, completions);
      total = r.count;
      if (r.error) errs.push(fieldErrors.invalid(ip, rule.succeededIndexes, `error parsing succeededIndexes: ${r.error}`));
    }
    if (typeof rule?.succeededCount === "number") {
      const cp = child(p, "succeededCount");
      errs.push(...validateNonnegative(rule.succeededCount, cp));
      if (rule.succeededCount > completions) {
        errs.push(fieldErrors.invalid(cp, rule.succeededCount, `must be less than or equal to ${completions} (the number of specified completions)`));
      }
      if (typeof rule.succeededIndexes === "string" && rule.succeededCount > total) {
        errs.push(fieldErrors.invalid(cp, rule.succeededCount, `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`));
      }
    }
  });
  return errs;
}

/** validateJobSpec (the part shared with CronJob job templates). */
export function validateJobSpecCommon(spec: JobSpec | undefined, field: string): FieldError[] {
  const s = spec ?? ({} as JobSpec);
  const errs: FieldError[] = [];
  const nn = (k: keyof JobSpec) => {
    const v = s[k];
    if (typeof v === "number") errs.push(...validateNonnegative(v, child(field, k)));
  };
  (["parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished", "backoffLimitPerIndex"] as const).forEach(nn);
  if (s.maxFailedIndexes != null) {
    nn("maxFailedIndexes");
    if (s.backoffLimitPerIndex == null) errs.push(fieldErrors.required(child(field, "backoffLimitPerIndex"), "when maxFailedIndexes is specified"));
  }
  if (typeof s.managedBy === "string") {
    errs.push(...validateDomainPrefixedPath(child(field, "managedBy"), s.managedBy));
    if (s.managedBy.length > maxManagedByLength) errs.push(fieldErrors.tooLong(child(field, "managedBy"), s.managedBy, maxManagedByLength));
  }
  const mode = s.completionMode;
  if (mode != null) {
    if (mode !== "NonIndexed" && mode !== "Indexed") errs.push(fieldErrors.notSupported(child(field, "completionMode"), mode, ["NonIndexed", "Indexed"]));
    if (mode === "Indexed") {
      if (s.completions == null) errs.push(fieldErrors.required(child(field, "completions"), "when completion mode is Indexed"));
      if (s.parallelism != null && s.parallelism > maxParallelismForIndexedJob) {
        errs.push(fieldErrors.invalid(child(field, "parallelism"), s.parallelism, `must be less than or equal to ${maxParallelismForIndexedJob} when completion mode is Indexed`));
      }
      if (s.completions != null && s.maxFailedIndexes != null && s.maxFailedIndexes > s.completions) {
        errs.push(fieldErrors.invalid(child(field, "maxFailedIndexes"), s.maxFailedIndexes, "must be less than or equal to completions"));
      }
      if (s.maxFailedIndexes != null && s.maxFailedIndexes > maxFailedIndexesForIndexedJob) {
        errs.push(fieldErrors.invalid(child(field, "maxFailedIndexes"), s.maxFailedIndexes, `must be less than or equal to ${maxFailedIndexesForIndexedJob}`));
      }
      if (s.completions != null && s.completions > completionsSoftLimit && s.backoffLimitPerIndex != null) {
        if (s.maxFailedIndexes == null) {
          errs.push(fieldErrors.required(child(field, "maxFailedIndexes"), `must be specified when completions is above ${completionsSoftLimit}`));
        }
        if (s.parallelism != null && s.parallelism > parallelismLimitForHighCompletions) {
          errs.push(
            fieldErrors.invalid(
              child(field, "parallelism"),
              s.parallelism,
              `must be less than or equal to ${parallelismLimitForHighCompletions} when completions are above ${completionsSoftLimit} and used with backoff limit per index`,
            ),
          );
        }
        if (s.maxFailedIndexes != null && s.maxFailedIndexes > maxFailedIndexesLimitForHighCompletions) {
          errs.push(
            fieldErrors.invalid(
              child(field, "maxFailedIndexes"),
              s.maxFailedIndexes,
              `must be less than or equal to ${maxFailedIndexesLimitForHighCompletions} when completions are above ${completionsSoftLimit} and used with backoff limit per index`,
            ),
          );
        }
      }
    }
  }
  if (mode == null || mode === "NonIndexed") {
    if (s.backoffLimitPerIndex != null) errs.push(fieldErrors.invalid(child(field, "backoffLimitPerIndex"), s.backoffLimitPerIndex, "requires indexed completion mode"));
    if (s.maxFailedIndexes != null) errs.push(fieldErrors.invalid(child(field, "maxFailedIndexes"), s.maxFailedIndexes, "requires indexed completion mode"));
  }
  if (s.podFailurePolicy != null) errs.push(...validatePodFailurePolicy(s, child(field, "podFailurePolicy")));
  if (s.successPolicy != null) {
    if ((mode ?? "NonIndexed") !== "Indexed") errs.push(fieldErrors.invalid(child(field, "successPolicy"), s.successPolicy, "requires indexed completion mode"));
    else errs.push(...validateSuccessPolicy(s, child(field, "successPolicy")));
  }
  if (s.podReplacementPolicy != null) {
    const prp = child(field, "podReplacementPolicy");
    if (s.podFailurePolicy != null) {
      if (s.podReplacementPolicy !== "Failed") errs.push(fieldErrors.notSupported(prp, s.podReplacementPolicy, ["Failed"]));
    } else if (s.podReplacementPolicy !== "Failed" && s.podReplacementPolicy !== "TerminatingOrFailed") {
      errs.push(fieldErrors.notSupported(prp, s.podReplacementPolicy, ["Failed", "TerminatingOrFailed"]));
    }
  }
  const tp = child(field, "template");
  errs.push(...validatePodTemplateSpec(s.template, tp));
  const rp = s.template?.spec?.restartPolicy ?? "";
  const rpPath = child(tp, "spec", "restartPolicy");
  if (rp === "Always" || rp === "") errs.push(fieldErrors.required(rpPath, 'valid values: "OnFailure", "Never"'));
  else if (rp !== "OnFailure" && rp !== "Never") errs.push(fieldErrors.notSupported(rpPath, rp, ["OnFailure", "Never"]));
  else if (s.podFailurePolicy != null && rp !== "Never") errs.push(fieldErrors.invalid(rpPath, rp, 'only "Never" is supported when podFailurePolicy is specified'));
  return errs;
}

/** ValidateJobSpec: the shared rules plus the selector and the template it must select. */
export function validateJobSpec(spec: JobSpec | undefined, field: string): FieldError[] {
  const errs = validateJobSpecCommon(spec, field);
  const sp = child(field, "selector");
  if (!spec?.selector) errs.push(fieldErrors.required(sp, ""));
  else errs.push(...validateLabelSelector(spec.selector, sp));
  try {
    const selector = labelSelectorAsSelector(spec?.selector);
    const labels = spec?.template?.metadata?.labels;
    if (!selector.matches(labels ?? {})) {
      errs.push(fieldErrors.invalid(child(field, "template", "metadata", "labels"), labels ?? null, "`selector` does not match template `labels`"));
    }
  } catch {
    // Reported by the selector validation above.
  }
  return errs;
}

/** The parts of ValidateJob beyond ObjectMeta and ValidateJobSpec (which run as validateSpec). */
function validateJobIdentity(obj: KubeObject, requirePrefixedLabels: boolean): FieldError[] {
  const job = asJob(obj);
  const errs = validateGeneratedSelector(obj, requirePrefixedLabels);
  const spec = job.spec;
  if (spec?.completionMode === "Indexed" && typeof spec.completions === "number" && spec.completions > 0) {
    const host = `${job.metadata?.name ?? ""}-${spec.completions - 1}`;
    if (isDNS1123Label(host).length > 0) {
      errs.push(fieldErrors.invalid("metadata.name", job.metadata?.name ?? "", `will not able to create pod with invalid DNS label: ${host}`));
    }
  }
  return errs;
}

function validatePodTemplateUpdate(spec: JobSpec | undefined, oldSpec: JobSpec | undefined, mutableScheduling: boolean): FieldError[] {
  const template = spec?.template;
  let oldTemplate = oldSpec?.template;
  if (mutableScheduling && oldTemplate) {
    oldTemplate = structuredClone(oldTemplate);
    const t = template ?? ({} as PodTemplateSpec);
    const os = (oldTemplate.spec ??= { containers: [] });
    const affinity = t.spec?.affinity;
    if (!affinity && os.affinity) {
      delete os.affinity.nodeAffinity;
      if (Object.keys(os.affinity).length === 0) delete os.affinity;
    } else if (affinity && !os.affinity) {
      os.affinity = affinity.nodeAffinity ? { nodeAffinity: affinity.nodeAffinity } : {};
    } else if (affinity && os.affinity) {
      if (affinity.nodeAffinity) os.affinity.nodeAffinity = affinity.nodeAffinity;
      else delete os.affinity.nodeAffinity;
    }
    const copy = <K extends "nodeSelector" | "tolerations" | "schedulingGates">(k: K) => {
      if (t.spec?.[k] !== undefined) os[k] = t.spec[k];
      else delete os[k];
    };
    copy("nodeSelector");
    copy("tolerations");
    copy("schedulingGates");
    oldTemplate.metadata = { ...(oldTemplate.metadata ?? {}) };
    if (t.metadata?.annotations !== undefined) oldTemplate.metadata.annotations = t.metadata.annotations;
    else delete oldTemplate.metadata.annotations;
    if (t.metadata?.labels !== undefined) oldTemplate.metadata.labels = t.metadata.labels;
    else delete oldTemplate.metadata.labels;
  }
  return validateImmutableField(template, oldTemplate, "spec.template");
}

/** ValidateJobSpecUpdate's immutability rules (ValidateJobSpec itself runs as validateSpec). */
export function validateJobUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const spec = asJob(obj).spec;
  const oldSpec = asJob(old).spec;
  const errs: FieldError[] = [];
  // Elastic Indexed Jobs (GA): completions may change in tandem with parallelism.
  if (spec?.completionMode === "Indexed") {
    if (!semanticEqual(spec.completions, oldSpec?.completions) && spec.completions != null && spec.completions !== spec.parallelism) {
      errs.push(fieldErrors.invalid("spec.completions", spec.completions, "can only be modified in tandem with spec.parallelism"));
    }
  } else errs.push(...validateImmutableField(spec?.completions, oldSpec?.completions, "spec.completions"));
  errs.push(...validateImmutableField(spec?.selector, oldSpec?.selector, "spec.selector"));
  const mutableScheduling = oldSpec?.suspend === true && (rec(old.status)?.startTime ?? null) === null;
  errs.push(...validatePodTemplateUpdate(spec, oldSpec, mutableScheduling));
  errs.push(...validateImmutableField(spec?.completionMode, oldSpec?.completionMode, "spec.completionMode"));
  errs.push(...validateImmutableField(spec?.podFailurePolicy, oldSpec?.podFailurePolicy, "spec.podFailurePolicy"));
  errs.push(...validateImmutableField(spec?.backoffLimitPerIndex, oldSpec?.backoffLimitPerIndex, "spec.backoffLimitPerIndex"));
  errs.push(...validateImmutableField(spec?.managedBy, oldSpec?.managedBy, "spec.managedBy"));
  errs.push(...validateImmutableField(spec?.successPolicy, oldSpec?.successPolicy, "spec.successPolicy"));
  return errs;
}

function conditionTrue(status: Record<string, unknown>, type: string): boolean {
  return list<Record<string, unknown>>(status.conditions).some((c) => c?.type === type && c?.status === "True");
}

/** The status checks of validateJobStatus / ValidateJobStatusUpdate that every writer must honour. */
export function validateJobStatusUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const st = rec(obj.status) ?? {};
  const oldSt = rec(old.status) ?? {};
  const errs: FieldError[] = [];
  const n = (k: string) => (typeof st[k] === "number" ? (st[k] as number) : 0);
  for (const k of ["active", "succeeded", "failed"]) errs.push(...validateNonnegative(n(k), `status.${k}`));
  for (const k of ["ready", "terminating"]) if (typeof st[k] === "number") errs.push(...validateNonnegative(st[k] as number, `status.${k}`));
  const uncounted = rec(st.uncountedTerminatedPods);
  if (uncounted) {
    const seen = new Set<string>();
    for (const k of ["succeeded", "failed"]) {
      list<unknown>(uncounted[k]).forEach((uid, i) => {
        const p = index(`status.uncountedTerminatedPods.${k}`, i);
        if (uid === "") errs.push(fieldErrors.invalid(p, uid, "must not be empty"));
        else if (seen.has(String(uid))) errs.push(fieldErrors.duplicate(p, uid));
        else seen.add(String(uid));
      });
    }
  }
  const complete = conditionTrue(st, "Complete");
  const failed = conditionTrue(st, "Failed");
  if (complete && failed) errs.push(new FieldError("FieldValueInvalid", "status.conditions", omitValue, "cannot set Complete=True and Failed=true conditions"));
  if (typeof st.ready === "number" && st.ready > n("active")) errs.push(fieldErrors.invalid("status.ready", st.ready, "cannot set more ready pods than active"));
  const criteriaMet = conditionTrue(st, "SuccessCriteriaMet");
  if (criteriaMet && failed) errs.push(new FieldError("FieldValueInvalid", "status.conditions", omitValue, "cannot set SuccessCriteriaMet=True and Failed=true conditions"));
  if (criteriaMet && conditionTrue(st, "FailureTarget")) {
    errs.push(new FieldError("FieldValueInvalid", "status.conditions", omitValue, "cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"));
  }
  if (conditionTrue(oldSt, "SuccessCriteriaMet") && !criteriaMet) {
    errs.push(new FieldError("FieldValueInvalid", "status.conditions", omitValue, "cannot disable the SuccessCriteriaMet=True condition"));
  }
  return errs;
}

export const jobStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "batch",
    version: "v1",
    kind: "Job",
    resource: "jobs",
    singular: "job",
    listKind: "JobList",
    shortNames: [],
    categories: ["all"],
    namespaced: true,
  },
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  defaults: defaultJob,
  prepareForCreate: prepareJobForCreate,
  updateChecksFirst: false,
  validateCreate: (obj) => validateJobIdentity(obj, true),
  validateSpec: (obj) => validateJobSpec(asJob(obj).spec, "spec"),
  validateUpdate: (obj, old) => {
    // Jobs created before the prefixed labels existed keep validating without them.
    const requirePrefixed = stringMapOf(asJob(old).spec?.template?.metadata?.labels)?.[controllerUidLabel] !== undefined;
    const errs = validateJobIdentity(obj, requirePrefixed);
    errs.push(...validateJobUpdate(obj, old));
    return errs;
  },
  validateStatus: validateJobStatusUpdate,
  orphanDependentsByDefault: { warning: jobDeleteWarning },
  fields: (obj) => ({ "status.successful": String((rec(obj.status)?.succeeded as number | undefined) ?? 0) }),
});
