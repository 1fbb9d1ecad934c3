/**
 * The EndpointSlice mirroring controller (upstream pkg/controller/endpointslicemirroring): the
 * Endpoints of a Service without a selector — written by hand or by another controller — are
 * mirrored into EndpointSlices, so clients that read slices (kube-proxy, `kubectl describe svc`)
 * see them. One slice per (ports, address type) group, named from the service, owned by the
 * Endpoints, holding at most 1000 addresses of each subset (Warning TooManyAddressesToMirror names
 * the rest; InvalidIPAddress the addresses that are not IPs). Endpoints labelled
 * `endpointslice.kubernetes.io/skip-mirror: "true"`, those carrying a leader-election record, and
 * the API server's own `kubernetes` Endpoints in default are not mirrored; a Service with a
 * selector (the EndpointSlice controller's), a deleted Service or Endpoints loses its mirrored slices.
 *
 * Zero writes in steady state: a group's slice is rewritten only when its endpoints, ports, labels
 * or annotations differ from what is desired (reconcileByPortMapping).
 *
 * Requests: "ns/name" of the Service (and of its Endpoints), from Service events, Endpoints events
 * (those that should be mirrored, before or after an update) and events of slices managed by this
 * controller (a mirrored slice changed or deleted behind its back is put right).
 */
import type { Endpoints, Service } from "../../apimachinery/api/core/v1.js";
import type { EndpointSlice } from "../../apimachinery/api/discovery/v1.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { isNotFound } from "../../apimachinery/errors.js";
import { selectorFromSet } from "../../apimachinery/labels.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { EventRecorder } from "../../events/index.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { Manager } from "../../runtime/manager.js";
import {
  DEFAULT_MAX_ENDPOINTS_PER_SUBSET,
  desiredState,
  LEADER_ELECTION_ANNOTATION,
  MANAGED_BY_LABEL,
  MIRRORING_CONTROLLER_NAME_VALUE,
  newEndpointSlice,
  SERVICE_NAME_LABEL,
  SKIP_MIRROR_LABEL,
  sliceAnnotations,
  sliceGroupKey,
  sliceLabels,
} from "./desired.js";

export const ENDPOINTSLICE_MIRRORING_CONTROLLER_NAME = "endpointslice-mirroring-controller";
/** --mirroring-concurrent-service-endpoint-syncs default. */
export const DEFAULT_ENDPOINTSLICE_MIRRORING_WORKERS = 5;
/** Upstream maxRetries. */
export const ENDPOINTSLICE_MIRRORING_MAX_RETRIES = 15;

export interface EndpointSliceMirroringControllerOptions {
  workers?: number;
  /** --mirroring-max-endpoints-per-subset (default 1000). */
  maxEndpointsPerSubset?: number;
}

/** The writes one sync makes. */
export interface MirroringPlan {
  toCreate: EndpointSlice[];
  toUpdate: EndpointSlice[];
  toDelete: EndpointSlice[];
}

/** shouldMirror: not skipped by label, no leader-election record, not the API server's own `kubernetes` Endpoints. */
export function shouldMirror(endpoints: Endpoints | undefined): boolean {
  if (!endpoints) return false;
  if (endpoints.metadata?.labels?.[SKIP_MIRROR_LABEL] === "true") return false;
  if (endpoints.metadata?.annotations?.[LEADER_ELECTION_ANNOTATION] !== undefined) return false;
  if (endpoints.metadata?.namespace === "default" && endpoints.metadata?.name === "kubernetes") return false;
  return true;
}

/** managedByController: the slice is one this controller mirrors. */
export function managedByMirroring(slice: EndpointSlice): boolean {
  return slice.metadata?.labels?.[MANAGED_BY_LABEL] === MIRRORING_CONTROLLER_NAME_VALUE;
}

const sameEndpoints = (a: EndpointSlice, b: EndpointSlice) => semanticEqual(a.endpoints ?? [], b.endpoints ?? []) && semanticEqual(a.ports ?? [], b.ports ?? []);

/**
 * reconcile: per desired group one slice — the first existing slice of the group rewritten when
 * anything differs (the others deleted), or a new one; slices of groups no longer desired deleted.
 */
export function planMirroring(endpoints: Endpoints, existing: readonly EndpointSlice[], maxEndpointsPerSubset = DEFAULT_MAX_ENDPOINTS_PER_SUBSET): MirroringPlan & { invalidAddresses: number; skippedAddresses: number } {
  const d = desiredState(endpoints, maxEndpointsPerSubset);
  const byKey = new Map<string, EndpointSlice[]>();
  const byName = (a: EndpointSlice, b: EndpointSlice) => ((a.metadata?.name ?? "") < (b.metadata?.name ?? "") ? -1 : 1);
  for (const s of [...existing].sort(byName)) {
    const k = sliceGroupKey(s);
    byKey.set(k, [...(byKey.get(k) ?? []), s]);
  }
  const plan: MirroringPlan = { toCreate: [], toUpdate: [], toDelete: [] };
  const labels = sliceLabels(endpoints);
  const annotations = sliceAnnotations(endpoints);
  for (const [key, group] of d.groups) {
    const slices = byKey.get(key) ?? [];
    if (group.endpoints.length === 0) {
      plan.toDelete.push(...slices);
      continue;
    }
    const first = slices[0];
    plan.toDelete.push(...slices.slice(1));
    const desired = newEndpointSlice(endpoints, group, first?.metadata?.name);
    if (first && sameEndpoints(first, desired) && semanticEqual(first.metadata?.labels ?? {}, labels) && semanticEqual(first.metadata?.annotations ?? {}, annotations)) continue;
    if (first) plan.toUpdate.push({ ...desired, metadata: { ...first.metadata, ...desired.metadata, name: first.metadata?.name } });
    else plan.toCreate.push(desired);
  }
  for (const [key, slices] of byKey) if (!d.groups.has(key)) plan.toDelete.push(...slices);
  return { ...plan, invalidAddresses: d.invalidAddresses, skippedAddresses: d.skippedAddresses };
}

export class EndpointSliceMirroringController {
  readonly controller: Controller;
  private readonly services: Lister<Service>;
  private readonly endpoints: Lister<Endpoints>;
  private readonly slices: Lister<EndpointSlice>;
  private readonly maxEndpointsPerSubset: number;
  private readonly recorder: EventRecorder;

  constructor(mgr: Manager, opts: EndpointSliceMirroringControllerOptions = {}) {
    this.maxEndpointsPerSubset = opts.maxEndpointsPerSubset ?? DEFAULT_MAX_ENDPOINTS_PER_SUBSET;
    this.services = mgr.informers.forResource(builtin.services).lister();
    this.endpoints = mgr.informers.forResource(builtin.endpoints).lister();
    this.slices = mgr.informers.forResource(builtin.endpointSlices).lister();
    this.recorder = mgr.eventRecorder("endpoint-slice-mirroring-controller");
    const key = (o: { metadata?: { namespace?: string; name?: string } }) => new ObjectName(o.metadata?.namespace ?? "", o.metadata?.name ?? "");
    const sliceKey = (s: EndpointSlice) => {
      const svc = s.metadata?.labels?.[SERVICE_NAME_LABEL];
      return svc ? [new ObjectName(s.metadata?.namespace ?? "", svc)] : [];
    };
    this.controller = mgr
      .controller(ENDPOINTSLICE_MIRRORING_CONTROLLER_NAME)
      .watches(builtin.services, {
        create: (e, q) => q.add(key(e.object)),
        update: (e, q) => q.add(key(e.objectNew)),
        delete: (e, q) => q.add(key(e.object)),
      })
      .watches(builtin.endpoints, {
        create: (e, q) => shouldMirror(e.object) && q.add(key(e.object)),
        update: (e, q) => (shouldMirror(e.objectOld) || shouldMirror(e.objectNew)) && q.add(key(e.objectNew)),
        delete: (e, q) => q.add(key(e.object)),
      })
      .watches(builtin.endpointSlices, {
        create: (e, q) => managedByMirroring(e.object) && sliceKey(e.object).forEach((r) => q.add(r)),
        update: (e, q) => {
          if (managedByMirroring(e.objectOld) || managedByMirroring(e.objectNew)) for (const r of [...sliceKey(e.objectOld), ...sliceKey(e.objectNew)]) q.add(r);
        },
        delete: (e, q) => managedByMirroring(e.object) && sliceKey(e.object).forEach((r) => q.add(r)),
      })
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_ENDPOINTSLICE_MIRRORING_WORKERS, maxRetries: ENDPOINTSLICE_MIRRORING_MAX_RETRIES })
      .reconcile((req, ctx) => this.syncEndpoints(req.namespace, req.name, ctx.client));
  }

  /** syncEndpoints: mirror the Endpoints of a selector-less Service, or delete the mirrored slices. */
  async syncEndpoints(namespace: string, name: string, client: ResourceClientFactory): Promise<void> {
    const svc = this.tryGet(() => this.services.namespace(namespace).get(name));
    const mirrored = this.mirroredSlices(namespace, name);
    if (!svc || svc.spec?.selector != null) return this.deleteSlices(client, namespace, mirrored);
    const endpoints = this.tryGet(() => this.endpoints.namespace(namespace).get(name));
    if (!endpoints || !shouldMirror(endpoints)) return this.deleteSlices(client, namespace, mirrored);
    const plan = planMirroring(endpoints, mirrored, this.maxEndpointsPerSubset);
    if (plan.invalidAddresses > 0) this.recorder.event(endpoints, "Warning", "InvalidIPAddress", `Skipped ${plan.invalidAddresses} invalid IP addresses when mirroring to EndpointSlices`);
    if (plan.skippedAddresses > plan.invalidAddresses) {
      this.recorder.event(
        endpoints,
        "Warning",
        "TooManyAddressesToMirror",
        `A max of ${this.maxEndpointsPerSubset} addresses can be mirrored to EndpointSlices per Endpoints subset. ${plan.skippedAddresses - plan.invalidAddresses} addresses were skipped`,
      );
    }
    const slices = client.resource(builtin.endpointSlices, namespace);
    for (const s of plan.toCreate) await slices.create(s);
    for (const s of plan.toUpdate) await slices.update(s);
    await this.deleteSlices(client, namespace, plan.toDelete);
  }

  private mirroredSlices(namespace: string, service: string): EndpointSlice[] {
    const selector = selectorFromSet({ [SERVICE_NAME_LABEL]: service, [MANAGED_BY_LABEL]: MIRRORING_CONTROLLER_NAME_VALUE });
    return [...this.slices.namespace(namespace).list(selector)];
  }

  private async deleteSlices(client: ResourceClientFactory, namespace: string, slices: readonly EndpointSlice[]): Promise<void> {
    const api = client.resource(builtin.endpointSlices, namespace);
    for (const s of slices) {
      try {
        await api.delete(s.metadata?.name ?? "");
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }

  private tryGet<T>(get: () => T): T | undefined {
    try {
      return get();
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}
