/**
 * Validation of a CRD version's `schema.openAPIV3Schema` (apiextensions validation.go
 * validateCustomResourceDefinitionValidation, schema/validation.go ValidateStructural,
 * schema/completeness.go and defaulting/validation.go), with upstream's field paths
 * (`spec.versions[0].schema.openAPIV3Schema.properties[spec].type`) and messages.
 *
 * A structural schema: every node below the root has a type (unless it is int-or-string or
 * preserves unknown fields), arrays have items, `allOf`/`anyOf`/`oneOf`/`not` only restrict
 * values (no type, default, additionalProperties, nullable, description, title or vendor
 * extensions there) and only mention fields the outer structure specifies, the root is an
 * object, and metadata may only restrict name and generateName.
 *
 * `x-kubernetes-validations` (CEL) rules: their fields are checked with the schema; then, on a
 * structural schema, every rule is compiled and its estimated cost compared with the budgets
 * (celrules.ts), except below nodes that already have schema errors (as upstream).
 */
import { FieldError, fieldErrors } from "../../apimachinery/fielderrors.js";
import { validateRuleDefinitions, validateRuleFields } from "./celrules.js";
import { prune } from "./prune.js";
import { validateValue } from "./validate.js";
import {
  additionalPropertiesSchema,
  compilePattern,
  embeddedResource,
  intOrString,
  isObject,
  jsonCopy,
  jsonEqual,
  preserveUnknown,
  propertiesOf,
  schemaList,
  type Schema,
} from "./schema.js";

const openapiV3Types = ["array", "boolean", "integer", "number", "object", "string"];
const metaFields = new Set(["metadata", "kind", "apiVersion"]);

const child = (p: string, ...names: string[]) => names.reduce((acc, n) => `${acc}.${n}`, p);
const key = (p: string, k: string) => `${p}[${k}]`;
const idx = (p: string, i: number) => `${p}[${i}]`;

type Level = "root" | "item" | "field";

/** The Go field names of JSONSchemaProps, for the "only [...] fields are allowed at the root" rule. */
const goFieldNames: Record<string, string> = {
  id: "ID",
  $schema: "Schema",
  $ref: "Ref",
  description: "Description",
  type: "Type",
  format: "Format",
  title: "Title",
  default: "Default",
  maximum: "Maximum",
  exclusiveMaximum: "ExclusiveMaximum",
  minimum: "Minimum",
  exclusiveMinimum: "ExclusiveMinimum",
  maxLength: "MaxLength",
  minLength: "MinLength",
  pattern: "Pattern",
  maxItems: "MaxItems",
  minItems: "MinItems",
  uniqueItems: "UniqueItems",
  multipleOf: "MultipleOf",
  enum: "Enum",
  maxProperties: "MaxProperties",
  minProperties: "MinProperties",
  required: "Required",
  items: "Items",
  allOf: "AllOf",
  oneOf: "OneOf",
  anyOf: "AnyOf",
  not: "Not",
  properties: "Properties",
  additionalProperties: "AdditionalProperties",
  patternProperties: "PatternProperties",
  dependencies: "Dependencies",
  additionalItems: "AdditionalItems",
  definitions: "Definitions",
  externalDocs: "ExternalDocs",
  example: "Example",
  nullable: "Nullable",
  "x-kubernetes-preserve-unknown-fields": "XPreserveUnknownFields",
  "x-kubernetes-embedded-resource": "XEmbeddedResource",
  "x-kubernetes-int-or-string": "XIntOrString",
  "x-kubernetes-list-map-keys": "XListMapKeys",
  "x-kubernetes-list-type": "XListType",
  "x-kubernetes-map-type": "XMapType",
  "x-kubernetes-validations": "XValidations",
};

const allowedAtRootWithStatus = [
  "Description",
  "Type",
  "Format",
  "Title",
  "Maximum",
  "ExclusiveMaximum",
  "Minimum",
  "ExclusiveMinimum",
  "MaxLength",
  "MinLength",
  "Pattern",
  "MaxItems",
  "MinItems",
  "UniqueItems",
  "MultipleOf",
  "Required",
  "Items",
  "Properties",
  "ExternalDocs",
  "Example",
  "XPreserveUnknownFields",
  "XValidations",
];

/** Whether a JSON value is Go's zero value for its field (skipped by the root-fields rule). */
function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === "" || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.keys(v).length === 0;
  return false;
}

// ---- structural invariants (schema/validation.go) ------------------------------------------

const intOrStringPair = (list: unknown): boolean => {
  const l = schemaList(list);
  return (
    Array.isArray(list) &&
    list.length === 2 &&
    l.length === 2 &&
    jsonEqual(l[0], { type: "integer" }) &&
    jsonEqual(l[1], { type: "string" })
  );
};

function validateValueValidation(s: Schema, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  if (!skipAnyOf) schemaList(s.anyOf).forEach((v, i) => validateNested(v, false, lvl, idx(child(path, "anyOf"), i), errs));
  schemaList(s.allOf).forEach((v, i) => validateNested(v, skipFirstAllOfAnyOf && i === 0, lvl, idx(child(path, "allOf"), i), errs));
  schemaList(s.oneOf).forEach((v, i) => validateNested(v, false, lvl, idx(child(path, "oneOf"), i), errs));
  if (isObject(s.not)) validateNested(s.not as Schema, false, lvl, child(path, "not"), errs);
  if (typeof s.pattern === "string" && s.pattern !== "") {
    const re = compilePattern(s.pattern);
    if (typeof re === "string") errs.push(fieldErrors.invalid(child(path, "pattern"), s.pattern, `must be a valid regular expression, but isn't: ${re}`));
  }
}

/** A value validation below allOf/anyOf/oneOf/not: structure-defining keywords are forbidden there. */
function validateNested(v: Schema, skipAnyOf: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  validateValueValidation(v, skipAnyOf, false, lvl, path, errs);
  if (isObject(v.items)) validateNested(v.items as Schema, false, lvl, child(path, "items"), errs);
  for (const [k, p] of Object.entries(propertiesOf(v))) validateNested(p, false, "field", key(child(path, "properties"), k), errs);
  if (typeof v.type === "string" && v.type !== "") errs.push(fieldErrors.forbidden(child(path, "type"), "must be empty to be structural"));
  if (v.additionalProperties !== undefined) errs.push(fieldErrors.forbidden(child(path, "additionalProperties"), "must be undefined to be structural"));
  if (v.default !== undefined) errs.push(fieldErrors.forbidden(child(path, "default"), "must be undefined to be structural"));
  if (typeof v.title === "string" && v.title !== "") errs.push(fieldErrors.forbidden(child(path, "title"), "must be empty to be structural"));
  if (typeof v.description === "string" && v.description !== "") errs.push(fieldErrors.forbidden(child(path, "description"), "must be empty to be structural"));
  if (v.nullable === true) errs.push(fieldErrors.forbidden(child(path, "nullable"), "must be false to be structural"));
  if (preserveUnknown(v)) errs.push(fieldErrors.forbidden(child(path, "x-kubernetes-preserve-unknown-fields"), "must be false to be structural"));
  if (embeddedResource(v)) errs.push(fieldErrors.forbidden(child(path, "x-kubernetes-embedded-resource"), "must be false to be structural"));
  if (intOrString(v)) errs.push(fieldErrors.forbidden(child(path, "x-kubernetes-int-or-string"), "must be false to be structural"));
  if (Array.isArray(v["x-kubernetes-list-map-keys"]) && v["x-kubernetes-list-map-keys"].length > 0) {
    errs.push(fieldErrors.forbidden(child(path, "x-kubernetes-list-map-keys"), "must be empty to be structural"));
  }
  if (v["x-kubernetes-list-type"] !== undefined) errs.push(fieldErrors.forbidden(child(path, "x-kubernetes-list-type"), "must be undefined to be structural"));
  if (Object.prototype.hasOwnProperty.call(propertiesOf(v), "metadata")) {
    errs.push(fieldErrors.forbidden(key(child(path, "properties"), "metadata"), "must not be specified in a nested context"));
  }
}

function validateInvariants(s: Schema, lvl: Level, path: string, errs: FieldError[]): void {
  const type = typeof s.type === "string" ? s.type : "";
  if (type === "array" && s.items === undefined) errs.push(fieldErrors.required(child(path, "items"), "must be specified"));
  if (isObject(s.items)) validateInvariants(s.items as Schema, "item", child(path, "items"), errs);
  const props = propertiesOf(s);
  for (const [k, p] of Object.entries(props)) validateInvariants(p, "field", key(child(path, "properties"), k), errs);
  if (s.additionalProperties !== undefined) {
    if (lvl === "root") errs.push(fieldErrors.forbidden(child(path, "additionalProperties"), "must not be used at the root"));
    const ap = additionalPropertiesSchema(s);
    if (ap) validateInvariants(ap, "field", child(path, "additionalProperties"), errs);
  }
  if (intOrString(s) && preserveUnknown(s)) {
    errs.push(fieldErrors.invalid(child(path, "x-kubernetes-preserve-unknown-fields"), true, "must be false if x-kubernetes-int-or-string is true"));
  }
  if (intOrString(s) && embeddedResource(s)) {
    errs.push(fieldErrors.invalid(child(path, "x-kubernetes-embedded-resource"), true, "must be false if x-kubernetes-int-or-string is true"));
  }
  const skipAnyOf = intOrStringPair(s.anyOf);
  const allOf = schemaList(s.allOf);
  const skipFirstAllOfAnyOf = allOf.length >= 1 && intOrStringPair(allOf[0].anyOf);
  validateValueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, lvl, path, errs);

  const checkMetadata = lvl === "root" || embeddedResource(s);
  if (embeddedResource(s) && type !== "object") {
    if (type === "") errs.push(fieldErrors.required(child(path, "type"), "must be object if x-kubernetes-embedded-resource is true"));
    else errs.push(fieldErrors.invalid(child(path, "type"), type, "must be object if x-kubernetes-embedded-resource is true"));
  } else if (type === "" && !intOrString(s) && !preserveUnknown(s)) {
    const detail =
      lvl === "root" ? "must not be empty at the root" : lvl === "item" ? "must not be empty for specified array items" : "must not be empty for specified object fields";
    errs.push(fieldErrors.required(child(path, "type"), detail));
  }
  if (embeddedResource(s) && s.additionalProperties !== undefined) {
    errs.push(fieldErrors.forbidden(child(path, "additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"));
  }
  if (lvl === "root" && type !== "" && type !== "object") errs.push(fieldErrors.invalid(child(path, "type"), type, "must be object at the root"));
  if (checkMetadata) {
    for (const [f, want] of [
      ["kind", "string"],
      ["apiVersion", "string"],
      ["metadata", "object"],
    ] as const) {
      const p = props[f];
      if (p && p.type !== want) errs.push(fieldErrors.invalid(child(key(child(path, "properties"), f), "type"), p.type ?? "", `must be ${want}`));
    }
  }
  const metadata = props.metadata;
  if (metadata && lvl === "root") {
    const mprops = Object.keys(propertiesOf(metadata));
    const onlyNames = mprops.every((k) => k === "name" || k === "generateName");
    const other = Object.keys(metadata).filter((k) => k !== "type" && k !== "default" && !(k === "properties" && onlyNames) && !isZero(metadata[k as keyof Schema]));
    if (other.length > 0) {
      errs.push(
        fieldErrors.forbidden(key(child(path, "properties"), "metadata"), "must not specify anything other than name and generateName, but metadata is implicitly specified"),
      );
    }
  }
  if (embeddedResource(s) && !preserveUnknown(s) && Object.keys(props).length === 0) {
    errs.push(
      fieldErrors.required(child(path, "properties"), "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"),
    );
  }
}

// ---- completeness (schema/completeness.go) -------------------------------------------------

function nestedCompleteness(v: Schema, s: Schema | undefined, sPath: string, vPath: string, errs: FieldError[]): void {
  if (!s) {
    errs.push(fieldErrors.required(sPath, `because it is defined in ${vPath}`));
    return;
  }
  valueValidationCompleteness(v, s, sPath, vPath, errs);
  if (isObject(v.items)) {
    nestedCompleteness(v.items as Schema, isObject(s.items) ? (s.items as Schema) : undefined, child(sPath, "items"), child(vPath, "items"), errs);
  }
  const sProps = propertiesOf(s);
  const sAP = additionalPropertiesSchema(s);
  for (const [k, vp] of Object.entries(propertiesOf(v))) {
    if (Object.prototype.hasOwnProperty.call(sProps, k)) {
      nestedCompleteness(vp, sProps[k], key(child(sPath, "properties"), k), key(child(vPath, "properties"), k), errs);
    } else if (sAP) {
      nestedCompleteness(vp, sAP, child(sPath, "additionalProperties"), key(child(vPath, "properties"), k), errs);
    } else {
      errs.push(fieldErrors.required(key(child(sPath, "properties"), k), `because it is defined in ${key(child(vPath, "properties"), k)}`));
    }
  }
  const vAP = additionalPropertiesSchema(v);
  if (vAP) nestedCompleteness(vAP, sAP, child(sPath, "additionalProperties"), child(vPath, "additionalProperties"), errs);
}

function valueValidationCompleteness(v: Schema, s: Schema, sPath: string, vPath: string, errs: FieldError[]): void {
  if (isObject(v.not)) nestedCompleteness(v.not as Schema, s, sPath, child(vPath, "not"), errs);
  schemaList(v.allOf).forEach((x, i) => nestedCompleteness(x, s, sPath, idx(child(vPath, "allOf"), i), errs));
  schemaList(v.anyOf).forEach((x, i) => nestedCompleteness(x, s, sPath, idx(child(vPath, "anyOf"), i), errs));
  schemaList(v.oneOf).forEach((x, i) => nestedCompleteness(x, s, sPath, idx(child(vPath, "oneOf"), i), errs));
}

/** ValidateStructural: invariants plus completeness of the root's value validations, sorted as upstream sorts them. */
export function validateStructural(schema: Schema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  validateInvariants(schema, "root", path, errs);
  valueValidationCompleteness(schema, schema, path, path, errs);
  return errs.sort((a, b) => {
    const x = a.toString();
    const y = b.toString();
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

// ---- defaults (defaulting/validation.go) ---------------------------------------------------

function validateDefaultsAt(s: Schema, path: string, embeddedRoot: boolean, insideMeta: boolean, errs: FieldError[]): void {
  const embedded = embeddedRoot || embeddedResource(s);
  if (embeddedResource(s)) insideMeta = false;
  if (s.default !== undefined) {
    const dpath = child(path, "default");
    if (insideMeta) {
      errs.push(...validateValue(s.default, s, { fieldPath: dpath }));
    } else {
      const pruned = jsonCopy(s.default);
      prune(pruned, s, embedded);
      if (!jsonEqual(pruned, s.default)) errs.push(fieldErrors.invalid(dpath, s.default, "must not have unknown fields"));
      errs.push(...validateValue(s.default, s, { fieldPath: dpath }));
    }
  }
  if (isObject(s.items)) validateDefaultsAt(s.items as Schema, child(path, "items"), false, insideMeta, errs);
  for (const [k, p] of Object.entries(propertiesOf(s))) {
    const subMeta = insideMeta || (embedded && metaFields.has(k));
    validateDefaultsAt(p, key(child(path, "properties"), k), false, subMeta, errs);
  }
}

// ---- OpenAPI schema rules (validation.go ValidateCustomResourceDefinitionOpenAPISchema) ----

interface SSV {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
}

function standardChecks(s: Schema, path: string, ssv: SSV, errs: FieldError[]): void {
  if (typeof s.type === "string" && s.type !== "" && !openapiV3Types.includes(s.type)) {
    errs.push(fieldErrors.notSupported(child(path, "type"), s.type, openapiV3Types));
  }
  if (s.default !== undefined && !ssv.allowDefaults) {
    errs.push(fieldErrors.forbidden(child(path, "default"), `must not be set${ssv.disallowDefaultsReason ? ` ${ssv.disallowDefaultsReason}` : ""}`));
  }
  if (typeof s.id === "string" && s.id !== "") errs.push(fieldErrors.forbidden(child(path, "id"), "id is not supported"));
  if (s.additionalItems !== undefined) errs.push(fieldErrors.forbidden(child(path, "additionalItems"), "additionalItems is not supported"));
  if (isObject(s.patternProperties) && Object.keys(s.patternProperties).length) {
    errs.push(fieldErrors.forbidden(child(path, "patternProperties"), "patternProperties is not supported"));
  }
  if (isObject(s.definitions) && Object.keys(s.definitions).length) errs.push(fieldErrors.forbidden(child(path, "definitions"), "definitions is not supported"));
  if (s.dependencies !== undefined) errs.push(fieldErrors.forbidden(child(path, "dependencies"), "dependencies is not supported"));
  if (s.$ref !== undefined) errs.push(fieldErrors.forbidden(child(path, "$ref"), "$ref is not supported"));
  if (s.type === "null") errs.push(fieldErrors.forbidden(child(path, "type"), "type cannot be set to null, use nullable as an alternative"));
  if (Array.isArray(s.items) && s.items.length) errs.push(fieldErrors.forbidden(child(path, "items"), "items must be a schema object and not an array"));
  if (ssv.insideResourceMeta && embeddedResource(s)) {
    errs.push(fieldErrors.forbidden(child(path, "x-kubernetes-embedded-resource"), "must not be used inside of resource meta"));
  }
}

function listAndMapChecks(s: Schema, path: string, errs: FieldError[]): void {
  const type = typeof s.type === "string" ? s.type : "";
  if (s["x-kubernetes-preserve-unknown-fields"] === false) {
    errs.push(fieldErrors.invalid(child(path, "x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"));
  }
  const mapType = s["x-kubernetes-map-type"];
  if (mapType !== undefined && type !== "object") {
    if (type === "") errs.push(fieldErrors.required(child(path, "type"), "must be object if x-kubernetes-map-type is specified"));
    else errs.push(fieldErrors.invalid(child(path, "type"), type, "must be object if x-kubernetes-map-type is specified"));
  }
  if (mapType !== undefined && mapType !== "atomic" && mapType !== "granular") {
    errs.push(fieldErrors.notSupported(child(path, "x-kubernetes-map-type"), mapType, ["atomic", "granular"]));
  }
  const listType = s["x-kubernetes-list-type"];
  const items = isObject(s.items) ? (s.items as Schema) : undefined;
  if (listType !== undefined && type !== "array") {
    if (type === "") errs.push(fieldErrors.required(child(path, "type"), "must be array if x-kubernetes-list-type is specified"));
    else errs.push(fieldErrors.invalid(child(path, "type"), type, "must be array if x-kubernetes-list-type is specified"));
  } else if (listType === "set" && items) {
    if (items.type === "array" && items["x-kubernetes-list-type"] !== undefined && items["x-kubernetes-list-type"] !== "atomic") {
      errs.push(fieldErrors.invalid(child(path, "items", "x-kubernetes-list-type"), items["x-kubernetes-list-type"], "must be atomic as item of a list with x-kubernetes-list-type=set"));
    }
    if (items.type === "object" && items["x-kubernetes-map-type"] !== "atomic") {
      errs.push(fieldErrors.invalid(child(path, "items", "x-kubernetes-map-type"), listType, "must be atomic as item of a list with x-kubernetes-list-type=set"));
    }
  }
  if (listType !== undefined && listType !== "atomic" && listType !== "set" && listType !== "map") {
    errs.push(fieldErrors.notSupported(child(path, "x-kubernetes-list-type"), listType, ["atomic", "set", "map"]));
  }
  const mapKeys = Array.isArray(s["x-kubernetes-list-map-keys"]) ? s["x-kubernetes-list-map-keys"] : [];
  if (mapKeys.length > 0) {
    if (listType === undefined) errs.push(fieldErrors.required(child(path, "x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"));
    else if (listType !== "map") errs.push(fieldErrors.invalid(child(path, "x-kubernetes-list-type"), listType, "must be map if x-kubernetes-list-map-keys is non-empty"));
  }
  if (listType === "map") {
    if (mapKeys.length === 0) errs.push(fieldErrors.required(child(path, "x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"));
    if (s.items === undefined) errs.push(fieldErrors.required(child(path, "items"), "must have a schema if x-kubernetes-list-type is map"));
    if (Array.isArray(s.items)) errs.push(fieldErrors.invalid(child(path, "items"), s.items, "must only have a single schema if x-kubernetes-list-type is map"));
    if (items && items.type !== "object") {
      errs.push(fieldErrors.invalid(child(path, "items", "type"), items.type ?? "", "must be object if parent array's x-kubernetes-list-type is map"));
    }
    if (items && items.type === "object") {
      const seen = new Set<string>();
      const iprops = propertiesOf(items);
      for (const k of mapKeys) {
        const p = iprops[k];
        if (p) {
          if (p.type === "array" || p.type === "object") {
            errs.push(fieldErrors.invalid(child(key(child(path, "items", "properties"), k), "type"), items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else {
          errs.push(fieldErrors.invalid(child(path, "x-kubernetes-list-map-keys"), mapKeys, "entries must all be names of item properties"));
        }
        if (seen.has(k)) errs.push(fieldErrors.invalid(child(path, "x-kubernetes-list-map-keys"), mapKeys, "must not contain duplicate entries"));
        seen.add(k);
      }
    }
  }
  // validateMapListKeysMapSet
  if (items && (listType === "set" || listType === "map")) {
    if (items.nullable === true) errs.push(fieldErrors.forbidden(child(path, "items", "nullable"), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
    if (listType === "map") {
      const required = new Set(Array.isArray(items.required) ? items.required : []);
      const iprops = propertiesOf(items);
      for (const k of mapKeys) {
        const p = iprops[k];
        if (!p) continue;
        if (!required.has(k) && p.default === undefined) {
          errs.push(
            fieldErrors.required(
              child(key(child(path, "items", "properties"), k), "default"),
              "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
            ),
          );
        }
        if (p.nullable === true) {
          errs.push(
            fieldErrors.forbidden(child(key(child(path, "items", "properties"), k), "nullable"), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"),
          );
        }
      }
    }
  }
  errs.push(...validateRuleFields(s, path));
}

function validateOpenAPISchema(s: Schema, path: string, ssv: SSV, isRoot: boolean, errs: FieldError[]): void {
  standardChecks(s, path, ssv, errs);
  if (s.uniqueItems === true) {
    errs.push(fieldErrors.forbidden(child(path, "uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"));
  }
  const props = propertiesOf(s);
  if (s.additionalProperties !== undefined) {
    if (Object.keys(props).length !== 0 && (s.additionalProperties === false || isObject(s.additionalProperties))) {
      errs.push(fieldErrors.forbidden(child(path, "additionalProperties"), "additionalProperties and properties are mutual exclusive"));
    }
    const ap = additionalPropertiesSchema(s);
    if (ap) {
      const sub = ssv.insideResourceMeta ? { ...ssv, allowDefaults: false, disallowDefaultsReason: "inside additionalProperties applying to object metadata" } : ssv;
      validateOpenAPISchema(ap, child(path, "additionalProperties"), sub, false, errs);
    }
  }
  for (const [k, p] of Object.entries(props)) {
    let sub = ssv;
    if ((isRoot || embeddedResource(s)) && metaFields.has(k)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${k}` };
    }
    validateOpenAPISchema(p, key(child(path, "properties"), k), sub, false, errs);
  }
  if (isObject(s.not)) validateOpenAPISchema(s.not as Schema, child(path, "not"), ssv, false, errs);
  schemaList(s.allOf).forEach((x, i) => validateOpenAPISchema(x, idx(child(path, "allOf"), i), ssv, false, errs));
  schemaList(s.oneOf).forEach((x, i) => validateOpenAPISchema(x, idx(child(path, "oneOf"), i), ssv, false, errs));
  schemaList(s.anyOf).forEach((x, i) => validateOpenAPISchema(x, idx(child(path, "anyOf"), i), ssv, false, errs));
  if (isObject(s.definitions)) {
    for (const [k, d] of Object.entries(s.definitions)) if (isObject(d)) validateOpenAPISchema(d, key(child(path, "definitions"), k), ssv, false, errs);
  }
  if (isObject(s.items)) validateOpenAPISchema(s.items as Schema, child(path, "items"), ssv, false, errs);
  else if (Array.isArray(s.items)) schemaList(s.items).forEach((x, i) => validateOpenAPISchema(x, idx(child(path, "items"), i), ssv, false, errs));
  listAndMapChecks(s, path, errs);
}

/**
 * Validates a version's `schema` (the CustomResourceValidation at `path`, e.g.
 * "spec.versions[0].schema") as upstream does for v1 CRDs (structural schemas required,
 * defaults allowed and required to be pruned).
 */
export function validateVersionSchema(validation: unknown, statusEnabled: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(validation)) return errs;
  const raw = validation.openAPIV3Schema;
  if (raw === undefined || raw === null) return errs;
  const spath = child(path, "openAPIV3Schema");
  if (!isObject(raw)) {
    errs.push(fieldErrors.invalid(spath, raw, "must be an object"));
    return errs;
  }
  const schema = raw as Schema;
  if (statusEnabled) {
    for (const [k, v] of Object.entries(schema)) {
      if (isZero(v)) continue;
      const goName = goFieldNames[k];
      if (goName === "Type") {
        if (schema.type !== "object") {
          errs.push(fieldErrors.invalid(child(path, "openAPIV3Schema.type"), schema.type, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`));
          break;
        }
        continue;
      }
      if (!goName || !allowedAtRootWithStatus.includes(goName)) {
        errs.push(
          fieldErrors.invalid(spath, schema, `only [${allowedAtRootWithStatus.join(" ")}] fields are allowed at the root of the schema if the status subresource is enabled`),
        );
        break;
      }
    }
  }
  if (schema.nullable === true) errs.push(fieldErrors.forbidden(child(path, "openAPIV3Schema.nullable"), "nullable cannot be true at the root"));
  const structural = validateStructural(schema, spath);
  if (structural.length > 0) errs.push(...structural);
  else validateDefaultsAt(schema, spath, true, false, errs);
  const before = errs.length;
  validateOpenAPISchema(schema, spath, { allowDefaults: true, disallowDefaultsReason: "", insideResourceMeta: false }, true, errs);
  if (structural.length === 0) {
    // CEL errors follow the schema errors; a node's rules are skipped when it or anything below it has one.
    const schemaErrs = errs.slice(before).map((e) => e.field);
    const below = (p: string) => schemaErrs.some((f) => f === p || f.startsWith(`${p}.`) || f.startsWith(`${p}[`));
    errs.push(...validateRuleDefinitions(schema, spath, below));
  }
  return errs;
}
