/**
 * The shallow check that request bodies of built-in kinds got before schema-driven decoding
 * (src/apiserver/server/fieldcheck.ts as main had it, kept here only as the baseline of
 * bench/apiserver/decode): top-level and ObjectMeta unknown fields. Not shipped.
 */
import { StatusError } from "../../src/apimachinery/errors.js";
import type { KubeObject } from "../../src/apimachinery/types.js";
import type { FieldValidationMode } from "../../src/apiserver/rest/options.js";
import { objectMetaFieldNames } from "../../src/apiserver/crd/prune.js";


const specStatus = ["spec", "status"];
const topLevel: Record<string, string[]> = {
  "/ConfigMap": ["data", "binaryData", "immutable"],
  "/Secret": ["data", "stringData", "type", "immutable"],
  "/ServiceAccount": ["secrets", "imagePullSecrets", "automountServiceAccountToken"],
  "/Endpoints": ["subsets"],
  "/Event": [
    "involvedObject",
    "reason",
    "message",
    "source",
    "firstTimestamp",
    "lastTimestamp",
    "count",
    "type",
    "eventTime",
    "series",
    "action",
    "related",
    "reportingComponent",
    "reportingInstance",
  ],
  "events.k8s.io/Event": [
    "eventTime",
    "series",
    "reportingController",
    "reportingInstance",
    "action",
    "reason",
    "regarding",
    "related",
    "note",
    "type",
    "deprecatedSource",
    "deprecatedFirstTimestamp",
    "deprecatedLastTimestamp",
    "deprecatedCount",
  ],
  "/Pod": specStatus,
  "/Service": specStatus,
  "/Namespace": specStatus,
  "/Node": specStatus,
  "apps/Deployment": specStatus,
  "apps/ReplicaSet": specStatus,
  "coordination.k8s.io/Lease": ["spec"],
  "autoscaling/Scale": specStatus,
};

/** Unknown field paths of `obj` for the kind, removing them from the object. */
export function pruneUnknownFields(obj: KubeObject, group: string, kind: string): string[] {
  const allowed = topLevel[`${group}/${kind}`];
  const unknown: string[] = [];
  if (allowed) {
    for (const k of Object.keys(obj)) {
      if (k === "apiVersion" || k === "kind" || k === "metadata" || allowed.includes(k)) continue;
      unknown.push(k);
      delete obj[k];
    }
  }
  const meta = obj.metadata as Record<string, unknown> | undefined;
  if (meta && typeof meta === "object") {
    for (const k of Object.keys(meta)) {
      if (objectMetaFieldNames.has(k)) continue;
      unknown.push(`metadata.${k}`);
      delete meta[k];
    }
  }
  return unknown;
}

/** Applies the fieldValidation mode: throws for Strict, returns warnings for Warn. */
export function checkUnknownFields(obj: KubeObject, group: string, kind: string, mode: FieldValidationMode): string[] {
  const unknown = pruneUnknownFields(obj, group, kind);
  if (unknown.length === 0 || mode === "Ignore") return [];
  const texts = unknown.map((f) => `unknown field ${JSON.stringify(f)}`);
  if (mode === "Strict") throw StatusError.badRequest(`strict decoding error: ${texts.join(", ")}`);
  return texts;
}
