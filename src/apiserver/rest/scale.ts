/**
 * The scale subresource: an object seen as autoscaling/v1 Scale (spec.replicas,
 * status.replicas, status.selector as a selector string), and a Scale written back as a change
 * of the object's replicas path.
 */
import type { LabelSelector } from "../../apimachinery/api/meta/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import { labelSelectorAsSelector, selectorFromSet } from "../../apimachinery/labels.js";
import type { ScaleSubresource } from "../registry/strategy.js";

function pathParts(path: string): string[] {
  return path.replace(/^\./, "").split(".").filter((p) => p !== "");
}

export function getPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const p of pathParts(path)) {
    if (typeof cur !== "object" || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = pathParts(path);
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    const next = cur[p];
    if (typeof next !== "object" || next === null) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]] = value;
}

/** metav1.LabelSelector → the selector string (LabelSelectorAsSelector(...).String()): requirements sorted by key. */
export function labelSelectorString(sel: LabelSelector | undefined): string {
  if (!sel) return "";
  try {
    return labelSelectorAsSelector(sel).toString();
  } catch {
    // An invalid selector (rejected by validation on write): format it as given.
  }
  const reqs: { key: string; text: string }[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push({ key: k, text: `${k}=${v}` });
  for (const e of sel.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort();
    switch (e.operator) {
      case "In":
        reqs.push({ key: e.key, text: `${e.key} in (${values.join(",")})` });
        break;
      case "NotIn":
        reqs.push({ key: e.key, text: `${e.key} notin (${values.join(",")})` });
        break;
      case "Exists":
        reqs.push({ key: e.key, text: e.key });
        break;
      case "DoesNotExist":
        reqs.push({ key: e.key, text: `!${e.key}` });
        break;
    }
  }
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return reqs.map((r) => r.text).join(",");
}

export function toScale(obj: KubeObject, sub: ScaleSubresource): KubeObject {
  const meta = obj.metadata ?? {};
  let selector = "";
  if (sub.labelSelectorPath) {
    const v = getPath(obj, sub.labelSelectorPath);
    if (typeof v === "string") selector = v;
    else if (typeof v === "object" && v !== null && sub.selectorIsMap) selector = selectorFromSet(v as Record<string, string>).toString();
    else if (typeof v === "object" && v !== null) selector = labelSelectorString(v as LabelSelector);
  }
  const specReplicas = getPath(obj, sub.specReplicasPath);
  const statusReplicas = getPath(obj, sub.statusReplicasPath);
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: typeof specReplicas === "number" ? specReplicas : 0 },
    status: { replicas: typeof statusReplicas === "number" ? statusReplicas : 0, ...(selector ? { selector } : {}) },
  };
}

/** Validates a Scale body (ValidateScale). */
export function validateScale(scale: KubeObject): FieldError[] {
  const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas;
  if (replicas === undefined) return [];
  if (typeof replicas !== "number" || !Number.isInteger(replicas)) return [fieldErrors.invalid("spec.replicas", replicas, "must be an integer")];
  if (replicas < 0) return [fieldErrors.invalid("spec.replicas", replicas, "must be greater than or equal to 0")];
  return [];
}

/** The object with the Scale's replicas applied (and its resourceVersion as the precondition). */
export function applyScale(obj: KubeObject, scale: KubeObject, sub: ScaleSubresource): KubeObject {
  const out = structuredClone(obj) as KubeObject;
  const replicas = (scale.spec as { replicas?: number } | undefined)?.replicas ?? 0;
  setPath(out as Record<string, unknown>, sub.specReplicasPath, replicas);
  const rv = scale.metadata?.resourceVersion;
  out.metadata = { ...(out.metadata ?? {}) };
  if (rv) out.metadata.resourceVersion = rv;
  else delete out.metadata.resourceVersion;
  return out;
}
