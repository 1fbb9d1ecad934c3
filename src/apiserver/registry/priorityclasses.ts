/**
 * scheduling.k8s.io/v1 PriorityClasses (pkg/apis/scheduling, pkg/registry/scheduling and the
 * Priority admission plugin):
 * - defaults: preemptionPolicy PreemptLowerPriority;
 * - names starting with "system-" are reserved for the two built-in classes, which must keep
 *   their values and globalDefault false; other classes may not exceed one billion;
 * - value and preemptionPolicy are immutable;
 * - at most one class is the global default (admission: a 403 naming the existing one);
 * - the built-in classes cannot be deleted (403) and exist from startup (ensurePriorityClasses).
 * No generation, no status.
 */
import { StatusError } from "../../apimachinery/errors.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defaultWriteContext, type ResourceHooks } from "../rest/context.js";
import type { ResourceStore } from "../rest/store.js";
import { defineStrategy } from "./define.js";
import { validateImmutableField } from "./meta.js";
import { bool, fieldsOf, num, objAt, rec, str } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

export const schedulingGroup = "scheduling.k8s.io";
export const systemPriorityClassPrefix = "system-";
/** The largest value a user-defined class may have (HighestUserDefinablePriority). */
export const highestUserDefinablePriority = 1_000_000_000;
/** SystemCriticalPriority: 2 × HighestUserDefinablePriority. */
export const systemCriticalPriority = 2 * highestUserDefinablePriority;

/** The classes kube-apiserver creates at startup (SystemPriorityClasses). */
export const systemPriorityClasses: readonly { name: string; value: number; description: string }[] = [
  { name: "system-node-critical", value: systemCriticalPriority + 1000, description: "Used for system critical pods that must not be moved from their current node." },
  { name: "system-cluster-critical", value: systemCriticalPriority, description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary." },
];

const preemptionPolicies = ["Never", "PreemptLowerPriority"];

export function defaultPriorityClass(obj: KubeObject): void {
  const pc = fieldsOf(obj);
  if (pc.preemptionPolicy === undefined || pc.preemptionPolicy === null) pc.preemptionPolicy = "PreemptLowerPriority";
}

/** IsKnownSystemPriorityClass: undefined when it is one, else why not. */
function systemClassError(name: string, value: number, globalDefault: boolean): string | undefined {
  const spc = systemPriorityClasses.find((c) => c.name === name);
  if (!spc) return `${name} is not a known system priority class`;
  if (spc.value !== value) return `value of ${spc.name} PriorityClass must be ${spc.value}`;
  if (globalDefault) return `globalDefault of ${spc.name} PriorityClass must be false`;
  return undefined;
}

export function validatePriorityClass(obj: KubeObject): FieldError[] {
  const pc = fieldsOf(obj);
  const errs: FieldError[] = [];
  const name = obj.metadata?.name ?? "";
  const value = num(pc.value) ?? 0;
  if (name.startsWith(systemPriorityClassPrefix)) {
    const why = systemClassError(name, value, bool(pc.globalDefault) ?? false);
    if (why) {
      errs.push(fieldErrors.forbidden("metadata.name", `priority class names with '${systemPriorityClassPrefix}' prefix are reserved for system use only. error: ${why}`));
    }
  } else if (value > highestUserDefinablePriority) {
    errs.push(fieldErrors.forbidden("value", `maximum allowed value of a user defined priority is ${highestUserDefinablePriority}`));
  }
  const policy = pc.preemptionPolicy;
  if (policy !== undefined && policy !== null) {
    if (policy === "") errs.push(fieldErrors.required("preemptionPolicy", ""));
    else if (!preemptionPolicies.includes(String(policy))) errs.push(fieldErrors.notSupported("preemptionPolicy", policy, preemptionPolicies));
  }
  return errs;
}

export function validatePriorityClassUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const n = fieldsOf(obj);
  const o = fieldsOf(old);
  const errs: FieldError[] = [];
  if ((num(n.value) ?? 0) !== (num(o.value) ?? 0)) errs.push(fieldErrors.forbidden("value", "may not be changed in an update."));
  errs.push(...validateImmutableField(n.preemptionPolicy, o.preemptionPolicy, "preemptionPolicy"));
  return errs;
}

export const priorityClassStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: schedulingGroup,
    version: "v1",
    kind: "PriorityClass",
    resource: "priorityclasses",
    singular: "priorityclass",
    listKind: "PriorityClassList",
    shortNames: ["pc"],
    categories: [],
    namespaced: false,
  },
  nameFn: nameIsDNSSubdomain,
  defaults: defaultPriorityClass,
  validateCreate: validatePriorityClass,
  // Upstream's update validation checks only immutability (ObjectMeta is checked by the store).
  validateUpdate: validatePriorityClassUpdate,
});

const priorityClassesGR = { group: schedulingGroup, resource: "priorityclasses" };

/**
 * The Priority admission plugin's rule for PriorityClasses: at most one global default (`store`
 * is the priorityclasses store itself, to look for an existing default). Run by the admission
 * chain (admission/plugins/priority.ts).
 */
export async function checkSingleGlobalDefault(obj: KubeObject, updating: boolean, s: ResourceStore | undefined): Promise<void> {
  if (bool(fieldsOf(obj).globalDefault) !== true) return;
  if (!s) return;
  const name = obj.metadata?.name ?? "";
  const list = await s.storage.list(s.prefix(undefined));
  const existing = list.items.map((i) => i.object).find((pc) => bool(fieldsOf(pc).globalDefault) === true);
  if (!existing) return;
  const existingName = existing.metadata?.name ?? "";
  if (!updating || existingName !== name) {
    throw StatusError.forbidden(priorityClassesGR, name, `PriorityClass ${existingName} is already marked as default. Only one default can exist`);
  }
}

/** The storage rule that the system classes cannot be deleted. */
export function priorityClassHooks(): ResourceHooks {
  return {
    validateDelete(obj) {
      const name = obj.metadata?.name ?? "";
      if (systemPriorityClasses.some((c) => c.name === name)) {
        throw StatusError.forbidden(priorityClassesGR, name, "this is a system priority class and cannot be deleted");
      }
    },
  };
}

/** The system classes on a fresh cluster (the scheduling post-start hook); existing ones are left alone. */
export async function ensurePriorityClasses(store: ResourceStore | undefined): Promise<void> {
  if (!store) return;
  for (const c of systemPriorityClasses) {
    if (await store.storage.get(store.key(undefined, c.name))) continue;
    try {
      await store.create(
        undefined,
        { apiVersion: `${schedulingGroup}/v1`, kind: "PriorityClass", metadata: { name: c.name }, value: c.value, description: c.description },
        defaultWriteContext({ fieldManager: "kube-apiserver" }),
      );
    } catch (err) {
      if (!(err instanceof StatusError && err.reason === "AlreadyExists")) throw err;
    }
  }
}


const podsGR = { group: "", resource: "pods" };

/**
 * The Priority admission plugin's rule for Pods: on create, spec.priority and
 * spec.preemptionPolicy come from the named PriorityClass (or the global default class, else
 * priority 0 and PreemptLowerPriority); a missing class or a conflicting value the client set is
 * refused with 403. On updates the stored values are kept.
 */
export async function admitPodPriority(pod: KubeObject, old: KubeObject | undefined, classes: ResourceStore | undefined): Promise<void> {
  const spec = objAt(fieldsOf(pod), "spec");
  if (old) {
    const oldSpec = rec(fieldsOf(old).spec) ?? {};
    for (const f of ["priority", "preemptionPolicy"]) {
      if (oldSpec[f] === undefined) delete spec[f];
      else spec[f] = oldSpec[f];
    }
    return;
  }
  if (!classes) return;
  const name = pod.metadata?.name ?? pod.metadata?.generateName ?? "";
  let priority = 0;
  let policy: unknown = "PreemptLowerPriority";
  const className = str(spec.priorityClassName) ?? "";
  if (className === "") {
    const all = (await classes.storage.list(classes.prefix(undefined))).items.map((i) => i.object);
    const def = all.filter((pc) => bool(fieldsOf(pc).globalDefault) === true).sort((a, b) => (num(fieldsOf(a).value) ?? 0) - (num(fieldsOf(b).value) ?? 0))[0];
    if (def) {
      spec.priorityClassName = def.metadata?.name ?? "";
      priority = num(fieldsOf(def).value) ?? 0;
      policy = fieldsOf(def).preemptionPolicy;
    }
  } else {
    const pc = await classes.storage.get(classes.key(undefined, className));
    if (!pc) throw StatusError.forbidden(podsGR, name, `no PriorityClass with name ${className} was found`);
    priority = num(fieldsOf(pc.object).value) ?? 0;
    policy = fieldsOf(pc.object).preemptionPolicy;
  }
  const given = num(spec.priority);
  if (given !== undefined && given !== priority) {
    throw StatusError.forbidden(
      podsGR,
      name,
      `the integer value of priority (${given}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
    );
  }
  spec.priority = priority;
  if (typeof policy === "string") {
    const givenPolicy = str(spec.preemptionPolicy);
    if (givenPolicy !== undefined && givenPolicy !== policy) {
      throw StatusError.forbidden(
        podsGR,
        name,
        `the string value of PreemptionPolicy (${givenPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`,
      );
    }
    spec.preemptionPolicy = policy;
  }
}
