/**
 * The structural checks on a custom resource that come after schema validation
 * (apiextensions-apiserver schema/objectmeta and schema/listtype):
 *
 * - embedded resources (`x-kubernetes-embedded-resource: true`) need apiVersion and kind
 *   strings and valid ObjectMeta (names checked as path segments);
 * - `x-kubernetes-list-type: set` lists hold unique items and `map` lists unique keys
 *   (`spec.ports[1]: Duplicate value: map[string]interface {}{"name":"a"}`).
 */
import type { ObjectMeta } from "../../apimachinery/api/meta/v1.js";
import { FieldError, fieldErrors } from "../../apimachinery/fielderrors.js";
import { parseGroupVersion } from "../../apimachinery/gvk.js";
import { isDNS1035Label, nameIsPathSegment, type ValidateNameFunc } from "../../apimachinery/validation.js";
import { validateObjectMeta, validateObjectMetaUpdate } from "../registry/meta.js";
import { additionalPropertiesSchema, embeddedResource, goSyntax, isObject, itemsOf, jsonEqual, propertiesOf, type JSONObject, type Schema } from "./schema.js";

/** A field error whose value prints in Go syntax (`%#v`), as field.Duplicate does for maps. */
export class GoValueFieldError extends FieldError {
  override body(): string {
    const head = this.type === "FieldValueDuplicate" ? "Duplicate value" : "Invalid value";
    const s = `${head}: ${goSyntax(this.badValue)}`;
    return this.detail === "" ? s : `${s}: ${this.detail}`;
  }
}

function duplicate(field: string, value: unknown): FieldError {
  if (isObject(value) || Array.isArray(value)) return new GoValueFieldError("FieldValueDuplicate", field, value, "");
  return fieldErrors.duplicate(field, value);
}

/** The core API's finalizer rule that generic (custom resource) metadata validation does not have. */
const kubeFinalizerRule = "name is neither a standard finalizer name nor is it fully qualified";

/** ValidateObjectMeta as apimachinery's generic validation (no core-only finalizer rule). */
export function validateGenericObjectMeta(meta: ObjectMeta | undefined, namespaced: boolean, nameFn: ValidateNameFunc, field = "metadata"): FieldError[] {
  return validateObjectMeta(meta, namespaced, nameFn, field).filter((e) => e.detail !== kubeFinalizerRule);
}

/** ValidateObjectMetaUpdate as apimachinery's generic validation (no core-only finalizer rule). */
export function validateGenericObjectMetaUpdate(meta: ObjectMeta | undefined, old: ObjectMeta | undefined): FieldError[] {
  return validateObjectMetaUpdate(meta, old).filter((e) => e.detail !== kubeFinalizerRule);
}

function validateEmbedded(path: string, x: JSONObject): FieldError[] {
  const errs: FieldError[] = [];
  const child = (k: string) => (path === "" ? k : `${path}.${k}`);
  if (!("apiVersion" in x)) errs.push(fieldErrors.required(child("apiVersion")));
  if (!("kind" in x)) errs.push(fieldErrors.required(child("kind")));
  for (const [k, v] of Object.entries(x)) {
    if (k === "apiVersion") {
      if (typeof v !== "string") errs.push(fieldErrors.invalid(child(k), v, "must be a string"));
      else if (v === "") errs.push(fieldErrors.invalid(child(k), v, "must not be empty"));
      else {
        try {
          parseGroupVersion(v);
        } catch (err) {
          errs.push(fieldErrors.invalid(child(k), v, err instanceof Error ? err.message : String(err)));
        }
      }
    } else if (k === "kind") {
      if (typeof v !== "string") errs.push(fieldErrors.invalid(child(k), v, "must be a string"));
      else if (v === "") errs.push(fieldErrors.invalid(child(k), v, "must not be empty"));
      else {
        const msgs = isDNS1035Label(v.toLowerCase());
        if (msgs.length) errs.push(fieldErrors.invalid(child(k), v, `may have mixed case, but should otherwise match: ${msgs.join(",")}`));
      }
    } else if (k === "metadata") {
      if (!isObject(v)) {
        errs.push(fieldErrors.invalid(child(k), v, "must be an object"));
        continue;
      }
      const meta = { ...(v as ObjectMeta) };
      if (!meta.name) meta.name = "fakename";
      errs.push(...validateGenericObjectMeta(meta, !!meta.namespace, nameIsPathSegment, child("metadata")));
    }
  }
  return errs;
}

function walkEmbedded(path: string, x: unknown, s: Schema | undefined, out: FieldError[]): void {
  if (!s) return;
  if (isObject(x)) {
    if (embeddedResource(s)) out.push(...validateEmbedded(path, x));
    const props = propertiesOf(s);
    const ap = additionalPropertiesSchema(s);
    for (const [k, v] of Object.entries(x)) {
      if (Object.prototype.hasOwnProperty.call(props, k)) walkEmbedded(path === "" ? k : `${path}.${k}`, v, props[k], out);
      else if (ap) walkEmbedded(`${path}[${k}]`, v, ap, out);
    }
  } else if (Array.isArray(x)) {
    const items = itemsOf(s);
    x.forEach((v, i) => walkEmbedded(`${path}[${i}]`, v, items, out));
  }
}

/** Embedded resources below the root (objectmeta.Validate with isResourceRoot=false). */
export function validateEmbeddedResources(obj: unknown, s: Schema | undefined): FieldError[] {
  const out: FieldError[] = [];
  if (!s || !isObject(obj)) return out;
  const props = propertiesOf(s);
  const ap = additionalPropertiesSchema(s);
  for (const [k, v] of Object.entries(obj)) {
    if (Object.prototype.hasOwnProperty.call(props, k)) walkEmbedded(k, v, props[k], out);
    else if (ap) walkEmbedded(`[${k}]`, v, ap, out);
  }
  return out;
}

/** The indices of the second appearance of every repeated value. */
function nonUnique(values: unknown[]): number[] {
  const out: number[] = [];
  const counts: { v: unknown; n: number }[] = [];
  values.forEach((v, i) => {
    const c = counts.find((e) => jsonEqual(e.v, v));
    if (!c) counts.push({ v, n: 1 });
    else if (c.n++ === 1) out.push(i);
  });
  return out;
}

const unspecified = Symbol("unspecified");

function validateListMap(path: string, s: Schema, list: unknown[]): FieldError[] {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isObject(x)) return [fieldErrors.invalid(`${path}[${i}]`, x, "must be an object for an array of list-type map")];
  }
  if (list.length <= 1) return [];
  const keyFields = (s["x-kubernetes-list-map-keys"] ?? []).filter((k): k is string => typeof k === "string");
  if (keyFields.length === 1) {
    const kf = keyFields[0];
    const keys: unknown[] = list.map((x) => (isObject(x) && Object.prototype.hasOwnProperty.call(x, kf) ? x[kf] : unspecified));
    return nonUnique(keys).map((i) => duplicate(`${path}[${i}]`, keys[i] === unspecified ? {} : { [kf]: keys[i] }));
  }
  const keys = list.map((x) => {
    const key: JSONObject = {};
    if (isObject(x)) for (const kf of keyFields) if (Object.prototype.hasOwnProperty.call(x, kf)) key[kf] = x[kf];
    return key;
  });
  return nonUnique(keys).map((i) => duplicate(`${path}[${i}]`, keys[i]));
}

function walkLists(path: string, s: Schema | undefined, x: unknown, out: FieldError[]): void {
  if (!s) return;
  if (Array.isArray(x)) {
    const listType = s["x-kubernetes-list-type"];
    if (listType === "set") for (const i of nonUnique(x)) out.push(duplicate(`${path}[${i}]`, x[i]));
    else if (listType === "map") out.push(...validateListMap(path, s, x));
    const items = itemsOf(s);
    if (items) x.forEach((v, i) => walkLists(`${path}[${i}]`, items, v, out));
  } else if (isObject(x)) {
    const ap = additionalPropertiesSchema(s);
    if (ap) for (const [k, v] of Object.entries(x)) walkLists(`${path}[${k}]`, ap, v, out);
    const props = propertiesOf(s);
    for (const [k, v] of Object.entries(x)) {
      if (Object.prototype.hasOwnProperty.call(props, k)) walkLists(path === "" ? k : `${path}.${k}`, props[k], v, out);
    }
  }
}

/** ValidateListSetsAndMaps: duplicate items of set lists and duplicate keys of map lists. */
export function validateListSetsAndMaps(obj: unknown, s: Schema | undefined): FieldError[] {
  const out: FieldError[] = [];
  walkLists("", s, obj, out);
  return out;
}
