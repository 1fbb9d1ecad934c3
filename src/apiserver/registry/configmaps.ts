/**
 * core/v1 ConfigMaps: keys of data and binaryData must be config keys and not repeated across
 * the two maps; the total size is at most 1 MiB; once `immutable: true`, neither the flag nor the
 * data may change. No generation, no status.
 */
import type { ConfigMap } from "../../apimachinery/api/core/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isConfigMapKey, nameIsDNSSubdomain, utf8Length } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { key } from "./path.js";
import type { ResourceStrategy } from "./strategy.js";

/** core.MaxSecretSize: the size limit of ConfigMap and Secret payloads (1 MiB). */
export const maxSecretSize = 1024 * 1024;

const asConfigMap = (o: KubeObject) => o as unknown as ConfigMap;

/** Decoded size of a base64 string (binaryData and Secret data travel base64-encoded). */
export function base64DecodedLength(s: string): number {
  return Buffer.from(s, "base64").length;
}

export function validateConfigMapData(obj: KubeObject): FieldError[] {
  const cm = asConfigMap(obj);
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(cm.data ?? {})) {
    for (const msg of isConfigMapKey(k)) errs.push(fieldErrors.invalid(key("data", k), k, msg));
    if (cm.binaryData && k in cm.binaryData) errs.push(fieldErrors.invalid(key("data", k), k, "duplicate of key present in binaryData"));
    total += utf8Length(String(v));
  }
  for (const [k, v] of Object.entries(cm.binaryData ?? {})) {
    for (const msg of isConfigMapKey(k)) errs.push(fieldErrors.invalid(key("binaryData", k), k, msg));
    total += base64DecodedLength(String(v));
  }
  if (total > maxSecretSize) errs.push(fieldErrors.tooLong("", "", maxSecretSize));
  return errs;
}

export function validateConfigMapUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const n = asConfigMap(obj);
  const o = asConfigMap(old);
  const errs: FieldError[] = [];
  if (o.immutable) {
    const msg = "field is immutable when `immutable` is set";
    if (!n.immutable) errs.push(fieldErrors.forbidden("immutable", msg));
    if (!semanticEqual(n.data, o.data)) errs.push(fieldErrors.forbidden("data", msg));
    if (!semanticEqual(n.binaryData, o.binaryData)) errs.push(fieldErrors.forbidden("binaryData", msg));
  }
  return errs;
}

export const configMapStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "",
    version: "v1",
    kind: "ConfigMap",
    resource: "configmaps",
    singular: "configmap",
    listKind: "ConfigMapList",
    shortNames: ["cm"],
    categories: [],
    namespaced: true,
  },
  nameFn: nameIsDNSSubdomain,
  validateSpec: validateConfigMapData,
  updateChecksFirst: true,
  validateUpdate: validateConfigMapUpdate,
});
