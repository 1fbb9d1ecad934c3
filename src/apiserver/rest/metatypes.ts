/**
 * Type safety of the fields every kind has — TypeMeta (apiVersion, kind) and ObjectMeta — as
 * decoding a body into the Go structs gives it upstream: a wrong JSON type is refused with Go's
 * encoding/json message ("json: cannot unmarshal string into Go struct field
 * ObjectMeta.metadata.finalizers of type []string"), and `null` means the Go zero value (an
 * absent field, "" in a list of strings or a map of strings, an empty struct in a list of
 * structs), which is what the object is normalised to.
 *
 * The rest of an object (spec, status, ...) is checked by each kind's schema, not here.
 */
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";

/** A JSON value of the wrong type for its Go field (encoding/json's UnmarshalTypeError, or a Time parse error). */
export class FieldTypeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FieldTypeError";
  }
}

function jsonTypeOf(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (v === null) return "null";
  switch (typeof v) {
    case "object":
      return "object";
    case "boolean":
      return "bool";
    case "number":
      return "number";
    default:
      return typeof v;
  }
}

/** encoding/json's UnmarshalTypeError for `value` decoded into field `path` of Go struct `struct`. */
export function mismatch(struct: string, path: string, value: unknown, goType: string): FieldTypeError {
  const what = typeof value === "number" && goType === "int64" ? `number ${value}` : jsonTypeOf(value);
  return new FieldTypeError(`json: cannot unmarshal ${what} into Go struct field ${struct}.${path} of type ${goType}`);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export type GoScalar = "string" | "int64" | "bool" | "time";

// RFC 3339 as Go's time.Parse(time.RFC3339, s) accepts it (fractional seconds allowed).
const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Checks a scalar field; returns the normalised value (undefined: drop the field). */
function scalar(struct: string, path: string, v: unknown, t: GoScalar, goType: string): unknown {
  if (v === null || v === undefined) return undefined;
  switch (t) {
    case "string":
      if (typeof v !== "string") throw mismatch(struct, path, v, goType);
      return v;
    case "bool":
      if (typeof v !== "boolean") throw mismatch(struct, path, v, goType);
      return v;
    case "int64":
      if (typeof v !== "number" || !Number.isSafeInteger(v)) throw mismatch(struct, path, v, goType);
      return v;
    case "time":
      // metav1.Time.UnmarshalJSON: a JSON string in RFC 3339.
      if (typeof v !== "string") throw new FieldTypeError(`json: cannot unmarshal ${jsonTypeOf(v)} into Go value of type string`);
      if (!rfc3339.test(v)) throw new FieldTypeError(`parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(v)} as "2006"`);
      return v;
  }
}

/** Scalar fields of a Go struct: name → [kind, Go type name]. */
export type GoFields = Record<string, [GoScalar, string]>;

/** Checks the scalar fields of a struct in place (nulls removed). */
export function checkScalarFields(struct: string, base: string, obj: Record<string, unknown>, fields: GoFields): void {
  for (const [name, [t, goType]] of Object.entries(fields)) {
    if (!Object.prototype.hasOwnProperty.call(obj, name)) continue;
    const v = scalar(struct, `${base}.${name}`, obj[name], t, goType);
    if (v === undefined) delete obj[name];
    else obj[name] = v;
  }
}

/** `owner[key]` as a map[string]string (null → absent, null values → ""). */
export function checkStringMap(struct: string, path: string, owner: Record<string, unknown>, key: string): void {
  const v = owner[key];
  if (v === undefined) return;
  if (v === null) {
    delete owner[key];
    return;
  }
  if (!isPlainObject(v)) throw mismatch(struct, path, v, "map[string]string");
  for (const [k, x] of Object.entries(v)) {
    if (x === null) v[k] = "";
    else if (typeof x !== "string") throw mismatch(struct, path, x, "string");
  }
}

/** `owner[key]` as a list (null → absent), each element checked by `item` (which may replace it). */
export function checkList(struct: string, path: string, owner: Record<string, unknown>, key: string, goType: string, item: (x: unknown) => unknown): void {
  const v = owner[key];
  if (v === undefined) return;
  if (v === null) {
    delete owner[key];
    return;
  }
  if (!Array.isArray(v)) throw mismatch(struct, path, v, goType);
  for (let i = 0; i < v.length; i++) v[i] = item(v[i]);
}

/** `owner[key]` as a []string (null elements → ""). */
export function checkStringList(struct: string, path: string, owner: Record<string, unknown>, key: string): void {
  checkList(struct, path, owner, key, "[]string", (x) => {
    if (x === null) return "";
    if (typeof x !== "string") throw mismatch(struct, path, x, "string");
    return x;
  });
}

/**
 * A checker of one struct value (a list element or a field): null → {} (Go's zero struct), a
 * non-object is refused, an object is handed to `fields` to check its own fields in place.
 */
export function structValue(parent: string, path: string, goType: string, fields: (o: Record<string, unknown>) => void): (x: unknown) => unknown {
  return (x: unknown): unknown => {
    if (x === null) return {};
    if (!isPlainObject(x)) throw mismatch(parent, path, x, goType);
    fields(x);
    return x;
  };
}

/** `owner[key]` as a struct (null → absent). */
export function checkStruct(parent: string, path: string, owner: Record<string, unknown>, key: string, goType: string, fields: (o: Record<string, unknown>) => void): void {
  const v = owner[key];
  if (v === undefined) return;
  if (v === null) {
    delete owner[key];
    return;
  }
  structValue(parent, path, goType, fields)(v);
}

const objectMetaScalars: GoFields = {
  name: ["string", "string"],
  generateName: ["string", "string"],
  namespace: ["string", "string"],
  selfLink: ["string", "string"],
  uid: ["string", "types.UID"],
  resourceVersion: ["string", "string"],
  generation: ["int64", "int64"],
  creationTimestamp: ["time", "v1.Time"],
  deletionTimestamp: ["time", "v1.Time"],
  deletionGracePeriodSeconds: ["int64", "int64"],
};

const ownerReferenceFields: GoFields = {
  apiVersion: ["string", "string"],
  kind: ["string", "string"],
  name: ["string", "string"],
  uid: ["string", "types.UID"],
  controller: ["bool", "bool"],
  blockOwnerDeletion: ["bool", "bool"],
};

const managedFieldsFields: GoFields = {
  manager: ["string", "string"],
  operation: ["string", "v1.ManagedFieldsOperationType"],
  apiVersion: ["string", "string"],
  time: ["time", "v1.Time"],
  fieldsType: ["string", "string"],
  subresource: ["string", "string"],
};

/**
 * Checks and normalises apiVersion, kind and metadata of a decoded object in place; throws
 * FieldTypeError naming the first offending field. `kind` is the Go struct's name (the served
 * kind), used in the message for a `metadata` that is not an object.
 */
export function checkObjectMetaTypes(obj: Record<string, unknown>, kind: string): void {
  for (const f of ["apiVersion", "kind"]) {
    const v = obj[f];
    if (v === null) delete obj[f];
    else if (v !== undefined && typeof v !== "string") throw mismatch("", f, v, "string");
  }
  checkStruct(kind, "metadata", obj, "metadata", "v1.ObjectMeta", (m) => {
    checkScalarFields("ObjectMeta", "metadata", m, objectMetaScalars);
    checkStringMap("ObjectMeta", "metadata.labels", m, "labels");
    checkStringMap("ObjectMeta", "metadata.annotations", m, "annotations");
    checkStringList("ObjectMeta", "metadata.finalizers", m, "finalizers");
    const refs = "metadata.ownerReferences";
    checkList("ObjectMeta", refs, m, "ownerReferences", "[]v1.OwnerReference", structValue("ObjectMeta", refs, "v1.OwnerReference", (o) => checkScalarFields("OwnerReference", refs, o, ownerReferenceFields)));
    const mf = "metadata.managedFields";
    checkList(
      "ObjectMeta",
      mf,
      m,
      "managedFields",
      "[]v1.ManagedFieldsEntry",
      structValue("ObjectMeta", mf, "v1.ManagedFieldsEntry", (e) => {
        checkScalarFields("ManagedFieldsEntry", mf, e, managedFieldsFields);
        // FieldsV1 takes any JSON upstream; only an object describes fields.
        if (e.fieldsV1 === null) delete e.fieldsV1;
      }),
    );
  });
}

/** A meta/v1 LabelSelector value (a list element or a field), checked in place. */
export function labelSelectorValue(parent: string, path: string): (x: unknown) => unknown {
  return structValue(parent, path, "v1.LabelSelector", (sel) => {
    checkStringMap("LabelSelector", `${path}.matchLabels`, sel, "matchLabels");
    const exprs = `${path}.matchExpressions`;
    checkList(
      "LabelSelector",
      exprs,
      sel,
      "matchExpressions",
      "[]v1.LabelSelectorRequirement",
      structValue("LabelSelector", exprs, "v1.LabelSelectorRequirement", (r) => {
        checkScalarFields("LabelSelectorRequirement", exprs, r, { key: ["string", "string"], operator: ["string", "v1.LabelSelectorOperator"] });
        checkStringList("LabelSelectorRequirement", `${exprs}.values`, r, "values");
      }),
    );
  });
}

/** The 400 kube-apiserver answers when a body cannot be decoded into the kind's struct. */
export function undecodableBody(kind: string, version: string, err: FieldTypeError): StatusError {
  return StatusError.badRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${err.message}`);
}

/** Checks TypeMeta and ObjectMeta of a request body; 400 Status as upstream's decoder answers. */
export function requireObjectMetaTypes(obj: KubeObject, kind: string, version: string): void {
  try {
    checkObjectMetaTypes(obj as Record<string, unknown>, kind);
  } catch (err) {
    if (err instanceof FieldTypeError) throw undecodableBody(kind, version, err);
    throw err;
  }
}
