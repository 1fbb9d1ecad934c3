/**
 * LimitRanger (plugin/pkg/admission/limitranger): the LimitRanges of a namespace default and
 * bound the resources of new pods and of PersistentVolumeClaims.
 *
 * Mutating (pod CREATE): containers and init containers without a request or limit for a
 * resource get the Container item's defaultRequest / default, and the pod is annotated
 * `kubernetes.io/limit-ranger: LimitRanger plugin set: cpu, memory request for container c; ...`.
 * Validating (pod CREATE, PVC CREATE and UPDATE): Container items' min / max /
 * maxLimitRequestRatio per container, Pod items' against the pod's totals (containers summed,
 * init containers as their maximum), PersistentVolumeClaim items' min / max against the
 * claim's storage request; refused with 403 and upstream's texts ("minimum cpu usage per
 * Container is 100m, but request is 50m", several as "[a, b]"). Pod updates and subresources
 * are not checked (a pod's containers cannot change).
 */
import type { KubeObject } from "../../../apimachinery/types.js";
import { collectionPrefix } from "../../rest/keys.js";
import type { AdmissionPluginContext, AdmissionPluginRegistration, AnyAdmissionPlugin } from "../chain.js";
import { admissionForbidden, aggregateMessages, isResource } from "../attributes.js";
import type { AdmissionAttributes } from "../interfaces.js";
import { add, formatQuantity, milliValue, quantity, resourceList, value, type Quantity, type ResourceList } from "../quantity.js";

export const limitRangerAnnotation = "kubernetes.io/limit-ranger";

interface LimitItem {
  type?: string;
  max?: Record<string, string>;
  min?: Record<string, string>;
  default?: Record<string, string>;
  defaultRequest?: Record<string, string>;
  maxLimitRequestRatio?: Record<string, string>;
}
interface Resources {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
}
interface Container {
  name?: string;
  resources?: Resources;
}
interface PodSpec {
  containers?: Container[];
  initContainers?: Container[];
}

function limitItems(lr: KubeObject): LimitItem[] {
  return ((lr as { spec?: { limits?: LimitItem[] } }).spec?.limits ?? []) as LimitItem[];
}

const maxMilliValue = 9223372036854775n; // math.MaxInt64 / 1000

/** requestLimitEnforcedValues: milli-values unless one of them is too large for them. */
function enforcedValues(req: Quantity | undefined, lim: Quantity | undefined, enforced: Quantity): [bigint, bigint, bigint] {
  const all = [req, lim, enforced].filter((q): q is Quantity => q !== undefined);
  const useValue = all.some((q) => value(q) > maxMilliValue);
  const f = useValue ? value : milliValue;
  return [req ? f(req) : 0n, lim ? f(lim) : 0n, f(enforced)];
}

export function minConstraint(limitType: string, res: string, enforced: Quantity, request: ResourceList, limit: ResourceList): string | undefined {
  const req = request.get(res);
  const lim = limit.get(res);
  const [r, l, e] = enforcedValues(req, lim, enforced);
  const min = formatQuantity(enforced);
  if (!req) return `minimum ${res} usage per ${limitType} is ${min}.  No request is specified`;
  if (r < e) return `minimum ${res} usage per ${limitType} is ${min}, but request is ${formatQuantity(req)}`;
  if (lim && l < e) return `minimum ${res} usage per ${limitType} is ${min}, but limit is ${formatQuantity(lim)}`;
  return undefined;
}

export function maxConstraint(limitType: string, res: string, enforced: Quantity, request: ResourceList, limit: ResourceList): string | undefined {
  const req = request.get(res);
  const lim = limit.get(res);
  const [r, l, e] = enforcedValues(req, lim, enforced);
  const max = formatQuantity(enforced);
  if (!lim) return `maximum ${res} usage per ${limitType} is ${max}.  No limit is specified`;
  if (l > e) return `maximum ${res} usage per ${limitType} is ${max}, but limit is ${formatQuantity(lim)}`;
  if (req && r > e) return `maximum ${res} usage per ${limitType} is ${max}, but request is ${formatQuantity(req)}`;
  return undefined;
}

export function maxRequestConstraint(limitType: string, res: string, enforced: Quantity, request: ResourceList): string | undefined {
  const req = request.get(res);
  const [r, , e] = enforcedValues(req, undefined, enforced);
  const max = formatQuantity(enforced);
  if (!req) return `maximum ${res} usage per ${limitType} is ${max}.  No request is specified`;
  if (r > e) return `maximum ${res} usage per ${limitType} is ${max}, but request is ${formatQuantity(req)}`;
  return undefined;
}

export function limitRequestRatioConstraint(limitType: string, res: string, enforced: Quantity, request: ResourceList, limit: ResourceList): string | undefined {
  const req = request.get(res);
  const lim = limit.get(res);
  const [r, l] = enforcedValues(req, lim, enforced);
  const ratio = formatQuantity(enforced);
  if (!req || r === 0n) return `${res} max limit to request ratio per ${limitType} is ${ratio}, but no request is specified or request is 0`;
  if (!lim || l === 0n) return `${res} max limit to request ratio per ${limitType} is ${ratio}, but no limit is specified or limit is 0`;
  const observed = Number(l) / Number(r);
  let compared = observed;
  let max = Number(value(enforced));
  if (value(enforced) <= maxMilliValue) {
    compared = observed * 1000;
    max = Number(milliValue(enforced));
  }
  if (compared > max) return `${res} max limit to request ratio per ${limitType} is ${ratio}, but provided ratio is ${observed.toFixed(6)}`;
  return undefined;
}

function sortedEntries(rec: Record<string, string> | undefined): [string, Quantity][] {
  return Object.keys(rec ?? {})
    .sort()
    .flatMap((k) => {
      const q = quantity(rec![k]);
      return q ? [[k, q] as [string, Quantity]] : [];
    });
}

function checkItem(limitType: string, item: LimitItem, request: ResourceList, limit: ResourceList, errs: string[]): void {
  for (const [k, v] of sortedEntries(item.min)) {
    const e = minConstraint(limitType, k, v, request, limit);
    if (e) errs.push(e);
  }
  for (const [k, v] of sortedEntries(item.max)) {
    const e = maxConstraint(limitType, k, v, request, limit);
    if (e) errs.push(e);
  }
  for (const [k, v] of sortedEntries(item.maxLimitRequestRatio)) {
    const e = limitRequestRatioConstraint(limitType, k, v, request, limit);
    if (e) errs.push(e);
  }
}

/** The pod's total requests or limits: containers summed, init containers as their maximum. */
export function podTotals(spec: PodSpec, which: "requests" | "limits"): ResourceList {
  const total: ResourceList = new Map();
  for (const c of spec.containers ?? []) {
    for (const [k, q] of resourceList(c.resources?.[which])) total.set(k, total.has(k) ? add(total.get(k)!, q) : q);
  }
  for (const c of spec.initContainers ?? []) {
    for (const [k, q] of resourceList(c.resources?.[which])) {
      const cur = total.get(k);
      if (!cur || q.n > cur.n) total.set(k, q);
    }
  }
  return total;
}

/** PodValidateLimitFunc: every violation of `lr` by the pod. */
export function validatePodLimits(lr: KubeObject, spec: PodSpec): string[] {
  const errs: string[] = [];
  for (const item of limitItems(lr)) {
    if (item.type === "Container") {
      for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
        checkItem("Container", item, resourceList(c.resources?.requests), resourceList(c.resources?.limits), errs);
      }
    } else if (item.type === "Pod") {
      checkItem("Pod", item, podTotals(spec, "requests"), podTotals(spec, "limits"), errs);
    }
  }
  return errs;
}

/** PersistentVolumeClaimValidateLimitFunc. */
export function validateClaimLimits(lr: KubeObject, claim: KubeObject): string[] {
  const errs: string[] = [];
  const requests = resourceList((claim as { spec?: { resources?: Resources } }).spec?.resources?.requests);
  for (const item of limitItems(lr)) {
    if (item.type !== "PersistentVolumeClaim") continue;
    for (const [k, v] of sortedEntries(item.min)) {
      const e = minConstraint("PersistentVolumeClaim", k, v, requests, new Map());
      if (e) errs.push(e);
    }
    for (const [k, v] of sortedEntries(item.max)) {
      const e = maxRequestConstraint("PersistentVolumeClaim", k, v, requests);
      if (e) errs.push(e);
    }
  }
  return errs;
}

function mergeDefaults(c: Container, limits: Record<string, string>, requests: Record<string, string>, prefix: string, notes: string[]): void {
  const res = (c.resources ??= {});
  const setLimits: string[] = [];
  const setRequests: string[] = [];
  for (const [k, v] of Object.entries(limits)) {
    if ((res.limits ??= {})[k] === undefined) {
      res.limits[k] = v;
      setLimits.push(k);
    }
  }
  for (const [k, v] of Object.entries(requests)) {
    if ((res.requests ??= {})[k] === undefined) {
      res.requests[k] = v;
      setRequests.push(k);
    }
  }
  if (res.limits && Object.keys(res.limits).length === 0) delete res.limits;
  if (res.requests && Object.keys(res.requests).length === 0) delete res.requests;
  if (setRequests.length) notes.push(`${setRequests.sort().join(", ")} request for ${prefix} ${c.name ?? ""}`);
  if (setLimits.length) notes.push(`${setLimits.sort().join(", ")} limit for ${prefix} ${c.name ?? ""}`);
}

/** PodMutateLimitFunc: the Container item's defaults merged into every container. */
export function applyPodDefaults(lr: KubeObject, pod: KubeObject): void {
  const limits: Record<string, string> = {};
  const requests: Record<string, string> = {};
  for (const item of limitItems(lr)) {
    if (item.type !== "Container") continue;
    Object.assign(limits, item.default ?? {});
    Object.assign(requests, item.defaultRequest ?? {});
  }
  if (Object.keys(limits).length === 0 && Object.keys(requests).length === 0) return;
  const spec = (pod as { spec?: PodSpec }).spec ?? {};
  const notes: string[] = [];
  for (const c of spec.containers ?? []) mergeDefaults(c, limits, requests, "container", notes);
  for (const c of spec.initContainers ?? []) mergeDefaults(c, limits, requests, "init container", notes);
  if (notes.length) {
    const meta = (pod.metadata ??= {});
    meta.annotations = { ...meta.annotations, [limitRangerAnnotation]: `LimitRanger plugin set: ${notes.join("; ")}` };
  }
}

export function limitRangerPlugin(ctx: AdmissionPluginContext): AnyAdmissionPlugin {
  const kindOf = (a: AdmissionAttributes): "pod" | "pvc" | undefined => {
    if (a.subresource !== "" || !a.object || a.object.metadata?.deletionTimestamp) return undefined;
    if (isResource(a, "", "pods") && a.operation === "CREATE") return "pod";
    if (isResource(a, "", "persistentvolumeclaims")) return "pvc";
    return undefined;
  };
  const limitRanges = async (namespace: string): Promise<KubeObject[]> => (await ctx.storage.list(collectionPrefix("", "limitranges", namespace))).items.map((i) => i.object);
  return {
    name: "LimitRanger",
    handles: (op) => op === "CREATE" || op === "UPDATE",
    handlesResource: (r, sub) => r.group === "" && (r.resource === "pods" || r.resource === "persistentvolumeclaims") && sub === "",
    async admit(a) {
      if (kindOf(a) !== "pod") return;
      for (const lr of await limitRanges(a.namespace)) applyPodDefaults(lr, a.object!);
    },
    async validate(a) {
      const kind = kindOf(a);
      if (!kind) return;
      for (const lr of await limitRanges(a.namespace)) {
        const errs = kind === "pod" ? validatePodLimits(lr, (a.object as { spec?: PodSpec }).spec ?? {}) : validateClaimLimits(lr, a.object!);
        if (errs.length) throw admissionForbidden(a, aggregateMessages(errs));
      }
    },
  };
}

export const limitRanger: AdmissionPluginRegistration = { name: "LimitRanger", create: (ctx) => limitRangerPlugin(ctx) };
