/**
 * ResourceQuota (k8s.io/apiserver/pkg/admission/plugin/resourcequota with the evaluators of
 * pkg/quota/v1/evaluator/core): the last validating plugin. A write that adds usage to a
 * namespace with ResourceQuotas is refused when the usage would pass a quota's hard limit
 * (`exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`), or when a quota on
 * cpu/memory finds a container without that request or limit (`failed quota: q: must specify
 * limits.cpu for: c; ...`); otherwise the quota's status.used is increased (status.hard is
 * spec.hard), so `kubectl describe quota` shows the usage.
 *
 * Usage: pods (pods, count/pods, cpu/requests.*, memory, limits.*, ephemeral-storage,
 * extended resources as requests.<name>; terminal pods count nothing), services (services,
 * services.loadbalancers, services.nodeports), persistentvolumeclaims (persistentvolumeclaims,
 * requests.storage, and per storage class `<class>.storageclass.storage.k8s.io/...`), and
 * `count/<resource>[.<group>]` of everything (with the legacy names configmaps, secrets,
 * replicationcontrollers, resourcequotas). Quota scopes: Terminating, NotTerminating,
 * BestEffort, NotBestEffort and scopeSelector (PriorityClass, the four scopes, with In, NotIn,
 * Exists, DoesNotExist); a scoped quota only applies to pods.
 *
 * The ResourceQuota controller (controllers/resourcequota) recounts status.used with these same
 * evaluators (usageOf, quotaSelects, covers) and gives back what deletions free; the plugin still
 * bridges the time before its first count and between recounts: a quota
 * whose status has no usage for a resource is counted from storage on first use, and a write
 * that would exceed a quota is checked against a fresh count before it is refused (usage freed
 * by deletions is seen). The count includes objects admitted in the last `pendingSeconds` that
 * are not stored yet (their write is under way), and quota checks and status writes of a
 * namespace are serialized, so two concurrent creates cannot both take the last unit. Dry runs
 * check without writing.
 *
 * Whether a namespace has quotas at all is answered, once the plugin is started, from a
 * StorageCache of the ResourceQuotas (kept in step with every committed write as it commits: a
 * quota created an instant before a write charges that write), so a write into a namespace
 * without quotas is done synchronously, without a storage read; the quotas themselves are read
 * from storage, under the namespace's lock.
 */
import type { KubeObject } from "../../../apimachinery/types.js";
import { deepCopy } from "../../../apimachinery/deepcopy.js";
import { computePodQOS } from "../../registry/podvalidation.js";
import { collectionPrefix, resourcePrefix } from "../../rest/keys.js";
import { StorageCache } from "../../storage/cache.js";
import type { AdmissionPluginContext, AdmissionPluginRegistration, AnyAdmissionPlugin } from "../chain.js";
import { admissionForbidden } from "../attributes.js";
import type { AdmissionAttributes } from "../interfaces.js";
import { add, cmp, formatQuantity, prettyPrint, quantity, resourceList, sub, zero, type Quantity, type ResourceList } from "../quantity.js";

interface QuotaSpec {
  hard?: Record<string, string>;
  scopes?: string[];
  scopeSelector?: { matchExpressions?: { scopeName?: string; operator?: string; values?: string[] }[] };
}
interface QuotaShape {
  spec?: QuotaSpec;
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}
interface Resources {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
}
interface PodShape {
  spec?: {
    containers?: { name?: string; resources?: Resources }[];
    initContainers?: { name?: string; resources?: Resources }[];
    activeDeadlineSeconds?: number;
    priorityClassName?: string;
  };
  status?: { phase?: string };
}

const one: Quantity = { n: 1_000_000_000n, binary: false };
const legacyCounts = new Set(["pods", "services", "configmaps", "secrets", "persistentvolumeclaims", "replicationcontrollers", "resourcequotas"]);
const nativeResources = new Set(["cpu", "memory", "ephemeral-storage", "storage", "pods"]);
const validationSet = new Set(["requests.cpu", "requests.memory", "limits.cpu", "limits.memory", "cpu", "memory"]);
const storageClassSuffix = ".storageclass.storage.k8s.io/";

function countName(group: string, resource: string): string {
  return group === "" ? `count/${resource}` : `count/${resource}.${group}`;
}

function plus(list: ResourceList, name: string, q: Quantity): void {
  const cur = list.get(name);
  list.set(name, cur ? add(cur, q) : q);
}

/** podComputeUsageHelper: the quota resources of given requests and limits. */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([["pods", one]]);
  for (const [k, q] of requests) {
    if (k === "cpu" || k === "memory" || k === "ephemeral-storage") {
      out.set(k, q);
      out.set(`requests.${k}`, q);
    } else if (k.startsWith("hugepages-") || !nativeResources.has(k)) {
      out.set(`requests.${k}`, q);
    }
  }
  for (const [k, q] of limits) {
    if (k === "cpu" || k === "memory" || k === "ephemeral-storage") out.set(`limits.${k}`, q);
  }
  return out;
}

function totals(pod: PodShape, which: "requests" | "limits"): ResourceList {
  const total: ResourceList = new Map();
  for (const c of pod.spec?.containers ?? []) for (const [k, q] of resourceList(c.resources?.[which])) plus(total, k, q);
  for (const c of pod.spec?.initContainers ?? []) {
    for (const [k, q] of resourceList(c.resources?.[which])) {
      const cur = total.get(k);
      if (!cur || q.n > cur.n) total.set(k, q);
    }
  }
  return total;
}

function isTerminal(pod: PodShape): boolean {
  const phase = pod.status?.phase;
  return phase === "Succeeded" || phase === "Failed";
}

/** The quota usage of one object of group/resource (the evaluators' Usage). */
export function usageOf(group: string, resource: string, obj: KubeObject): ResourceList {
  const out: ResourceList = new Map();
  if (group === "" && resource === "pods") {
    // Terminal pods keep only their object count (count/pods, set below).
    const pod = obj as PodShape;
    if (!isTerminal(pod)) for (const [k, q] of computeUsage(totals(pod, "requests"), totals(pod, "limits"))) out.set(k, q);
  } else if (group === "" && resource === "services") {
    const spec = (obj as { spec?: { type?: string; ports?: unknown[] } }).spec ?? {};
    out.set("services", one);
    if (spec.type === "LoadBalancer") out.set("services.loadbalancers", one);
    if (spec.type === "NodePort" || spec.type === "LoadBalancer") {
      out.set("services.nodeports", { n: BigInt(spec.ports?.length ?? 0) * one.n, binary: false });
    }
  } else if (group === "" && resource === "persistentvolumeclaims") {
    const spec = (obj as { spec?: { storageClassName?: string; resources?: Resources } }).spec ?? {};
    out.set("persistentvolumeclaims", one);
    const storage = quantity(spec.resources?.requests?.storage);
    if (storage) out.set("requests.storage", storage);
    const cls = spec.storageClassName;
    if (cls) {
      out.set(`${cls}${storageClassSuffix}persistentvolumeclaims`, one);
      if (storage) out.set(`${cls}${storageClassSuffix}requests.storage`, storage);
    }
  } else if (group === "" && legacyCounts.has(resource)) {
    out.set(resource, one);
  }
  out.set(countName(group, resource), one);
  return out;
}

/** Whether a resource name in a quota is one the object's evaluator can count. */
export function covers(group: string, resource: string, name: string): boolean {
  if (name === countName(group, resource)) return true;
  if (group !== "") return false;
  if (resource === "pods") {
    return name === "pods" || validationSet.has(name) || name === "ephemeral-storage" || name.startsWith("requests.") || name.startsWith("limits.");
  }
  if (resource === "services") return name === "services" || name === "services.loadbalancers" || name === "services.nodeports";
  if (resource === "persistentvolumeclaims") return name === "persistentvolumeclaims" || name === "requests.storage" || name.includes(storageClassSuffix);
  return legacyCounts.has(resource) && name === resource;
}

function scopeMatches(scope: string, operator: string, values: readonly string[], pod: PodShape): boolean {
  let matches: boolean;
  switch (scope) {
    case "Terminating":
      matches = pod.spec?.activeDeadlineSeconds !== undefined && pod.spec.activeDeadlineSeconds >= 0;
      break;
    case "NotTerminating":
      matches = pod.spec?.activeDeadlineSeconds === undefined;
      break;
    case "BestEffort":
      matches = computePodQOS(pod.spec as never) === "BestEffort";
      break;
    case "NotBestEffort":
      matches = computePodQOS(pod.spec as never) !== "BestEffort";
      break;
    case "PriorityClass": {
      const name = pod.spec?.priorityClassName ?? "";
      if (operator === "Exists") return name !== "";
      if (operator === "DoesNotExist") return name === "";
      if (operator === "In") return values.includes(name);
      if (operator === "NotIn") return !values.includes(name);
      return false;
    }
    default:
      return false;
  }
  return operator === "DoesNotExist" || operator === "NotIn" ? !matches : matches;
}

/** Whether the quota's scopes select the object (scoped quotas select pods only). */
export function quotaSelects(quota: KubeObject, group: string, resource: string, obj: KubeObject): boolean {
  const spec = (quota as QuotaShape).spec ?? {};
  const selectors: { scope: string; operator: string; values: string[] }[] = [
    ...(spec.scopes ?? []).map((s) => ({ scope: s, operator: "Exists", values: [] })),
    ...(spec.scopeSelector?.matchExpressions ?? []).map((e) => ({ scope: e.scopeName ?? "", operator: e.operator ?? "", values: e.values ?? [] })),
  ];
  if (selectors.length === 0) return true;
  if (group !== "" || resource !== "pods") return false;
  return selectors.every((s) => scopeMatches(s.scope, s.operator, s.values, obj as PodShape));
}

/** The pod evaluator's Constraints: each container must request/limit every required compute resource. */
export function podConstraints(required: readonly string[], pod: KubeObject): string | undefined {
  const need = required.filter((r) => validationSet.has(r));
  if (need.length === 0) return undefined;
  const missing = new Map<string, Set<string>>();
  const p = pod as PodShape;
  for (const c of [...(p.spec?.containers ?? []), ...(p.spec?.initContainers ?? [])]) {
    const have = computeUsage(resourceList(c.resources?.requests), resourceList(c.resources?.limits));
    for (const r of need) {
      if (have.has(r)) continue;
      if (!missing.has(r)) missing.set(r, new Set());
      missing.get(r)!.add(c.name ?? "");
    }
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(",")}`);
  return `must specify ${parts.join("; ")}`;
}

/** How long an admitted create counts as under way when its object is not in storage yet. */
export const pendingSeconds = 10;

export function resourceQuotaPlugin(ctx: AdmissionPluginContext): AnyAdmissionPlugin {
  const locks = new Map<string, Promise<void>>();
  /** Creates admitted and charged whose objects may not be stored yet: storage key → object and time. */
  const pending = new Map<string, { object: KubeObject; at: number; prefix: string }>();
  const quotaObjects = new StorageCache(ctx.storage, [resourcePrefix("", "resourcequotas")]);
  let started = false;
  /** Whether `namespace` has quotas: known synchronously once started, else read from storage. */
  const hasQuotas = (namespace: string): boolean | Promise<boolean> => {
    const prefix = collectionPrefix("", "resourcequotas", namespace);
    if (started && quotaObjects.current()) return quotaObjects.has(prefix);
    return ctx.storage.list(prefix, { limit: 1 }).then((r) => r.items.length > 0);
  };
  const serialized = async <T>(namespace: string, fn: () => Promise<T>): Promise<T> => {
    const prev = locks.get(namespace) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const chained = prev.then(() => mine);
    locks.set(namespace, chained);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      if (locks.get(namespace) === chained) locks.delete(namespace);
    }
  };

  /** A fresh count of the namespace's objects of the request's resource that the quota selects. */
  const recount = async (a: AdmissionAttributes, quota: KubeObject): Promise<ResourceList> => {
    const { group, resource } = a.resource;
    const store = ctx.registry().byGroupResource(group, resource);
    const prefix = store ? store.prefix(a.namespace) : collectionPrefix(group, resource, a.namespace);
    const used: ResourceList = new Map();
    const stored = new Set<string>();
    const count = (obj: KubeObject) => {
      if (!quotaSelects(quota, group, resource, obj)) return;
      for (const [k, q] of usageOf(group, resource, obj)) plus(used, k, q);
    };
    for (const item of (await ctx.storage.list(prefix)).items) {
      stored.add(item.key);
      count(item.object);
    }
    const now = ctx.clock.now();
    for (const [key, p] of pending) {
      if (now - p.at > pendingSeconds * 1000) pending.delete(key);
      else if (p.prefix === prefix && !stored.has(key)) count(p.object);
    }
    return used;
  };

  const check = async (a: AdmissionAttributes): Promise<void> => {
    const { group, resource } = a.resource;
    const obj = a.object!;
    let delta = usageOf(group, resource, obj);
    if (a.operation === "UPDATE" && a.oldObject) {
      const before = usageOf(group, resource, a.oldObject);
      const d: ResourceList = new Map();
      for (const [k, q] of delta) d.set(k, sub(q, before.get(k) ?? zero));
      delta = d;
    }
    const quotas = (await ctx.storage.list(collectionPrefix("", "resourcequotas", a.namespace))).items;
    const writes: { key: string; rev: number; object: KubeObject }[] = [];
    for (const item of quotas) {
      const q = item.object as KubeObject & QuotaShape;
      const hard = resourceList(q.status?.hard ?? q.spec?.hard);
      const matched = [...hard.keys()].filter((k) => covers(group, resource, k));
      if (matched.length === 0 || !quotaSelects(q, group, resource, obj)) continue;
      if (group === "" && resource === "pods" && a.operation === "CREATE") {
        const missing = podConstraints(matched, obj);
        if (missing) throw admissionForbidden(a, `failed quota: ${q.metadata?.name ?? ""}: ${missing}`);
      }
      const requested: ResourceList = new Map();
      for (const k of matched) {
        const d = delta.get(k);
        if (d && d.n !== 0n) requested.set(k, d);
      }
      if (requested.size === 0) continue;
      let used = resourceList(q.status?.used);
      if (matched.some((k) => !used.has(k))) used = mergeMissing(used, await recount(a, q), matched);
      let exceeded = exceededBy(matched, hard, used, requested);
      if (exceeded.length) {
        used = mergeMissing(new Map(), await recount(a, q), matched);
        exceeded = exceededBy(matched, hard, used, requested);
      }
      if (exceeded.length) {
        const mask = (l: ResourceList) => new Map(exceeded.map((k) => [k, l.get(k) ?? zero] as [string, Quantity]));
        throw admissionForbidden(
          a,
          `exceeded quota: ${q.metadata?.name ?? ""}, requested: ${prettyPrint(mask(requested))}, used: ${prettyPrint(mask(used))}, limited: ${prettyPrint(mask(hard))}`,
        );
      }
      const next = deepCopy(q) as KubeObject & QuotaShape;
      const newUsed: Record<string, string> = { ...(q.status?.used ?? {}) };
      for (const k of matched) {
        const u = add(used.get(k) ?? zero, requested.get(k) ?? zero);
        newUsed[k] = formatQuantity(u);
      }
      next.status = { hard: { ...(q.status?.hard ?? q.spec?.hard ?? {}) }, used: newUsed };
      writes.push({ key: item.key, rev: item.rev, object: next });
    }
    if (a.dryRun || writes.length === 0) return;
    if (a.operation === "CREATE") {
      const store = ctx.registry().byGroupResource(group, resource);
      const prefix = store ? store.prefix(a.namespace) : collectionPrefix(group, resource, a.namespace);
      pending.set(prefix + (obj.metadata?.name ?? ""), { object: obj, at: ctx.clock.now(), prefix });
    }
    for (const w of writes) {
      try {
        await ctx.storage.update(w.key, w.object, w.rev);
      } catch (err) {
        // A quota changed underneath (its spec was edited): the next write recounts.
        ctx.log?.(`ResourceQuota: could not record usage in ${w.key}`, err);
      }
    }
  };

  return {
    name: "ResourceQuota",
    handles: (op) => op === "CREATE" || op === "UPDATE",
    async start() {
      await quotaObjects.start();
      started = true;
    },
    async stop() {
      started = false;
      await quotaObjects.stop();
    },
    validate(a) {
      if (a.namespace === "" || !a.object || a.subresource !== "") return;
      if (a.operation === "UPDATE" && !(a.resource.group === "" && (a.resource.resource === "services" || a.resource.resource === "persistentvolumeclaims" || a.resource.resource === "pods"))) return;
      // Quota objects themselves are never charged against quotas on update.
      if (a.resource.group === "" && a.resource.resource === "resourcequotas" && a.operation === "UPDATE") return;
      // A namespace without quotas charges nothing: no usage to compute, no turn in the namespace's
      // queue (upstream reads quotas from an informer: a quota created concurrently with this
      // request may or may not be seen, here as there).
      const has = hasQuotas(a.namespace);
      if (has === false) return;
      if (has === true) return serialized(a.namespace, () => check(a));
      return has.then((yes) => (yes ? serialized(a.namespace, () => check(a)) : undefined));
    },
  };
}

function mergeMissing(used: ResourceList, counted: ResourceList, names: readonly string[]): ResourceList {
  const out = new Map(used);
  for (const k of names) if (!out.has(k)) out.set(k, counted.get(k) ?? zero);
  return out;
}

function exceededBy(names: readonly string[], hard: ResourceList, used: ResourceList, requested: ResourceList): string[] {
  return names.filter((k) => requested.has(k) && cmp(add(used.get(k) ?? zero, requested.get(k)!), hard.get(k)!) > 0);
}

export const resourceQuota: AdmissionPluginRegistration = { name: "ResourceQuota", create: (ctx) => resourceQuotaPlugin(ctx) };
