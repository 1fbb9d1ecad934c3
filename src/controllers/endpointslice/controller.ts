/**
 * The EndpointSlice controller (upstream pkg/controller/endpointslice): for every Service with a
 * selector, EndpointSlices labelled `endpointslice.kubernetes.io/managed-by:
 * endpointslice-controller.k8s.io` and `kubernetes.io/service-name: <service>`, owned by the
 * Service, holding its selected pods (at most maxEndpointsPerSlice per slice) with the ports the
 * service's target ports resolve to per pod, the ready/serving/terminating conditions, node and
 * zone. Services without a selector are left alone (their slices are someone else's); a deleted
 * Service's slices go with it through the garbage collector (owner reference), and are deleted
 * here too when still listed.
 *
 * Zero writes in steady state: the plan (reconciler.ts) compares desired and existing slices. A
 * sync whose slice cache is behind this controller's own writes is retried instead (tracker.ts).
 *
 * Composed with the builder — requests: one per Service ("ns/name"):
 *   for(services); watches(pods) → the selecting services (podEndpointsChanged, before and after a
 *   label change); watches(endpointslices) → the service named by a managed slice's label (a slice
 *   changed or deleted behind the controller's back is put right). maxRetries 15.
 */
import type { Node, Pod, Service } from "../../apimachinery/api/core/v1.js";
import type { EndpointSlice } from "../../apimachinery/api/discovery/v1.js";
import { isForbidden, isNotFound } from "../../apimachinery/errors.js";
import { selectorFromSet, selectorFromValidatedSet } from "../../apimachinery/labels.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { RequestQueue } from "../../runtime/handler.js";
import type { Manager } from "../../runtime/manager.js";
import { podEndpointsChanged } from "../endpoints/controller.js";
import { addressTypesFor, CONTROLLER_NAME_VALUE, DEFAULT_MAX_ENDPOINTS_PER_SLICE, desiredGroups, MANAGED_BY_LABEL, SERVICE_NAME_LABEL } from "./desired.js";
import { planSlices, type SlicePlan } from "./reconciler.js";
import { EndpointSliceTracker, StaleInformerCacheError } from "./tracker.js";

export const ENDPOINTSLICE_CONTROLLER_NAME = "endpointslice-controller";
/** kube-controller-manager's --concurrent-service-endpoint-syncs default. */
export const DEFAULT_ENDPOINTSLICE_WORKERS = 5;
/** Upstream maxRetries. */
export const ENDPOINTSLICE_MAX_RETRIES = 15;

export interface EndpointSliceControllerOptions {
  workers?: number;
  /** --max-endpoints-per-slice (default 100). */
  maxEndpointsPerSlice?: number;
}

export class EndpointSliceController {
  readonly controller: Controller;
  private readonly client: ResourceClientFactory;
  private readonly services: Lister<Service>;
  private readonly pods: Lister<Pod>;
  private readonly nodes: Lister<Node>;
  private readonly slices: Lister<EndpointSlice>;
  private readonly maxPerSlice: number;
  private readonly tracker = new EndpointSliceTracker();

  constructor(mgr: Manager, opts: EndpointSliceControllerOptions = {}) {
    this.client = mgr.client;
    this.maxPerSlice = opts.maxEndpointsPerSlice ?? DEFAULT_MAX_ENDPOINTS_PER_SLICE;
    this.services = mgr.informers.forResource(builtin.services).lister();
    this.pods = mgr.informers.forResource(builtin.pods).lister();
    this.nodes = mgr.informers.forResource(builtin.nodes).lister();
    this.slices = mgr.informers.forResource(builtin.endpointSlices).lister();
    const bySlice = (s: EndpointSlice, q: RequestQueue) => {
      const svc = s.metadata?.labels?.[SERVICE_NAME_LABEL];
      if (svc && s.metadata?.labels?.[MANAGED_BY_LABEL] === CONTROLLER_NAME_VALUE) q.add(new ObjectName(s.metadata?.namespace ?? "", svc));
    };
    this.controller = mgr
      .controller(ENDPOINTSLICE_CONTROLLER_NAME)
      .for(builtin.services)
      .watches(builtin.pods, {
        create: (e, q) => this.enqueueServicesOf(e.object, q),
        update: (e, q) => this.onPodUpdate(e.objectOld, e.objectNew, q),
        delete: (e, q) => this.enqueueServicesOf(e.object, q),
      })
      .watches(builtin.endpointSlices, {
        update: (e, q) => {
          if (e.objectOld.metadata?.resourceVersion !== e.objectNew.metadata?.resourceVersion) bySlice(e.objectNew, q);
        },
        delete: (e, q) => bySlice(e.object, q),
      })
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_ENDPOINTSLICE_WORKERS, maxRetries: ENDPOINTSLICE_MAX_RETRIES })
      .reconcile((req, ctx) => this.syncService(req, ctx.client));
  }

  private serviceKeysFor(pod: Pod): ObjectName[] {
    const ns = pod.metadata?.namespace ?? "";
    const labels = pod.metadata?.labels ?? {};
    const out: ObjectName[] = [];
    for (const svc of this.services.namespace(ns).list()) {
      const sel = svc.spec?.selector;
      if (sel === undefined || sel === null) continue;
      if (selectorFromValidatedSet(sel).matches(labels)) out.push(new ObjectName(ns, svc.metadata?.name ?? ""));
    }
    return out;
  }

  private enqueueServicesOf(pod: Pod, q: RequestQueue): void {
    for (const k of this.serviceKeysFor(pod)) q.add(k);
  }

  private onPodUpdate(oldPod: Pod, newPod: Pod, q: RequestQueue): void {
    if (oldPod.metadata?.resourceVersion === newPod.metadata?.resourceVersion) return;
    const { changed, labelsChanged } = podEndpointsChanged(oldPod, newPod);
    const nodeChanged = (oldPod.spec?.nodeName ?? "") !== (newPod.spec?.nodeName ?? "");
    if (!changed && !labelsChanged && !nodeChanged) return;
    this.enqueueServicesOf(newPod, q);
    if (labelsChanged) this.enqueueServicesOf(oldPod, q);
  }

  /** The managed slices of a service, from the cache. */
  managedSlices(namespace: string, name: string): readonly EndpointSlice[] {
    return this.slices.namespace(namespace).list(selectorFromSet({ [SERVICE_NAME_LABEL]: name, [MANAGED_BY_LABEL]: CONTROLLER_NAME_VALUE }));
  }

  /** Makes the slices of one Service what its selector and pods say (upstream syncService + reconcile). */
  async syncService(key: ObjectName, client: ResourceClientFactory = this.client): Promise<void> {
    const { namespace, name } = key;
    const slices = client.resource(builtin.endpointSlices, namespace);
    let svc: Service;
    try {
      svc = this.services.namespace(namespace).get(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // The garbage collector removes owned slices too; deleting here makes it prompt.
      this.tracker.deleteService(key.toString());
      for (const s of this.managedSlices(namespace, name)) await deleteIgnoringNotFound(slices, s.metadata?.name ?? "");
      return;
    }
    const selector = svc.spec?.selector;
    if (selector === undefined || selector === null) return;
    if (svc.metadata?.deletionTimestamp) return;

    const pods = this.pods.namespace(namespace).list(selectorFromValidatedSet(selector));
    const existing = this.managedSlices(namespace, name);
    const tk = key.toString();
    if (this.tracker.stale(tk, existing)) throw new StaleInformerCacheError(tk);
    const families = addressTypesFor(svc);
    const plan: SlicePlan = { create: [], update: [], delete: [] };
    for (const family of families) {
      const groups = desiredGroups(svc, pods, family, (n) => this.node(n));
      const p = planSlices(svc, family, groups, existing.filter((s) => s.addressType === family), this.maxPerSlice);
      plan.create.push(...p.create);
      plan.update.push(...p.update);
      plan.delete.push(...p.delete);
    }
    plan.delete.push(...existing.filter((s) => !families.includes(s.addressType as (typeof families)[number])));

    try {
      for (const s of plan.create) this.tracker.update(tk, await slices.create(s));
      for (const s of plan.update) this.tracker.update(tk, await slices.update(s));
    } catch (err) {
      // A namespace being deleted refuses creations; nothing to retry.
      if (isForbidden(err) && /being terminated/.test(String((err as Error).message))) return;
      throw err;
    }
    for (const s of plan.delete) {
      this.tracker.expectDeletion(tk, s.metadata?.name ?? "");
      await deleteIgnoringNotFound(slices, s.metadata?.name ?? "");
    }
  }

  private node(name: string): Node | undefined {
    try {
      return this.nodes.get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}

async function deleteIgnoringNotFound(c: { delete(name: string): Promise<unknown> }, name: string): Promise<void> {
  try {
    await c.delete(name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
