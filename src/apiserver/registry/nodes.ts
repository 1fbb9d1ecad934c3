/**
 * core/v1 Nodes (cluster-scoped). Defaults: status.allocatable = status.capacity when absent.
 * A node keeps the status it is created with (the kubelet registers with one); main-resource
 * updates keep the old status and status updates keep the old spec. Validation: taints (key,
 * value, effect, unique per key and effect; reported under `metadata.taints` as upstream does),
 * podCIDRs (valid CIDRs, at most one per family, only set once), providerID only set once,
 * capacity/allocatable quantities, no duplicate addresses on update. Selectable field:
 * spec.unschedulable.
 */
import type { Node, Taint } from "../../apimachinery/api/core/v1.js";
import { FieldError, fieldErrors } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isValidLabelValue, nameIsDNSSubdomain, parseIPSloppy } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { validateLabelName } from "./meta.js";
import { child, index, key } from "./path.js";
import { quantityNanos } from "../../apimachinery/quantity.js";
import type { ResourceStrategy } from "./strategy.js";

const asNode = (o: KubeObject) => o as unknown as Node;

export function defaultNode(obj: KubeObject): void {
  const n = asNode(obj);
  if (n.status?.capacity && !n.status.allocatable) n.status.allocatable = { ...n.status.capacity };
}

/** IsValidCIDR's message for a malformed CIDR. */
export function validateCIDR(value: string, field: string): FieldError[] {
  const m = /^(.+)\/([0-9]{1,3})$/.exec(value);
  const ip = m ? parseIPSloppy(m[1]) : undefined;
  const v4 = ip !== undefined && m !== null && m[1].includes(".");
  if (!m || !ip || Number(m[2]) > (v4 ? 32 : 128)) {
    return [fieldErrors.invalid(field, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")];
  }
  return [];
}

function validateTaints(taints: Taint[] | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const unique = new Map<string, Set<string>>();
  (taints ?? []).forEach((t, i) => {
    const p = index(field, i);
    errs.push(...validateLabelName(t.key, child(p, "key")));
    const msgs = isValidLabelValue(t.value ?? "");
    if (msgs.length > 0) errs.push(fieldErrors.invalid(child(p, "value"), t.value ?? "", msgs.join(";")));
    if (!t.effect) errs.push(fieldErrors.required(child(p, "effect"), ""));
    else if (!["NoSchedule", "PreferNoSchedule", "NoExecute"].includes(t.effect)) {
      errs.push(fieldErrors.notSupported(child(p, "effect"), t.effect, ["NoSchedule", "PreferNoSchedule", "NoExecute"]));
    }
    const keys = unique.get(t.effect) ?? new Set<string>();
    if (keys.has(t.key)) {
      errs.push(new FieldError("FieldValueDuplicate", p, t, "taints must be unique by key and effect pair"));
      return;
    }
    keys.add(t.key);
    unique.set(t.effect, keys);
  });
  return errs;
}

function validateNodeResources(node: Node): FieldError[] {
  const errs: FieldError[] = [];
  for (const kind of ["capacity", "allocatable"] as const) {
    for (const [name, q] of Object.entries(node.status?.[kind] ?? {})) {
      const v = quantityNanos(String(q));
      if (v === undefined || v < 0n) errs.push(fieldErrors.invalid(key(child("status", kind), name), String(q), "must be greater than or equal to 0"));
    }
  }
  return errs;
}

export function validateNode(obj: KubeObject): FieldError[] {
  const node = asNode(obj);
  const errs: FieldError[] = [];
  errs.push(...validateTaints(node.spec?.taints, "metadata.taints"));
  errs.push(...validateNodeResources(node));
  const cidrs = node.spec?.podCIDRs ?? [];
  cidrs.forEach((c, i) => errs.push(...validateCIDR(c, index("spec.podCIDRs", i))));
  if (cidrs.length > 1) {
    const fams = cidrs.map((c) => (c.includes(".") ? 4 : 6));
    if (cidrs.length > 2 || fams[0] === fams[1]) errs.push(fieldErrors.invalid("spec.podCIDRs", cidrs, "may specify no more than one CIDR for each IP family"));
    const seen = new Set<string>();
    cidrs.forEach((c, i) => {
      if (seen.has(c)) errs.push(fieldErrors.duplicate(index("spec.podCIDRs", i), c));
      seen.add(c);
    });
  }
  return errs;
}

export function validateNodeUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const n = asNode(obj);
  const o = asNode(old);
  const errs: FieldError[] = [];
  const seen: unknown[] = [];
  (n.status?.addresses ?? []).forEach((a, i) => {
    if (seen.some((s) => semanticEqual(s, a))) errs.push(fieldErrors.duplicate(index("status.addresses", i), a));
    seen.push(a);
  });
  const oc = o.spec?.podCIDRs ?? [];
  const nc = n.spec?.podCIDRs ?? [];
  const msg = 'node updates may not change podCIDR except from "" to valid';
  if (oc.length > 0) {
    if (oc.length !== nc.length) errs.push(fieldErrors.forbidden("spec.podCIDRs", msg));
    else oc.forEach((c, i) => c !== nc[i] && errs.push(fieldErrors.forbidden("spec.podCIDRs", msg)));
  }
  if (o.spec?.providerID && o.spec.providerID !== n.spec?.providerID) {
    errs.push(fieldErrors.forbidden("spec.providerID", 'node updates may not change providerID except from "" to valid'));
  }
  return errs;
}

export const nodeStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "",
    version: "v1",
    kind: "Node",
    resource: "nodes",
    singular: "node",
    listKind: "NodeList",
    shortNames: ["no"],
    categories: [],
    namespaced: false,
  },
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  keepStatusOnCreate: true,
  defaults: defaultNode,
  validateSpec: validateNode,
  validateUpdate: validateNodeUpdate,
  validateStatus: (obj, old) => [...validateNode(obj), ...validateNodeUpdate(obj, old)],
  fields: (obj) => ({ "spec.unschedulable": String(asNode(obj).spec?.unschedulable ?? false) }),
});
