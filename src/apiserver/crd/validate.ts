/**
 * OpenAPI v3 value validation of custom resources with kube-apiserver's results: the checks and
 * messages of kube-openapi's SchemaValidator (type, allOf/anyOf/oneOf/not, string, format,
 * number, array, enum, object — in that order per node), mapped to field errors as
 * apiextensions-apiserver's kubeOpenAPIResultToFieldErrors does:
 *
 *   Required        → `spec.name: Required value`
 *   enum            → `spec.color: Unsupported value: "pink": supported values: "red", "blue"`
 *   maxLength       → `spec.name: Too long: may not be more than 5 bytes`
 *   maxItems / maxProperties → `spec.list: Too many: 4: must have at most 3 items`
 *   type / format   → `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`
 *   everything else → `spec.size: Invalid value: 20: spec.size in body should be less than or equal to 10`
 *
 * Validation ratcheting (CRDValidationRatcheting, on by default since 1.30): on update, a node
 * whose value equals its correlated old value is not validated. Object fields correlate by
 * key, items of `x-kubernetes-list-type: map` lists by their keys and of `set` lists by value;
 * other list items do not correlate.
 */
import { FieldError, fieldErrors } from "../../apimachinery/fielderrors.js";
import { formatValidator } from "./formats.js";
import {
  additionalPropertiesSchema,
  cachedPattern,
  formatBound,
  goQuote,
  intOrString,
  isObject,
  itemsOf,
  jsonEqual,
  jsonTypeOf,
  propertiesOf,
  schemaList,
  type JSONObject,
  type Schema,
} from "./schema.js";

/** A correlated old value (ratcheting); absent when the node has no counterpart in the old object. */
interface Old {
  v: unknown;
}

export interface ValidateOptions {
  /** The field path errors hang below (field.Path of the validated value); "" for a whole object. */
  fieldPath?: string;
  /** The old value, for ratcheting on update. */
  old?: unknown;
}

class Validator {
  readonly errors: FieldError[] = [];
  constructor(private readonly fieldPath: string) {}

  /** The field of an error for the kube-openapi name `name` (".spec" and "spec" alike). */
  field(name: string): string {
    const n = name.startsWith(".") ? name.slice(1) : name;
    if (n === "" || name === ".") return this.fieldPath;
    return this.fieldPath === "" ? n : `${this.fieldPath}.${n}`;
  }

  invalid(name: string, value: unknown, message: string): void {
    this.errors.push(fieldErrors.invalid(this.field(name), value, message));
  }

  typeInvalid(name: string, value: unknown, message: string): void {
    this.errors.push(fieldErrors.typeInvalid(this.field(name), value, message));
  }

  /** A composite (allOf/anyOf/oneOf/not) failure: not a field error upstream, reported at the root path. */
  composite(message: string): void {
    this.errors.push(fieldErrors.invalid(this.fieldPath, "", message));
  }

  fork(): Validator {
    return new Validator(this.fieldPath);
  }
}

function typesOf(s: Schema): string[] {
  if (intOrString(s)) return ["integer", "string"];
  return typeof s.type === "string" && s.type !== "" ? [s.type] : [];
}

/** "spec.replicas in body must be of type integer: "string"" (errors.InvalidType with a string value). */
function typeMessage(name: string, type: string, actual: string): string {
  return `${name} in body must be of type ${type}: ${goQuote(actual)}`;
}

function validateType(v: Validator, s: Schema, name: string, data: unknown): void {
  const types = typesOf(s);
  const format = typeof s.format === "string" ? s.format : "";
  const effectiveFormat = formatValidator(format) ? format : "";
  if (types.length === 0 && effectiveFormat === "") return;
  if (data === null) {
    if (types.length > 0 && !types.includes("null") && s.nullable !== true) {
      v.typeInvalid(name, "null", typeMessage(name, types.join(","), "null"));
    }
    return;
  }
  const schType = jsonTypeOf(data);
  const isString = typeof data === "string";
  const isArray = Array.isArray(data);
  const isIntFloat = schType === "integer" && types.includes("number");
  if (!isString && !isArray && effectiveFormat !== "" && !(types.includes(schType) || isIntFloat)) {
    const goFormat = schType === "integer" ? "int64" : schType === "number" ? "float64" : "";
    v.typeInvalid(name, goFormat, typeMessage(name, effectiveFormat, goFormat));
    return;
  }
  if (!(types.includes("number") || types.includes("integer")) && effectiveFormat !== "" && (isString || isArray)) return;
  if (!(types.includes(schType) || isIntFloat)) v.typeInvalid(name, schType, typeMessage(name, types.join(","), schType));
}

function validateString(v: Validator, s: Schema, name: string, data: string): void {
  const length = [...data].length;
  if (typeof s.maxLength === "number" && length > s.maxLength) {
    v.errors.push(fieldErrors.tooLong(v.field(name), data, s.maxLength));
    return;
  }
  if (typeof s.minLength === "number" && length < s.minLength) {
    v.invalid(name, data, `${name} in body should be at least ${s.minLength} chars long`);
    return;
  }
  if (typeof s.pattern === "string" && s.pattern !== "") {
    const re = cachedPattern(s.pattern);
    if (typeof re === "string" || !re.test(data)) v.invalid(name, data, `${name} in body should match '${s.pattern}'`);
  }
}

function validateFormat(v: Validator, s: Schema, name: string, data: string): void {
  const check = formatValidator(s.format);
  if (check && !check(data)) v.typeInvalid(name, data, typeMessage(name, s.format!, data));
}

function validateNumber(v: Validator, s: Schema, name: string, data: number): void {
  const isInt = Number.isInteger(data);
  if (typeof s.multipleOf === "number") {
    const factor = s.multipleOf;
    const q = data / factor;
    if (factor !== 0 && Math.abs(q - Math.round(q)) > 1e-9 * Math.max(1, Math.abs(q))) {
      v.invalid(name, data, `${name} in body should be a multiple of ${formatBound(factor, isInt)}`);
    }
  }
  if (typeof s.minimum === "number") {
    const bad = s.exclusiveMinimum === true ? data <= s.minimum : data < s.minimum;
    if (bad) {
      const rel = s.exclusiveMinimum === true ? "greater than" : "greater than or equal to";
      v.invalid(name, data, `${name} in body should be ${rel} ${formatBound(s.minimum, isInt)}`);
    }
  }
  if (typeof s.maximum === "number") {
    const bad = s.exclusiveMaximum === true ? data >= s.maximum : data > s.maximum;
    if (bad) {
      const rel = s.exclusiveMaximum === true ? "less than" : "less than or equal to";
      v.invalid(name, data, `${name} in body should be ${rel} ${formatBound(s.maximum, isInt)}`);
    }
  }
}

function listMapKeyValues(s: Schema, item: unknown): unknown[] | undefined {
  if (!isObject(item)) return undefined;
  const keys = s["x-kubernetes-list-map-keys"];
  if (!Array.isArray(keys)) return undefined;
  return keys.map((k) => (Object.prototype.hasOwnProperty.call(item, k) ? item[k] : undefined));
}

/** The old item correlated with `item` (list-type map: same keys; set: same value). */
function correlateItem(s: Schema, item: unknown, old: Old | undefined): Old | undefined {
  if (!old || !Array.isArray(old.v)) return undefined;
  const listType = s["x-kubernetes-list-type"];
  if (listType === "map") {
    const key = listMapKeyValues(s, item);
    if (!key) return undefined;
    const match = old.v.find((o) => {
      const ok = listMapKeyValues(s, o);
      return ok !== undefined && jsonEqual(ok, key);
    });
    return match === undefined ? undefined : { v: match };
  }
  if (listType === "set") {
    return old.v.some((o) => jsonEqual(o, item)) ? { v: item } : undefined;
  }
  return undefined;
}

function validateArray(v: Validator, s: Schema, name: string, data: unknown[], old: Old | undefined): void {
  const items = itemsOf(s);
  if (items) data.forEach((item, i) => validateNode(v, items, `${name}[${i}]`, item, correlateItem(s, item, old)));
  if (typeof s.minItems === "number" && data.length < s.minItems) {
    v.invalid(name, data.length, `${name} in body should have at least ${s.minItems} items`);
  }
  if (typeof s.maxItems === "number" && data.length > s.maxItems) {
    v.errors.push(fieldErrors.tooMany(v.field(name), data.length, s.maxItems));
  }
  if (s.uniqueItems === true) {
    const seen: unknown[] = [];
    let dup = false;
    for (const x of data) {
      if (seen.some((y) => jsonEqual(x, y))) dup = true;
      seen.push(x);
    }
    if (dup) v.invalid(name, "", `${name} in body shouldn't contain duplicates`);
  }
}

function validateEnum(v: Validator, s: Schema, name: string, data: unknown): void {
  if (!Array.isArray(s.enum) || s.enum.length === 0) return;
  if (s.enum.some((e) => jsonEqual(e, data))) return;
  const values = s.enum.map((e) => (typeof e === "string" ? e : JSON.stringify(e)));
  v.errors.push(fieldErrors.notSupported(v.field(name), data, values));
}

function childName(name: string, key: string): string {
  return name === "" ? key : `${name}.${key}`;
}

function validateObject(v: Validator, s: Schema, name: string, data: JSONObject, old: Old | undefined): void {
  const n = Object.keys(data).length;
  if (typeof s.minProperties === "number" && n < s.minProperties) {
    v.invalid(name, n, `${name} in body should have at least ${s.minProperties} properties`);
    return;
  }
  if (typeof s.maxProperties === "number" && n > s.maxProperties) {
    v.errors.push(fieldErrors.tooMany(v.field(name), n, s.maxProperties));
    return;
  }
  const props = propertiesOf(s);
  const oldObj = old && isObject(old.v) ? old.v : undefined;
  const correlated = (k: string): Old | undefined =>
    oldObj && Object.prototype.hasOwnProperty.call(oldObj, k) ? { v: oldObj[k] } : undefined;
  if (s.additionalProperties === false) {
    for (const k of Object.keys(data)) {
      if (!Object.prototype.hasOwnProperty.call(props, k)) v.invalid(name, k, `${name}.${k} in body is a forbidden property`);
    }
  } else {
    const ap = additionalPropertiesSchema(s);
    if (ap) {
      for (const [k, val] of Object.entries(data)) {
        if (!Object.prototype.hasOwnProperty.call(props, k)) validateNode(v, ap, `${name}.${k}`, val, correlated(k));
      }
    }
  }
  for (const [k, ps] of Object.entries(props)) {
    if (Object.prototype.hasOwnProperty.call(data, k)) validateNode(v, ps, childName(name, k), data[k], correlated(k));
  }
  if (Array.isArray(s.required)) {
    for (const k of s.required) {
      if (typeof k === "string" && !Object.prototype.hasOwnProperty.call(data, k)) v.errors.push(fieldErrors.required(v.field(`${name}.${k}`)));
    }
  }
}

function validateComposite(v: Validator, s: Schema, name: string, data: unknown, old: Old | undefined): void {
  const quoted = goQuote(name);
  const run = (sub: Schema): Validator => {
    const f = v.fork();
    validateNode(f, sub, name, data, old);
    return f;
  };
  const anyOf = schemaList(s.anyOf);
  if (anyOf.length > 0) {
    let best: Validator | undefined;
    let ok = false;
    for (const sub of anyOf) {
      const r = run(sub);
      if (r.errors.length === 0) {
        ok = true;
        break;
      }
      if (!best || r.errors.length < best.errors.length) best = r;
    }
    if (!ok) {
      v.composite(`${quoted} must validate at least one schema (anyOf)`);
      v.errors.push(...best!.errors);
    }
  }
  const oneOf = schemaList(s.oneOf);
  if (oneOf.length > 0) {
    let valid = 0;
    let best: Validator | undefined;
    for (const sub of oneOf) {
      const r = run(sub);
      if (r.errors.length === 0) valid++;
      else if (!best || r.errors.length < best.errors.length) best = r;
    }
    if (valid !== 1) {
      v.composite(`${quoted} must validate one and only one schema (oneOf). ${valid === 0 ? "Found none valid" : `Found ${valid} valid alternatives`}`);
      if (valid === 0 && best) v.errors.push(...best.errors);
    }
  }
  const allOf = schemaList(s.allOf);
  if (allOf.length > 0) {
    let valid = 0;
    for (const sub of allOf) {
      const r = run(sub);
      if (r.errors.length === 0) valid++;
      v.errors.push(...r.errors);
    }
    if (valid !== allOf.length) v.composite(`${quoted} must validate all the schemas (allOf)${valid === 0 ? ". None validated" : ""}`);
  }
  if (isObject(s.not)) {
    const r = run(s.not as Schema);
    if (r.errors.length === 0) v.composite(`${quoted} must not validate the schema (not)`);
  }
}

function validateNode(v: Validator, s: Schema, name: string, data: unknown, old: Old | undefined): void {
  if (old && jsonEqual(old.v, data)) return; // ratcheting: unchanged values are not re-validated
  validateType(v, s, name, data);
  if (data === null || data === undefined) {
    validateEnum(v, s, name, null);
    return;
  }
  validateComposite(v, s, name, data, old);
  if (typeof data === "string") {
    validateString(v, s, name, data);
    validateFormat(v, s, name, data);
  }
  if (typeof data === "number") validateNumber(v, s, name, data);
  if (Array.isArray(data)) validateArray(v, s, name, data, old);
  validateEnum(v, s, name, data);
  if (isObject(data)) validateObject(v, s, name, data, old);
}

/** Validates `value` against `schema`; errors carry upstream's paths and messages. */
export function validateValue(value: unknown, schema: Schema, opts: ValidateOptions = {}): FieldError[] {
  const v = new Validator(opts.fieldPath ?? "");
  validateNode(v, schema, "", value, "old" in opts && opts.old !== undefined ? { v: opts.old } : undefined);
  return v.errors;
}

