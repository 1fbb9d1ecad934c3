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

function mismatch(struct: string, path: string, value: unknown, goType: string): FieldTypeError {
  const what = typeof value === "number" && goType === "int64" ? `number ${value}` : jsonTypeOf(value);
  return new FieldTypeError(`json: cannot unmarshal ${what} into Go struct field ${struct}.${path} of type ${goType}`);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

type Scalar = "string" | "int64" | "bool" | "time";

// RFC 3339 as Go's time.Parse(time.RFC3339, s) accepts it (fractional seconds allowed).
const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Checks a scalar field; returns the normalised value (undefined: drop the field). */
function scalar(struct: string, path: string, v: unknown, t: Scalar, goType: string): unknown {
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

type Fields = Record<string, [Scalar, string]>;

/** Checks the scalar fields of a struct in place (nulls removed). */
function structFields(struct: string, base: string, obj: Record<string, unknown>, fields: Fields): void {
  for (const [name, [t, goType]] of Object.entries(fields)) {
    if (!Object.prototype.hasOwnProperty.call(obj, name)) continue;
    const v = scalar(struct, `${base}.${name}`, obj[name], t, goType);
    if (v === undefined) delete obj[name];
    else obj[name] = v;
  }
}

function stringMap(meta: Record<string, unknown>, name: string): void {
  const v = meta[name];
  if (v === undefined) return;
  if (v === null) {
    delete meta[name];
    return;
  }
  if (!isPlainObject(v)) throw mismatch("ObjectMeta", `metadata.${name}`, v, "map[string]string");
  for (const [k, x] of Object.entries(v)) {
    if (x === null) v[k] = "";
    else if (typeof x !== "string") throw mismatch("ObjectMeta", `metadata.${name}`, x, "string");
  }
}

/** A list field: null → absent; each element checked by `item` (which may replace it). */
function list(meta: Record<string, unknown>, name: string, goType: string, item: (x: unknown, i: number) => unknown): void {
  const v = meta[name];
  if (v === undefined) return;
  if (v === null) {
    delete meta[name];
    return;
  }
  if (!Array.isArray(v)) throw mismatch("ObjectMeta", `metadata.${name}`, v, goType);
  for (let i = 0; i < v.length; i++) v[i] = item(v[i], i);
}

function structItem(struct: string, path: string, goType: string, fields: Fields, extra?: (o: Record<string, unknown>) => void) {
  return (x: unknown): unknown => {
    if (x === null) return {};
    if (!isPlainObject(x)) throw mismatch("ObjectMeta", path, x, goType);
    structFields(struct, path, x, fields);
    extra?.(x);
    return x;
  };
}

const objectMetaScalars: Fields = {
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

const ownerReferenceFields: Fields = {
  apiVersion: ["string", "string"],
  kind: ["string", "string"],
  name: ["string", "string"],
  uid: ["string", "types.UID"],
  controller: ["bool", "bool"],
  blockOwnerDeletion: ["bool", "bool"],
};

const managedFieldsFields: Fields = {
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
  const m = obj.metadata;
  if (m === undefined) return;
  if (m === null) {
    delete obj.metadata;
    return;
  }
  if (!isPlainObject(m)) throw mismatch(kind, "metadata", m, "v1.ObjectMeta");
  structFields("ObjectMeta", "metadata", m, objectMetaScalars);
  stringMap(m, "labels");
  stringMap(m, "annotations");
  list(m, "finalizers", "[]string", (x) => {
    if (x === null) return "";
    if (typeof x !== "string") throw mismatch("ObjectMeta", "metadata.finalizers", x, "string");
    return x;
  });
  list(m, "ownerReferences", "[]v1.OwnerReference", structItem("OwnerReference", "metadata.ownerReferences", "v1.OwnerReference", ownerReferenceFields));
  list(
    m,
    "managedFields",
    "[]v1.ManagedFieldsEntry",
    structItem("ManagedFieldsEntry", "metadata.managedFields", "v1.ManagedFieldsEntry", managedFieldsFields, (e) => {
      // FieldsV1 takes any JSON upstream; only an object describes fields.
      if (e.fieldsV1 === null) delete e.fieldsV1;
    }),
  );
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
