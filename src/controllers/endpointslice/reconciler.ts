/**
 * The slice plan (upstream staging/src/k8s.io/endpointslice reconciler.go, reconcileByAddressType
 * and reconcileByPortMapping): given a Service's desired endpoint groups and its existing managed
 * slices, which slices to create, update and delete so that
 * - slices of another address type, or whose ports no group wants, are deleted (or one is kept as
 *   the placeholder when nothing else remains);
 * - endpoints stay in the slice that holds them while they are desired (an endpoint that changed
 *   marks its slice for update); slices left empty are deleted;
 * - new endpoints fill the slices already being updated, then the fullest existing ones with room,
 *   then new slices of at most maxEndpointsPerSlice;
 * - a Service with no endpoints at all keeps exactly one empty placeholder slice;
 * - nothing changes → nothing is written (labels and owner included in the comparison).
 */
import type { Service } from "../../apimachinery/api/core/v1.js";
import type { Endpoint, EndpointSlice } from "../../apimachinery/api/discovery/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import {
  type AddressType,
  CONTROLLER_NAME_VALUE,
  endpointKey,
  HEADLESS_LABEL,
  MANAGED_BY_LABEL,
  type PortGroup,
  portsKey,
  SERVICE_NAME_LABEL,
} from "./desired.js";

export interface SlicePlan {
  create: EndpointSlice[];
  update: EndpointSlice[];
  delete: EndpointSlice[];
}

/** The labels of a managed slice (upstream setEndpointSliceLabels): the service's, plus the two of ownership, plus headless. */
export function sliceLabels(svc: Service): Record<string, string> {
  const labels: Record<string, string> = { ...(svc.metadata?.labels ?? {}) };
  delete labels[HEADLESS_LABEL];
  const ip = svc.spec?.clusterIP ?? "";
  if (ip === "" || ip === "None") labels[HEADLESS_LABEL] = "";
  labels[SERVICE_NAME_LABEL] = svc.metadata?.name ?? "";
  labels[MANAGED_BY_LABEL] = CONTROLLER_NAME_VALUE;
  return labels;
}

function ownerRef(svc: Service) {
  return { apiVersion: "v1", kind: "Service", name: svc.metadata?.name ?? "", uid: svc.metadata?.uid ?? "", controller: true, blockOwnerDeletion: true };
}

function newSlice(svc: Service, addressType: AddressType, group: { ports: PortGroup["ports"] }, endpoints: Endpoint[]): EndpointSlice {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      generateName: `${svc.metadata?.name ?? ""}-`,
      namespace: svc.metadata?.namespace,
      labels: sliceLabels(svc),
      ownerReferences: [ownerRef(svc)],
    },
    addressType,
    endpoints,
    ports: group.ports,
  };
}

/** Whether the slice's metadata is what the service says (labels and the controller reference). */
function metaCurrent(slice: EndpointSlice, svc: Service): boolean {
  const owners = slice.metadata?.ownerReferences ?? [];
  return semanticEqual(slice.metadata?.labels ?? {}, sliceLabels(svc)) && owners.some((o) => o.controller && o.uid === svc.metadata?.uid);
}

function withMeta(slice: EndpointSlice, svc: Service): EndpointSlice {
  const next = deepCopy(slice);
  const owners = (next.metadata?.ownerReferences ?? []).filter((o) => !(o.kind === "Service" && o.apiVersion === "v1"));
  next.metadata = { ...next.metadata, labels: sliceLabels(svc), ownerReferences: [...owners, ownerRef(svc)] };
  return next;
}

/** Plans the writes for one address type. `existing` are the service's managed slices (any type). */
export function planSlices(svc: Service, addressType: AddressType, groups: readonly PortGroup[], existing: readonly EndpointSlice[], maxPerSlice: number): SlicePlan {
  const plan: SlicePlan = { create: [], update: [], delete: [] };
  const byPorts = new Map<string, EndpointSlice[]>();
  const stale: EndpointSlice[] = [];
  const wanted = new Set(groups.map((g) => g.key));
  for (const s of existing) {
    const k = portsKey(s.ports ?? []);
    if (s.addressType !== addressType || !wanted.has(k)) stale.push(s);
    else byPorts.set(k, [...(byPorts.get(k) ?? []), s]);
  }

  for (const g of groups) {
    const desired = new Map(g.endpoints.map((e) => [endpointKey(e), e]));
    const placed = new Set<string>();
    const touched: EndpointSlice[] = [];
    const unchanged: EndpointSlice[] = [];
    for (const s of byPorts.get(g.key) ?? []) {
      let changed = false;
      const kept: Endpoint[] = [];
      for (const e of s.endpoints ?? []) {
        const k = endpointKey(e);
        const want = desired.get(k);
        if (!want || placed.has(k)) {
          changed = true;
          continue;
        }
        placed.add(k);
        if (!semanticEqual(e, want)) changed = true;
        kept.push(want);
      }
      if (kept.length === 0) {
        plan.delete.push(s);
        continue;
      }
      if (changed || !metaCurrent(s, svc)) touched.push({ ...withMeta(s, svc), endpoints: kept });
      else unchanged.push(s);
    }
    let fresh = g.endpoints.filter((e) => !placed.has(endpointKey(e)));
    // Fill the slices being written anyway first, then the fullest unchanged ones with room.
    for (const s of touched) {
      const room = maxPerSlice - (s.endpoints?.length ?? 0);
      if (room > 0 && fresh.length > 0) {
        s.endpoints = [...(s.endpoints ?? []), ...fresh.slice(0, room)];
        fresh = fresh.slice(room);
      }
    }
    for (const s of [...unchanged].sort((a, b) => (b.endpoints?.length ?? 0) - (a.endpoints?.length ?? 0))) {
      const room = maxPerSlice - (s.endpoints?.length ?? 0);
      if (room <= 0 || fresh.length === 0) continue;
      touched.push({ ...withMeta(s, svc), endpoints: [...(s.endpoints ?? []), ...fresh.slice(0, room)] });
      fresh = fresh.slice(room);
    }
    for (let i = 0; i < fresh.length; i += maxPerSlice) plan.create.push(newSlice(svc, addressType, g, fresh.slice(i, i + maxPerSlice)));
    plan.update.push(...touched);
  }

  // Nothing desired and nothing kept: one empty placeholder slice remains (reusing a stale one).
  const keeps = existing.length - stale.length - plan.delete.length + plan.create.length;
  if (keeps === 0) {
    const reusable = stale.find((s) => s.addressType === addressType && (s.endpoints ?? []).length === 0 && (s.ports ?? []).length === 0);
    if (reusable) {
      if (!metaCurrent(reusable, svc)) plan.update.push(withMeta(reusable, svc));
      stale.splice(stale.indexOf(reusable), 1);
    } else {
      plan.create.push(newSlice(svc, addressType, { ports: [] }, []));
    }
  }
  plan.delete.push(...stale);
  return plan;
}
