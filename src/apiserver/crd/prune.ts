/**
 * Pruning and defaulting of custom resources, as apiextensions-apiserver does on every write
 * and read (schema/pruning and schema/defaulting):
 *
 * - prune: fields not specified by the structural schema are removed, except below
 *   `x-kubernetes-preserve-unknown-fields: true` (known fields there are still pruned
 *   recursively), and except apiVersion, kind and metadata at the resource root and in
 *   `x-kubernetes-embedded-resource` objects, whose metadata is cut to ObjectMeta's fields.
 *   The removed paths ("spec.foo", "spec.list[0].bar") are returned sorted, for
 *   fieldValidation (Strict → 400, Warn → warnings).
 * - pruneNonNullableNulls: a null for a field that is not nullable and has no default is
 *   dropped (as if the field were absent).
 * - applyDefaults: a missing field (or a non-nullable null) with a `default` gets a copy of
 *   it, top-down, so defaults inside a defaulted object apply too.
 *
 * All three mutate the value in place.
 */
import {
  additionalPropertiesSchema,
  embeddedResource,
  isObject,
  itemsOf,
  jsonCopy,
  preserveUnknown,
  propertiesOf,
  type JSONObject,
  type Schema,
} from "./schema.js";

const metaFields = new Set(["apiVersion", "kind", "metadata"]);

/** ObjectMeta's JSON fields: everything else in an embedded resource's metadata is unknown. */
export const objectMetaFieldNames: ReadonlySet<string> = new Set([
  "name",
  "generateName",
  "namespace",
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
]);

class Pruner {
  readonly pruned: string[] = [];

  private record(path: string, key: string): void {
    this.pruned.push(path === "" ? key : `${path}.${key}`);
  }

  private coerceMetadata(x: JSONObject, path: string): void {
    const meta = x.metadata;
    if (!isObject(meta)) return;
    const metaPath = path === "" ? "metadata" : `${path}.metadata`;
    for (const k of Object.keys(meta)) {
      if (!objectMetaFieldNames.has(k)) {
        this.record(metaPath, k);
        delete meta[k];
      }
    }
  }

  prune(x: unknown, s: Schema | undefined, path: string, root: boolean): void {
    if (s && preserveUnknown(s)) {
      this.skip(x, s, path, root);
      return;
    }
    if (isObject(x)) {
      const embedded = root || embeddedResource(s);
      if (embedded && !root) this.coerceMetadata(x, path);
      const props = propertiesOf(s);
      const ap = s?.additionalProperties;
      for (const k of Object.keys(x)) {
        if (embedded && metaFields.has(k)) continue;
        const childPath = path === "" ? k : `${path}.${k}`;
        if (s && Object.prototype.hasOwnProperty.call(props, k)) this.prune(x[k], props[k], childPath, false);
        else if (s && ap !== undefined && ap !== null) this.prune(x[k], additionalPropertiesSchema(s), childPath, false);
        else {
          this.record(path, k);
          delete x[k];
        }
      }
    } else if (Array.isArray(x)) {
      const items = s ? itemsOf(s) : undefined;
      x.forEach((v, i) => this.prune(v, items, `${path}[${i}]`, false));
    }
  }

  private skip(x: unknown, s: Schema, path: string, root: boolean): void {
    if (isObject(x)) {
      const embedded = root || embeddedResource(s);
      if (embedded && !root) this.coerceMetadata(x, path);
      const props = propertiesOf(s);
      const ap = additionalPropertiesSchema(s);
      for (const k of Object.keys(x)) {
        if (embedded && metaFields.has(k)) continue;
        const childPath = path === "" ? k : `${path}.${k}`;
        if (Object.prototype.hasOwnProperty.call(props, k)) this.prune(x[k], props[k], childPath, false);
        else if (ap) this.prune(x[k], ap, childPath, false);
      }
    } else if (Array.isArray(x)) {
      const items = itemsOf(s);
      if (items) x.forEach((v, i) => this.skip(v, items, `${path}[${i}]`, false));
    }
  }
}

/**
 * Removes the fields `schema` does not specify from `obj` (a whole resource when `isResourceRoot`);
 * returns the removed paths, sorted.
 */
export function prune(obj: unknown, schema: Schema | undefined, isResourceRoot: boolean): string[] {
  const p = new Pruner();
  p.prune(obj, schema, "", isResourceRoot);
  return p.pruned.sort();
}

function fieldSchema(s: Schema | undefined, k: string): Schema | undefined {
  if (!s) return undefined;
  const props = propertiesOf(s);
  if (Object.prototype.hasOwnProperty.call(props, k)) return props[k];
  return additionalPropertiesSchema(s);
}

const nonNullableNull = (x: unknown, s: Schema | undefined): boolean => x === null && s !== undefined && s.nullable !== true;

/** Drops nulls of non-nullable fields that have no default. */
export function pruneNonNullableNulls(x: unknown, s: Schema | undefined): void {
  if (isObject(x)) {
    for (const k of Object.keys(x)) {
      const sub = fieldSchema(s, k);
      if (nonNullableNull(x[k], sub) && sub!.default === undefined) delete x[k];
      else pruneNonNullableNulls(x[k], sub);
    }
  } else if (Array.isArray(x)) {
    const items = s ? itemsOf(s) : undefined;
    for (const v of x) pruneNonNullableNulls(v, items);
  }
}

/** Fills in schema defaults (structural defaulting's Default). Returns whether anything changed. */
export function applyDefaults(x: unknown, s: Schema | undefined): boolean {
  if (!s) return false;
  let changed = false;
  if (isObject(x)) {
    const props = propertiesOf(s);
    for (const [k, prop] of Object.entries(props)) {
      if (prop.default === undefined) continue;
      if (!Object.prototype.hasOwnProperty.call(x, k) || nonNullableNull(x[k], prop)) {
        x[k] = jsonCopy(prop.default);
        changed = true;
      }
    }
    const ap = additionalPropertiesSchema(s);
    for (const k of Object.keys(x)) {
      if (Object.prototype.hasOwnProperty.call(props, k)) {
        changed = applyDefaults(x[k], props[k]) || changed;
      } else if (ap) {
        if (nonNullableNull(x[k], ap) && ap.default !== undefined) {
          x[k] = jsonCopy(ap.default);
          changed = true;
        }
        changed = applyDefaults(x[k], ap) || changed;
      }
    }
  } else if (Array.isArray(x)) {
    const items = itemsOf(s);
    if (!items) return false;
    for (let i = 0; i < x.length; i++) {
      if (nonNullableNull(x[i], items) && items.default !== undefined) {
        x[i] = jsonCopy(items.default);
        changed = true;
      }
      changed = applyDefaults(x[i], items) || changed;
    }
  }
  return changed;
}

/** Whether a schema specifies any default (reads need defaulting only then). */
export function schemaHasDefaults(s: Schema | undefined): boolean {
  if (!s) return false;
  if (s.default !== undefined) return true;
  for (const p of Object.values(propertiesOf(s))) if (schemaHasDefaults(p)) return true;
  return schemaHasDefaults(itemsOf(s)) || schemaHasDefaults(additionalPropertiesSchema(s));
}
