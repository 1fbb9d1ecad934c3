/**
 * Deletes everything in a terminating namespace, then releases it (upstream
 * pkg/controller/namespace/deletion's NamespacedResourcesDeleter).
 *
 * One pass (`delete`), against the live namespace:
 *   1. gone, or not being deleted → nothing to do;
 *   2. phase not yet Terminating → set it (status update);
 *   3. spec.finalizers already empty → nothing to do;
 *   4. for every namespaced resource discovery lists with the delete verb (custom resources
 *      included): deletecollection (or, where that is not supported, list and delete each item),
 *      with propagationPolicy Background so the garbage collector adds no orphan finalizer, then
 *      list again to see what is left; pods get a graceful-termination estimate;
 *   5. the five NamespaceDeletion* / *Remaining conditions are written when they change;
 *   6. anything failed → the errors (retried with backoff); content remains → a
 *      ResourcesRemainingError with an estimate in seconds (requeued at estimate/2 + 1 s);
 *      otherwise the `kubernetes` finalizer is removed through namespaces/finalize, and the
 *      server removes the namespace once no finalizer is left.
 *
 * State: `unsupported` remembers, per "verb group/version/resource", the operations discovery says
 * a resource lacks (upstream's opCache); a 405 or 404 answer skips the operation this time only.
 */
import type { Namespace, Pod } from "../../apimachinery/api/core/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { isConflict, isMethodNotSupported, isNotFound } from "../../apimachinery/errors.js";
import { parseGroupVersion } from "../../apimachinery/gvk.js";
import { metadataOnly, type PartialObjectMetadata, type ResourceDescriptor } from "../../apimachinery/resource.js";
import { parseTime } from "../../apimachinery/time.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import { NamespaceConditionUpdater, errorMessage } from "./conditions.js";
import type { NamespaceDiscovery, NamespacedResourceList } from "./discovery.js";

/** The finalizer this controller owns in spec.finalizers (v1.FinalizerKubernetes). */
export const FINALIZER_KUBERNETES = "kubernetes";
/** The wait assumed for content held by finalizers (upstream finalizerEstimateSeconds). */
export const FINALIZER_ESTIMATE_SECONDS = 15;

/** Content is still being removed; try again in about `estimate` seconds. */
export class ResourcesRemainingError extends Error {
  constructor(readonly estimate: number) {
    super(`some content remains in the namespace, estimate ${estimate} seconds before it is removed`);
    this.name = "ResourcesRemainingError";
  }
}

/** Several failures of one pass (utilerrors.NewAggregate): one message, every cause kept. */
export class NamespaceDeletionErrors extends AggregateError {
  constructor(errors: unknown[]) {
    const msgs = errors.map(errorMessage);
    super(errors, msgs.length === 1 ? msgs[0] : `[${msgs.join(", ")}]`);
    this.name = "NamespaceDeletionErrors";
  }
}

interface GVR {
  group: string;
  version: string;
  resource: string;
  kind: string;
}

interface GVRDeletion {
  /** Seconds still to wait; 0 means no estimate, not "all gone". */
  estimate: number;
  remaining: number;
  remainingByFinalizer: Map<string, number>;
}

export interface NamespacedResourcesDeleterOptions {
  discovery: NamespaceDiscovery;
  clock: Clock;
  /** The spec finalizer this deleter removes (default "kubernetes"). */
  finalizerToken?: string;
}

const gvrKey = (g: GVR) => `${g.group}/${g.version}/${g.resource}`;

export class NamespacedResourcesDeleter {
  private readonly unsupported = new Set<string>();
  private readonly finalizerToken: string;

  constructor(private readonly opts: NamespacedResourcesDeleterOptions) {
    this.finalizerToken = opts.finalizerToken ?? FINALIZER_KUBERNETES;
  }

  /** One pass over namespace `name` (see the module comment); throws to be retried. */
  async delete(client: ResourceClientFactory, name: string, signal?: AbortSignal): Promise<void> {
    const namespaces = client.resource(builtin.namespaces);
    let ns: Namespace;
    try {
      ns = await namespaces.get(name, { signal });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (!ns.metadata?.deletionTimestamp) return;

    try {
      ns = await this.retryOnConflict(client, ns, (cur) => this.updateNamespaceStatus(client, cur, signal), signal);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (!ns.metadata?.deletionTimestamp) return;
    if ((ns.spec?.finalizers ?? []).length === 0) return;

    const { estimate, namespace } = await this.deleteAllContent(client, ns, signal);
    if (estimate > 0) throw new ResourcesRemainingError(estimate);
    ns = namespace;

    try {
      await this.retryOnConflict(client, ns, (cur) => this.finalizeNamespace(client, cur, signal), signal);
    } catch (err) {
      // Another deleter with the same token may have finished first.
      if (isNotFound(err)) return;
      throw err;
    }
  }

  /** Runs `fn` on the namespace, re-reading it after each conflict; its UID must not change. */
  async retryOnConflict(client: ResourceClientFactory, ns: Namespace, fn: (ns: Namespace) => Promise<Namespace>, signal?: AbortSignal): Promise<Namespace> {
    let latest = ns;
    for (;;) {
      try {
        return await fn(latest);
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
      const prev = latest;
      latest = await client.resource(builtin.namespaces).get(prev.metadata?.name ?? "", { signal });
      if (prev.metadata?.uid !== latest.metadata?.uid) throw new Error("namespace uid has changed across retries");
    }
  }

  private async updateNamespaceStatus(client: ResourceClientFactory, ns: Namespace, signal?: AbortSignal): Promise<Namespace> {
    if (!ns.metadata?.deletionTimestamp || ns.status?.phase === "Terminating") return ns;
    const next = deepCopy(ns);
    next.status = { ...next.status, phase: "Terminating" };
    return client.resource(builtin.namespaces).updateStatus(next, { signal });
  }

  /** namespaces/finalize with this deleter's token taken out (the rest sorted, as upstream's set). */
  private async finalizeNamespace(client: ResourceClientFactory, ns: Namespace, signal?: AbortSignal): Promise<Namespace> {
    const finalizers = [...new Set((ns.spec?.finalizers ?? []).filter((f) => f !== this.finalizerToken))].sort();
    const next: Namespace = { apiVersion: "v1", kind: "Namespace", metadata: deepCopy(ns.metadata), spec: { ...ns.spec, finalizers } };
    try {
      return await client.resource(builtin.namespaces).update(next, { subresource: "finalize", signal });
    } catch (err) {
      // Removed already: life is good.
      if (isNotFound(err)) return ns;
      throw err;
    }
  }

  /**
   * Steps 4 and 5 of the module comment: resolves to the estimate (seconds) and the namespace as
   * last written; throws the pass's errors.
   */
  async deleteAllContent(client: ResourceClientFactory, ns: Namespace, signal?: AbortSignal): Promise<{ estimate: number; namespace: Namespace }> {
    const namespace = ns.metadata?.name ?? "";
    const deletedAt = parseTime(ns.metadata?.deletionTimestamp) ?? this.opts.clock.now();
    const errs: unknown[] = [];
    const conditions = new NamespaceConditionUpdater(() => this.opts.clock.now());
    let estimate = 0;

    let lists: NamespacedResourceList[] = [];
    try {
      const found = await this.opts.discovery(signal);
      lists = found.lists;
      if (found.error !== undefined) {
        // Not fatal: the groups that were found are still emptied.
        errs.push(found.error);
        conditions.processDiscoverResourcesErr(found.error);
      }
    } catch (err) {
      if (signal?.aborted) throw err;
      errs.push(err);
      conditions.processDiscoverResourcesErr(err);
    }

    // As discovery.GroupVersionResources: one unparsable group/version and no resource is deleted.
    let gvrs: GVR[] = [];
    try {
      gvrs = this.deletableResources(lists);
    } catch (err) {
      errs.push(err);
      conditions.processGroupVersionErr(err);
    }

    const remainingByResource = new Map<string, number>();
    const remainingByFinalizer = new Map<string, number>();
    for (const gvr of gvrs) {
      const { result, error } = await this.deleteAllContentForGroupVersionResource(client, gvr, namespace, deletedAt, signal);
      if (error !== undefined) {
        // Held on to; the other resources are still emptied.
        if (signal?.aborted) throw error;
        errs.push(error);
        conditions.processDeleteContentErr(error);
      }
      if (result.estimate > estimate) estimate = result.estimate;
      if (result.remaining > 0) {
        remainingByResource.set(`${gvr.resource}.${gvr.group}`, result.remaining);
        for (const [f, n] of result.remainingByFinalizer) if (n !== 0) remainingByFinalizer.set(f, (remainingByFinalizer.get(f) ?? 0) + n);
      }
    }
    conditions.processContentTotals({ remainingByResource, remainingByFinalizer });

    // Always written when changed: a condition that failed before reads as fixed now.
    let latest = ns;
    const next = deepCopy(ns);
    next.status ??= {};
    if (conditions.update(next.status)) {
      try {
        latest = await client.resource(builtin.namespaces).updateStatus(next, { signal });
      } catch (err) {
        if (signal?.aborted) throw err;
        // Upstream logs this and goes on; the next pass writes them again.
      }
    }
    if (errs.length > 0) throw new NamespaceDeletionErrors(errs);
    return { estimate, namespace: latest };
  }

  private descriptor(gvr: GVR): ResourceDescriptor<PartialObjectMetadata> {
    return metadataOnly({ group: gvr.group, version: gvr.version, resource: gvr.resource, kind: gvr.kind, namespaced: true });
  }

  /** The resources with the delete verb; records the list/deletecollection verbs they lack. */
  private deletableResources(lists: readonly NamespacedResourceList[]): GVR[] {
    const gvrs: GVR[] = [];
    for (const list of lists) {
      const gv = parseGroupVersion(list.groupVersion);
      for (const r of list.resources) {
        if (!r.verbs.includes("delete")) continue;
        const g = { group: gv.group, version: gv.version, resource: r.name, kind: r.kind };
        for (const op of ["list", "deletecollection"]) if (!r.verbs.includes(op)) this.unsupported.add(`${op} ${gvrKey(g)}`);
        gvrs.push(g);
      }
    }
    return gvrs;
  }

  /**
   * deleteAllContentForGroupVersionResource: empties one resource and reports what is left, with
   * the error that stopped it, if any (the report still counts).
   */
  private async deleteAllContentForGroupVersionResource(
    client: ResourceClientFactory,
    gvr: GVR,
    namespace: string,
    deletedAt: number,
    signal?: AbortSignal,
  ): Promise<{ result: GVRDeletion; error?: unknown }> {
    const none = (estimate: number): GVRDeletion => ({ estimate, remaining: 0, remainingByFinalizer: new Map() });
    let estimate: number;
    try {
      estimate = await this.estimateGracefulTermination(client, gvr, namespace, deletedAt, signal);
    } catch (error) {
      return { result: none(0), error };
    }
    let left: PartialObjectMetadata[] | undefined;
    try {
      if (!(await this.deleteCollection(client, gvr, namespace, signal))) await this.deleteEachItem(client, gvr, namespace, signal);
      // What is left: not an error while there is an estimate.
      left = await this.listCollection(client, gvr, namespace, signal);
    } catch (error) {
      return { result: none(estimate), error };
    }
    if (left === undefined) return { result: none(estimate) };
    if (left.length === 0) return { result: none(0) };

    const remainingByFinalizer = new Map<string, number>();
    for (const item of left) for (const f of item.metadata?.finalizers ?? []) remainingByFinalizer.set(f, (remainingByFinalizer.get(f) ?? 0) + 1);
    if (estimate !== 0) return { result: { estimate, remaining: left.length, remainingByFinalizer } };
    // Finalizers are a normal reason to wait (for the garbage collector, say).
    if (remainingByFinalizer.size > 0) return { result: { estimate: FINALIZER_ESTIMATE_SECONDS, remaining: left.length, remainingByFinalizer } };
    return {
      result: { estimate, remaining: left.length, remainingByFinalizer },
      error: new Error(`unexpected items still remain in namespace: ${namespace} for gvr: ${gvrString(gvr)}`),
    };
  }

  /** True when the collection was deleted; false when deletecollection is not supported. */
  private async deleteCollection(client: ResourceClientFactory, gvr: GVR, namespace: string, signal?: AbortSignal): Promise<boolean> {
    const key = `deletecollection ${gvrKey(gvr)}`;
    if (this.unsupported.has(key)) return false;
    try {
      await client.resource(this.descriptor(gvr), namespace).deleteCollection({ signal }, { propagationPolicy: "Background", signal });
      return true;
    } catch (err) {
      // A resource discovery lists may still answer 404 to a verb it has no handler for.
      if (isMethodNotSupported(err) || isNotFound(err)) return false;
      throw err;
    }
  }

  /** The items, or undefined when list is not supported. */
  private async listCollection(client: ResourceClientFactory, gvr: GVR, namespace: string, signal?: AbortSignal): Promise<PartialObjectMetadata[] | undefined> {
    const key = `list ${gvrKey(gvr)}`;
    if (this.unsupported.has(key)) return undefined;
    try {
      return (await client.resource(this.descriptor(gvr), namespace).list({ signal })).items;
    } catch (err) {
      if (isMethodNotSupported(err) || isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async deleteEachItem(client: ResourceClientFactory, gvr: GVR, namespace: string, signal?: AbortSignal): Promise<void> {
    const items = await this.listCollection(client, gvr, namespace, signal);
    if (!items) return;
    const rc = client.resource(this.descriptor(gvr), namespace);
    for (const item of items) {
      try {
        await rc.delete(item.metadata?.name ?? "", { propagationPolicy: "Background", signal });
      } catch (err) {
        if (!isNotFound(err) && !isMethodNotSupported(err)) throw err;
      }
    }
  }

  /**
   * Seconds of graceful termination still to allow: for pods, the longest
   * terminationGracePeriodSeconds of the non-terminal pods, unless that much time has passed since
   * the namespace was deleted (then 0).
   */
  private async estimateGracefulTermination(client: ResourceClientFactory, gvr: GVR, namespace: string, deletedAt: number, signal?: AbortSignal): Promise<number> {
    if (gvr.group !== "" || gvr.resource !== "pods") return 0;
    let estimate = 0;
    const pods: Pod[] = (await client.resource(builtin.pods, namespace).list({ signal })).items;
    for (const pod of pods) {
      const phase = pod.status?.phase;
      if (phase === "Succeeded" || phase === "Failed") continue;
      const grace = pod.spec?.terminationGracePeriodSeconds;
      if (grace !== undefined && grace > estimate) estimate = grace;
    }
    return this.opts.clock.now() - deletedAt >= estimate * 1000 ? 0 : estimate;
  }
}

function gvrString(g: GVR): string {
  return `${g.group}/${g.version}, Resource=${g.resource}`;
}
