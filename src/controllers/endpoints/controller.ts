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
 * Keys: one per Service ("ns/name"), queued on Service events, on Pod events for every Service
 * whose selector matches the pod (before and after a label change), on Endpoints deletion, and at
 * start for every existing Endpoints (to clean up those whose Service went away meanwhile).
 */
import type { Endpoints, Pod, Service } from "kubernetes-types/core/v1.js";
import type { Registry } from "prom-client";
import type { Clock } from "../../apimachinery/clock.js";
import { realClock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { isForbidden, isNotFound, StatusError } from "../../apimachinery/errors.js";
import { selectorFromValidatedSet } from "../../apimachinery/labels.js";
import type { ObjectName } from "../../apimachinery/objectname.js";
import { builtin } from "../../client/typed.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import type { SharedInformerFactory } from "../../informers/factory.js";
import { objectFromDeletion } from "../../informers/handlers.js";
import type { SharedIndexInformer } from "../../informers/sharedinformer.js";
import { Controller } from "../../runtime/controller.js";
import type { Logger } from "../../runtime/logging.js";
import { silentLogger } from "../../runtime/logging.js";
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
  client: ResourceClientFactory;
  informers: SharedInformerFactory;
  clock?: Clock;
  logger?: Logger;
  registry?: Registry;
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
  private readonly informers: SharedInformerFactory;
  private readonly services: SharedIndexInformer<Service>;
  private readonly pods: SharedIndexInformer<Pod>;
  private readonly endpoints: SharedIndexInformer<Endpoints>;
  private readonly log: Logger;

  constructor(opts: EndpointsControllerOptions) {
    this.client = opts.client;
    this.informers = opts.informers;
    this.log = opts.logger ?? silentLogger();
    this.services = opts.informers.forResource<Service>(builtin.services);
    this.pods = opts.informers.forResource<Pod>(builtin.pods);
    this.endpoints = opts.informers.forResource<Endpoints>(builtin.endpoints);
    this.controller = new Controller({
      name: ENDPOINTS_CONTROLLER_NAME,
      client: this.client,
      informers: opts.informers,
      reconcile: (key) => this.syncService(key),
      caches: [this.services, this.pods, this.endpoints],
      maxRetries: ENDPOINTS_MAX_RETRIES,
      clock: opts.clock ?? realClock,
      logger: this.log,
      registry: opts.registry,
    });
    this.services.addEventHandler({
      onAdd: (s) => this.controller.enqueue(s),
      onUpdate: (_o, s) => this.controller.enqueue(s),
      onDelete: (s) => this.controller.enqueue(s),
    });
    this.pods.addEventHandler({
      onAdd: (p) => this.enqueueServicesOf(p),
      onUpdate: (o, n) => this.onPodUpdate(o, n),
      onDelete: (p) => {
        const pod = objectFromDeletion(p);
        if (pod) this.enqueueServicesOf(pod);
      },
    });
    // A deleted Endpoints of a live Service is recreated.
    this.endpoints.addEventHandler({ onDelete: (e) => this.controller.enqueue(e) });
  }

  /** The keys of the services in the pod's namespace whose selector matches the pod. */
  serviceKeysFor(pod: Pod): string[] {
    const ns = pod.metadata?.namespace ?? "";
    const labels = pod.metadata?.labels ?? {};
    const keys: string[] = [];
    for (const svc of this.services.lister().namespace(ns).list()) {
      const sel = svc.spec?.selector;
      if (sel === undefined || sel === null) continue;
      if (selectorFromValidatedSet(sel).matches(labels)) keys.push(`${ns}/${svc.metadata?.name ?? ""}`);
    }
    return keys;
  }

  private enqueueServicesOf(pod: Pod): void {
    for (const k of this.serviceKeysFor(pod)) this.controller.enqueue(k);
  }

  private onPodUpdate(oldPod: Pod, newPod: Pod): void {
    if (oldPod.metadata?.resourceVersion === newPod.metadata?.resourceVersion) return;
    const { changed, labelsChanged } = podEndpointsChanged(oldPod, newPod);
    if (!changed && !labelsChanged) return;
    const keys = new Set(this.serviceKeysFor(newPod));
    if (labelsChanged) for (const k of this.serviceKeysFor(oldPod)) keys.add(k);
    for (const k of keys) this.controller.enqueue(k);
  }

  /** Queues every existing Endpoints (except leader-election records) so those without a Service go away. */
  checkLeftoverEndpoints(): void {
    for (const ep of this.endpoints.lister().list()) {
      if (ep.metadata?.annotations?.[LEADER_ANNOTATION] !== undefined) continue;
      this.controller.enqueue(ep);
    }
  }

  /** Starts the informers, waits for them, queues leftover Endpoints, and runs the workers until `signal` aborts. */
  async run(signal: AbortSignal, workers = DEFAULT_ENDPOINTS_WORKERS): Promise<void> {
    this.informers.start(signal);
    const synced = await Promise.all([this.services, this.pods, this.endpoints].map((i) => i.waitForSync(signal)));
    if (synced.every(Boolean)) this.checkLeftoverEndpoints();
    await this.controller.run(signal, workers);
  }

  /** Makes the Endpoints of one Service what its selector and pods say (upstream syncService). */
  async syncService(key: ObjectName): Promise<void> {
    const { namespace, name } = key;
    let svc: Service;
    try {
      svc = this.services.lister().namespace(namespace).get(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // The Service is gone: so goes its Endpoints.
      try {
        await this.client.resource<Endpoints>(builtin.endpoints, namespace).delete(name);
      } catch (delErr) {
        if (!isNotFound(delErr)) throw delErr;
      }
      return;
    }
    const selector = svc.spec?.selector;
    // Services without a selector get their endpoints from elsewhere.
    if (selector === undefined || selector === null) return;

    const pods = this.pods.lister().namespace(namespace).list(selectorFromValidatedSet(selector));
    const { subsets, portErrors } = computeSubsets(svc, pods);
    if (portErrors > 0) this.log.debug({ service: `${namespace}/${name}`, pods: portErrors }, "Failed to find a matching port on some pods");

    let current: Endpoints | undefined;
    try {
      current = this.endpoints.lister().namespace(namespace).get(name);
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

    const client = this.client.resource<Endpoints>(builtin.endpoints, namespace);
    try {
      if (current) await client.update(written);
      else await client.create(written);
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
