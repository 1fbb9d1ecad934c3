/**
 * The Endpoints controller (upstream pkg/controller/endpoint): for every Service with a selector,
 * an Endpoints object of the same name listing the selected pods — ready pods under `addresses`,
 * the others under `notReadyAddresses` — with the ports the service's target ports resolve to on
 * each pod. Services without a selector are left alone (their Endpoints are managed by hand);
 * the Endpoints of a deleted Service are deleted.
 *
 * Writes only when the subsets or labels differ from what is stored (compared semantically), so
 * a steady state makes no writes.
 *
 * Composed with the builder — requests: one per Service ("ns/name"):
 *   for(services); watches(pods) → every Service whose selector matches the pod (before and after a
 *   label change, when podEndpointsChanged says it matters); watches(endpoints) → on deletion, and
 *   for every Endpoints of the initial list (upstream's checkLeftoverEndpoints: those whose Service
 *   went away meanwhile are cleaned up), leader-election records excepted. maxRetries 15.
 */
import type { Endpoints, Pod, Service } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { isForbidden, isNotFound, StatusError } from "../../apimachinery/errors.js";
import { selectorFromValidatedSet } from "../../apimachinery/labels.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { builtin } from "../../client/typed.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { RequestQueue } from "../../runtime/handler.js";
import type { Manager } from "../../runtime/manager.js";
import {
  computeSubsets,
  HEADLESS_SERVICE_LABEL,
  isPodReady,
  isServiceIPSet,
  LAST_CHANGE_TRIGGER_TIME_ANNOTATION,
  LEADER_ANNOTATION,
} from "./subsets.js";

export const ENDPOINTS_CONTROLLER_NAME = "endpoint-controller";
/** kube-controller-manager's --concurrent-endpoint-syncs default. */
export const DEFAULT_ENDPOINTS_WORKERS = 5;
/** Upstream maxRetries for a service key before it is dropped. */
export const ENDPOINTS_MAX_RETRIES = 15;

export interface EndpointsControllerOptions {
  /** Workers (default 5). */
  workers?: number;
}

function podIPs(pod: Pod): string[] {
  const ips = (pod.status?.podIPs ?? []).map((p) => p.ip ?? "");
  return ips.length > 0 ? ips : pod.status?.podIP ? [pod.status.podIP] : [];
}

/**
 * Whether a pod update can change endpoints (`changed`), and whether it can change which services
 * select it (`labelsChanged`) — upstream podEndpointsChanged.
 */
export function podEndpointsChanged(oldPod: Pod, newPod: Pod): { changed: boolean; labelsChanged: boolean } {
  const labelsChanged =
    !semanticEqual(oldPod.metadata?.labels ?? {}, newPod.metadata?.labels ?? {}) ||
    (oldPod.spec?.hostname ?? "") !== (newPod.spec?.hostname ?? "") ||
    (oldPod.spec?.subdomain ?? "") !== (newPod.spec?.subdomain ?? "");
  const changed =
    (oldPod.metadata?.deletionTimestamp ?? "") !== (newPod.metadata?.deletionTimestamp ?? "") ||
    isPodReady(oldPod) !== isPodReady(newPod) ||
    (oldPod.status?.phase ?? "") !== (newPod.status?.phase ?? "") ||
    podIPs(oldPod).join(",") !== podIPs(newPod).join(",");
  return { changed, labelsChanged };
}

function labelsFor(svc: Service): Record<string, string> {
  const labels: Record<string, string> = { ...(svc.metadata?.labels ?? {}) };
  if (isServiceIPSet(svc)) delete labels[HEADLESS_SERVICE_LABEL];
  else labels[HEADLESS_SERVICE_LABEL] = "";
  return labels;
}

export class EndpointsController {
  readonly controller: Controller;
  private readonly client: ResourceClientFactory;
  private readonly services: Lister<Service>;
  private readonly pods: Lister<Pod>;
  private readonly endpoints: Lister<Endpoints>;

  constructor(mgr: Manager, opts: EndpointsControllerOptions = {}) {
    this.client = mgr.client;
    this.services = mgr.informers.forResource(builtin.services).lister();
    this.pods = mgr.informers.forResource(builtin.pods).lister();
    this.endpoints = mgr.informers.forResource(builtin.endpoints).lister();
    this.controller = mgr
      .controller(ENDPOINTS_CONTROLLER_NAME)
      .for(builtin.services)
      .watches(builtin.pods, {
        create: (e, q) => this.enqueueServicesOf(e.object, q),
        update: (e, q) => this.onPodUpdate(e.objectOld, e.objectNew, q),
        delete: (e, q) => this.enqueueServicesOf(e.object, q),
      })
      .watches(builtin.endpoints, {
        // checkLeftoverEndpoints: every Endpoints there at start is looked at once.
        create: (e, q) => {
          if (e.isInInitialList && e.object.metadata?.annotations?.[LEADER_ANNOTATION] === undefined) q.add(ObjectName.of(e.object));
        },
        // A deleted Endpoints of a live Service is recreated.
        delete: (e, q) => q.add(ObjectName.of(e.object)),
      })
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_ENDPOINTS_WORKERS, maxRetries: ENDPOINTS_MAX_RETRIES })
      .reconcile((req, ctx) => this.syncService(req, ctx.client));
  }

  /** The keys of the services in the pod's namespace whose selector matches the pod. */
  serviceKeysFor(pod: Pod): string[] {
    const ns = pod.metadata?.namespace ?? "";
    const labels = pod.metadata?.labels ?? {};
    const keys: string[] = [];
    for (const svc of this.services.namespace(ns).list()) {
      const sel = svc.spec?.selector;
      if (sel === undefined || sel === null) continue;
      if (selectorFromValidatedSet(sel).matches(labels)) keys.push(`${ns}/${svc.metadata?.name ?? ""}`);
    }
    return keys;
  }

  private enqueueServicesOf(pod: Pod, q: RequestQueue): void {
    for (const k of this.serviceKeysFor(pod)) q.add(ObjectName.parse(k));
  }

  private onPodUpdate(oldPod: Pod, newPod: Pod, q: RequestQueue): void {
    if (oldPod.metadata?.resourceVersion === newPod.metadata?.resourceVersion) return;
    const { changed, labelsChanged } = podEndpointsChanged(oldPod, newPod);
    if (!changed && !labelsChanged) return;
    const keys = new Set(this.serviceKeysFor(newPod));
    if (labelsChanged) for (const k of this.serviceKeysFor(oldPod)) keys.add(k);
    for (const k of keys) q.add(ObjectName.parse(k));
  }

  /** Makes the Endpoints of one Service what its selector and pods say (upstream syncService). */
  async syncService(key: ObjectName, client: ResourceClientFactory = this.client): Promise<void> {
    const { namespace, name } = key;
    let svc: Service;
    try {
      svc = this.services.namespace(namespace).get(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // The Service is gone: so goes its Endpoints.
      try {
        await client.resource(builtin.endpoints, namespace).delete(name);
      } catch (delErr) {
        if (!isNotFound(delErr)) throw delErr;
      }
      return;
    }
    const selector = svc.spec?.selector;
    // Services without a selector get their endpoints from elsewhere.
    if (selector === undefined || selector === null) return;

    const pods = this.pods.namespace(namespace).list(selectorFromValidatedSet(selector));
    const { subsets } = computeSubsets(svc, pods);

    let current: Endpoints | undefined;
    try {
      current = this.endpoints.namespace(namespace).get(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const labels = labelsFor(svc);
    if (
      current &&
      semanticEqual(current.subsets ?? [], subsets) &&
      semanticEqual(current.metadata?.labels ?? {}, labels) &&
      current.metadata?.annotations?.[LAST_CHANGE_TRIGGER_TIME_ANNOTATION] === undefined
    ) {
      return;
    }

    const next: Endpoints = current
      ? deepCopy(current)
      : { apiVersion: "v1", kind: "Endpoints", metadata: { name, namespace } };
    const meta = { ...(next.metadata ?? {}) };
    meta.labels = labels;
    if (meta.annotations) {
      const annotations = { ...meta.annotations };
      delete annotations[LAST_CHANGE_TRIGGER_TIME_ANNOTATION];
      meta.annotations = Object.keys(annotations).length ? annotations : undefined;
      if (!meta.annotations) delete meta.annotations;
    }
    const written: Endpoints = { ...next, metadata: meta };
    if (subsets.length > 0) written.subsets = subsets;
    else delete written.subsets;

    const endpoints = client.resource(builtin.endpoints, namespace);
    try {
      if (current) await endpoints.update(written);
      else await endpoints.create(written);
    } catch (err) {
      // A namespace being deleted refuses creations; nothing to retry.
      if (!current && isForbidden(err) && isNamespaceTerminating(err)) return;
      throw err;
    }
  }
}

function isNamespaceTerminating(err: unknown): boolean {
  if (!(err instanceof StatusError)) return false;
  const causes = err.status.details?.causes ?? [];
  return causes.some((c) => c.reason === "NamespaceTerminating") || /because it is being terminated/.test(err.message);
}
