/**
 * pods/eviction: a policy/v1 Eviction POSTed for a pod deletes it unless that would violate the
 * pod's PodDisruptionBudget, with the decisions of upstream's EvictionREST
 * (pkg/registry/core/pod/storage/eviction.go), working from whatever PDB status is stored (the
 * disruption controller that computes it is not this module's business):
 *
 * - a pod that is Succeeded, Failed, Pending or already terminating is deleted at once, no PDB
 *   consulted (with the pod's resourceVersion as precondition unless terminal or terminating);
 * - otherwise the PDBs of the pod's namespace whose non-empty selector matches the pod decide:
 *   none → delete; more than one → a 500 Status "This pod has more than one
 *   PodDisruptionBudget, which the eviction subresource does not support.";
 * - an unready pod is deleted without spending the budget when the PDB says
 *   unhealthyPodEvictionPolicy: AlwaysAllow, or when currentHealthy >= desiredHealthy > 0;
 * - otherwise the budget must allow it: status.observedGeneration behind metadata.generation →
 *   429 "still being processed"; disruptionsAllowed < 0 or more than 2000 disruptedPods → 403;
 *   disruptionsAllowed == 0 → 429 "Cannot evict pod as it would violate the pod's disruption
 *   budget." with a DisruptionBudget cause "needs D healthy pods and has C currently"; else the
 *   PDB status is decremented (DisruptionAllowed condition updated when it reaches 0) and the pod
 *   recorded in disruptedPods, unless this is a dry run;
 * - before deleting (not on dry runs) the pod gets the DisruptionTarget=True condition
 *   (reason EvictionByEvictionAPI, message "Eviction API: evicting") through its status.
 *
 * Success answers a Status {status: Success} with code 201. Eviction bodies of policy/v1 and
 * policy/v1beta1 are both accepted, as upstream.
 */
import type { Status, StatusCause } from "../../apimachinery/api/meta/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { StatusError } from "../../apimachinery/errors.js";
import { labelSelectorAsSelector } from "../../apimachinery/labels.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { LabelSelector } from "../../apimachinery/api/meta/v1.js";
import { defaultWriteContext, type WriteContext } from "../rest/context.js";
import { formatTime } from "../rest/metadata.js";
import { parseDeleteOptions, type DeleteOptions } from "../rest/options.js";
import type { ResourceStore } from "../rest/store.js";
import { rec, list, str } from "../registry/shape.js";

/** At most this many evictions may await the disruption controller (MaxDisruptedPodSize). */
export const maxDisruptedPodSize = 2000;
/** Conflicting writes to a PDB are retried this many times (upstream's EvictionsRetry steps). */
const evictionRetries = 20;

export const evictionSuccess: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 } as Status;

const podResource = { group: "", resource: "pods" };
const podKind = { group: "", resource: "Pod" };
const pdbResource = { group: "policy", resource: "poddisruptionbudget" };

export interface EvictionDeps {
  pods: ResourceStore;
  /** Absent when the server does not serve policy/v1 PodDisruptionBudgets. */
  podDisruptionBudgets: ResourceStore | undefined;
  clock: Clock;
}

interface PodShape {
  metadata?: { name?: string; labels?: Record<string, string>; deletionTimestamp?: string; resourceVersion?: string; uid?: string };
  status?: { phase?: string; conditions?: Array<Record<string, unknown>> };
}

interface PDBShape {
  metadata?: { name?: string; generation?: number; resourceVersion?: string };
  spec?: { selector?: LabelSelector; unhealthyPodEvictionPolicy?: string };
  status?: {
    observedGeneration?: number;
    disruptionsAllowed?: number;
    currentHealthy?: number;
    desiredHealthy?: number;
    disruptedPods?: Record<string, string>;
    conditions?: Array<Record<string, unknown>>;
  };
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** 429 TooManyRequests with one DisruptionBudget cause. */
function tooManyRequests(message: string, retryAfterSeconds: number, cause: string): StatusError {
  const causes: StatusCause[] = [{ type: "DisruptionBudget", message: cause } as StatusCause];
  return new StatusError({
    message,
    reason: "TooManyRequests",
    details: { ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}), causes },
    code: 429,
  });
}

const violationMessage = "Cannot evict pod as it would violate the pod's disruption budget.";

function stillProcessing(pdbName: string): StatusError {
  return tooManyRequests(violationMessage, 10, `The disruption budget ${pdbName} is still being processed by the server.`);
}

/** Pods that can go without consulting any budget (canIgnorePDB). */
function canIgnorePDB(pod: PodShape): boolean {
  const phase = pod.status?.phase;
  return phase === "Succeeded" || phase === "Failed" || phase === "Pending" || !!pod.metadata?.deletionTimestamp;
}

/** Whether a delete of this pod must be conditional on its resourceVersion (shouldEnforceResourceVersion). */
function shouldEnforceResourceVersion(pod: PodShape): boolean {
  const phase = pod.status?.phase;
  return !(phase === "Succeeded" || phase === "Failed" || !!pod.metadata?.deletionTimestamp);
}

/** podutil.IsPodReady: the Ready condition is True. */
export function isPodReady(pod: PodShape): boolean {
  return list<Record<string, unknown>>(pod.status?.conditions).some((c) => c.type === "Ready" && c.status === "True");
}

function rvUnset(o: DeleteOptions): boolean {
  return o.preconditions?.resourceVersion === undefined;
}

function withResourceVersion(o: DeleteOptions, rv: string | undefined): DeleteOptions {
  return { ...o, preconditions: { ...(o.preconditions ?? {}), resourceVersion: rv } };
}

/**
 * The Eviction's delete options with the request's dry run folded in (propagateDryRun): both
 * may name it only if they agree.
 */
export function evictionDeleteOptions(eviction: KubeObject, requestDryRun: boolean): DeleteOptions {
  const raw = rec((eviction as { deleteOptions?: unknown }).deleteOptions);
  if (!raw) return { dryRun: requestDryRun };
  const bodyDryRun = list(raw.dryRun);
  const opts = parseDeleteOptions(new URLSearchParams(), raw);
  if (bodyDryRun.length === 0) return { ...opts, dryRun: requestDryRun };
  if (requestDryRun && !opts.dryRun) {
    throw StatusError.badRequest(`Non-matching dry-run options in request and content: [All] and [${bodyDryRun.map(String).join(" ")}]`);
  }
  return opts;
}

/** The PDBs in the pod's namespace with a non-empty selector matching the pod. */
async function pdbsFor(pdbs: ResourceStore | undefined, namespace: string, pod: PodShape): Promise<KubeObject[]> {
  if (!pdbs) return [];
  const list = await pdbs.list(namespace, { labelSelector: "", fieldSelector: "", resourceVersion: "", limit: 0, continue: "", watch: false, allowWatchBookmarks: false });
  const out: KubeObject[] = [];
  for (const item of list.items) {
    let selector;
    try {
      selector = labelSelectorAsSelector((item as PDBShape).spec?.selector);
    } catch {
      continue; // an invalid selector matches nothing
    }
    // A nil or empty selector matches nothing here, not everything.
    if (selector.empty() || !selector.matches(pod.metadata?.labels ?? {})) continue;
    out.push(item);
  }
  return out;
}

/** UpdateDisruptionAllowedCondition: DisruptionAllowed True (SufficientPods) or False (InsufficientPods). */
function updateDisruptionAllowedCondition(status: NonNullable<PDBShape["status"]>, now: string): void {
  const allowed = num(status.disruptionsAllowed) > 0;
  const want = {
    type: "DisruptionAllowed",
    status: allowed ? "True" : "False",
    reason: allowed ? "SufficientPods" : "InsufficientPods",
    observedGeneration: num(status.observedGeneration),
  };
  const conditions = list<Record<string, unknown>>(status.conditions).map((c) => ({ ...c }));
  const existing = conditions.find((c) => c.type === want.type);
  if (!existing) {
    conditions.push({ ...want, message: "", lastTransitionTime: now });
  } else {
    if (existing.status !== want.status) existing.lastTransitionTime = now;
    existing.status = want.status;
    existing.reason = want.reason;
    existing.observedGeneration = want.observedGeneration;
    existing.lastTransitionTime ??= now;
  }
  status.conditions = conditions;
}

/**
 * checkAndDecrement: refuses when the budget does not allow the disruption, otherwise spends one
 * disruption (written to the PDB status unless dry run). Conflicting writes re-read the PDB.
 */
async function checkAndDecrement(deps: EvictionDeps, namespace: string, podName: string, initial: KubeObject, dryRun: boolean): Promise<void> {
  let pdb = initial;
  const name = initial.metadata?.name ?? "";
  for (let attempt = 0; ; attempt++) {
    const p = pdb as PDBShape;
    const status = p.status ?? {};
    if (num(status.observedGeneration) < num(p.metadata?.generation)) throw stillProcessing(name);
    const allowed = num(status.disruptionsAllowed);
    if (allowed < 0) throw StatusError.forbidden(pdbResource, name, "pdb disruptions allowed is negative");
    if (Object.keys(rec(status.disruptedPods) ?? {}).length > maxDisruptedPodSize) {
      throw StatusError.forbidden(pdbResource, name, "DisruptedPods map too big - too many evictions not confirmed by PDB controller");
    }
    if (allowed === 0) {
      throw tooManyRequests(
        violationMessage,
        0,
        `The disruption budget ${name} needs ${num(status.desiredHealthy)} healthy pods and has ${num(status.currentHealthy)} currently`,
      );
    }
    if (dryRun) return;
    const now = formatTime(deps.clock.now());
    const expectedRV = pdb.metadata?.resourceVersion;
    try {
      await deps.podDisruptionBudgets!.update(
        namespace,
        name,
        (current) => {
          if (!current) throw StatusError.notFound({ group: "policy", resource: "poddisruptionbudgets" }, name);
          const next = structuredClone(current) as KubeObject & PDBShape;
          // Conditional on the version the decision was made on.
          next.metadata = { ...next.metadata, resourceVersion: expectedRV };
          const st = (next.status = { ...(next.status ?? {}) });
          st.disruptionsAllowed = allowed - 1;
          if (st.disruptionsAllowed === 0) updateDisruptionAllowedCondition(st, now);
          st.disruptedPods = { ...(rec(st.disruptedPods) as Record<string, string> | undefined), [podName]: now };
          return next;
        },
        systemContext(),
        { subresource: "status" },
      );
      return;
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409) || attempt + 1 >= evictionRetries) {
        if (err instanceof StatusError && err.code === 409) {
          throw StatusError.timeout(`couldn't update PodDisruptionBudget "${name}" due to conflicts`, 10);
        }
        throw err;
      }
      pdb = await deps.podDisruptionBudgets!.get(namespace, name);
    }
  }
}

function systemContext(): WriteContext {
  return defaultWriteContext({ fieldManager: "kube-apiserver" });
}

/**
 * addConditionAndDeletePod: unless dry run, the DisruptionTarget condition goes on the pod's
 * status first (checking the delete preconditions against the latest pod), then the pod is
 * deleted with the options.
 */
async function addConditionAndDeletePod(deps: EvictionDeps, namespace: string, name: string, options: DeleteOptions, ctx: WriteContext): Promise<void> {
  let opts = options;
  if (!options.dryRun) {
    const now = formatTime(deps.clock.now());
    const r = await deps.pods.update(
      namespace,
      name,
      (current) => {
        if (!current) throw StatusError.notFound(podResource, name);
        const pod = structuredClone(current) as KubeObject & PodShape;
        const uid = options.preconditions?.uid;
        if (uid && uid !== pod.metadata?.uid) {
          throw StatusError.conflict(
            podKind,
            name,
            `the UID in the precondition (${uid}) does not match the UID in record (${pod.metadata?.uid ?? ""}). The object might have been deleted and then recreated`,
          );
        }
        const rv = options.preconditions?.resourceVersion;
        if (rv && rv !== pod.metadata?.resourceVersion) {
          throw StatusError.conflict(
            podKind,
            name,
            `the ResourceVersion in the precondition (${rv}) does not match the ResourceVersion in record (${pod.metadata?.resourceVersion ?? ""}). The object might have been modified`,
          );
        }
        const status = (pod.status = { ...(pod.status ?? {}) });
        const conditions = list<Record<string, unknown>>(status.conditions).map((c) => ({ ...c }));
        const want = { type: "DisruptionTarget", status: "True", reason: "EvictionByEvictionAPI", message: "Eviction API: evicting" };
        const existing = conditions.find((c) => c.type === want.type);
        if (!existing) conditions.push({ ...want, lastProbeTime: null, lastTransitionTime: now });
        else {
          if (existing.status !== want.status) existing.lastTransitionTime = now;
          Object.assign(existing, want);
        }
        status.conditions = conditions;
        return pod;
      },
      systemContext(),
      { subresource: "status" },
    );
    // The condition write moved the pod on: a resourceVersion precondition follows it.
    if (!rvUnset(options)) opts = withResourceVersion(options, r.object.metadata?.resourceVersion);
  }
  await deps.pods.delete(namespace, name, opts, { ...ctx, dryRun: opts.dryRun });
}

/**
 * Evicts `name` in `namespace` as the Eviction body asks; resolves to the success Status (or the
 * 500 Status of a pod with several budgets), throws StatusError otherwise.
 */
export async function evictPod(deps: EvictionDeps, namespace: string, name: string, eviction: KubeObject, ctx: WriteContext): Promise<Status> {
  if (str(eviction.metadata?.name) !== name) throw StatusError.badRequest("name in URL does not match name in Eviction object");
  const original = evictionDeleteOptions(eviction, ctx.dryRun);

  // Pods that can go without a budget check, retried on conflicts unless the client set a resourceVersion.
  let pod: PodShape | undefined;
  for (let attempt = 0; ; attempt++) {
    pod = (await deps.pods.get(namespace, name)) as PodShape;
    if (!canIgnorePDB(pod)) break;
    let options = original;
    if (shouldEnforceResourceVersion(pod) && rvUnset(original)) options = withResourceVersion(original, pod.metadata?.resourceVersion);
    try {
      await addConditionAndDeletePod(deps, namespace, name, options, ctx);
      return evictionSuccess;
    } catch (err) {
      const retry = err instanceof StatusError && err.code === 409 && rvUnset(original) && attempt + 1 < evictionRetries;
      if (!retry) throw err;
    }
  }

  const pdbs = await pdbsFor(deps.podDisruptionBudgets, namespace, pod);
  if (pdbs.length > 1) {
    return {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
      code: 500,
    } as Status;
  }
  let unhealthyDelete = false;
  let pdbName = "";
  if (pdbs.length === 1) {
    const pdb = pdbs[0] as PDBShape;
    pdbName = pdb.metadata?.name ?? "";
    let decided = false;
    if (!isPodReady(pod)) {
      const st = pdb.status ?? {};
      if (pdb.spec?.unhealthyPodEvictionPolicy === "AlwaysAllow") decided = true;
      else if (num(st.currentHealthy) >= num(st.desiredHealthy) && num(st.desiredHealthy) > 0) decided = true;
      // An unready pod that does not count towards the budget goes without spending it.
      unhealthyDelete = decided;
    }
    if (!decided) await checkAndDecrement(deps, namespace, name, pdbs[0], original.dryRun);
  }

  let options = original;
  // The pod must not have become healthy since the decision.
  if (unhealthyDelete) options = withResourceVersion(original, pod.metadata?.resourceVersion);
  try {
    await addConditionAndDeletePod(deps, namespace, name, options, ctx);
  } catch (err) {
    if (err instanceof StatusError && err.code === 409 && unhealthyDelete && rvUnset(original)) throw stillProcessing(pdbName);
    throw err;
  }
  return evictionSuccess;
}
