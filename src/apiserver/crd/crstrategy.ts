/**
 * The strategy of one served version of a custom resource, built from its CRD
 * (apiextensions-apiserver registry/customresource strategy.go + validator.go):
 *
 * - defaults: prune unknown fields (recording them for fieldValidation), drop non-nullable
 *   nulls, apply schema defaults;
 * - create: status cleared when the status subresource is on, generation 1;
 * - update: status kept (status subresource), generation bumped when anything but metadata
 *   (and status, with the subresource) changed; a /status write keeps everything but status;
 * - validation: generic ObjectMeta (DNS-subdomain names), the schema (with ratcheting on
 *   update), scale replicas paths, embedded resources, list-type set/map uniqueness, then the
 *   x-kubernetes-validations CEL rules (compiled once, when the strategy is built) unless an
 *   earlier error is blocking (required, unsupported, too long, too many, wrong type);
 * - updates need metadata.resourceVersion (AllowUnconditionalUpdate is false for custom resources).
 */
import { FieldError, fieldErrors } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import type { ResourceStrategy, ScaleSubresource } from "../registry/strategy.js";
import { applyDefaults, prune, pruneNonNullableNulls } from "./prune.js";
import { isObject, jsonEqual, type JSONObject, type Schema } from "./schema.js";
import { validateEmbeddedResources, validateGenericObjectMeta, validateGenericObjectMetaUpdate, validateListSetsAndMaps } from "./structure.js";
import { namesOf, specOf, statusOf, type CRDVersion } from "./types.js";
import { compileRules, validateRules } from "./celrules.js";
import { validateValue } from "./validate.js";

const standardVerbs = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
const maxInt32 = 2147483647;

/**
 * Unknown-field paths found by pruning, per request object: the strategy's defaults() records
 * them, the store hook (which has the request's fieldValidation mode) reports them.
 */
export type PrunedFields = WeakMap<KubeObject, string[]>;

/**
 * Where validation warnings of a request object go (the request's warning list, registered by
 * the store hook before validation): ratcheted CEL rule failures are warnings, not errors.
 */
export type WarningSinks = WeakMap<KubeObject, string[]>;

const blockingTypes = new Set(["FieldValueNotSupported", "FieldValueRequired", "FieldValueTooLong", "FieldValueTooMany", "FieldValueTypeInvalid"]);

/** Everything a custom resource version needs from its CRD, resolved once per CRD change. */
export interface CustomResourceVersion {
  crdName: string;
  group: string;
  version: string;
  storageVersion: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  schema: Schema | undefined;
  statusEnabled: boolean;
  scale?: ScaleSubresource;
  columns: NonNullable<CRDVersion["additionalPrinterColumns"]>;
  selectableFields: string[];
  deprecated: boolean;
  deprecationWarning?: string;
}

/** The served versions of a CRD, highest priority first is the caller's business. */
export function resolveVersions(crd: KubeObject): CustomResourceVersion[] {
  const spec = specOf(crd);
  const accepted = statusOf(crd).acceptedNames;
  const names = isObject(accepted) && accepted.plural ? accepted : namesOf(crd);
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  const storage = versions.find((v) => v.storage === true)?.name ?? "";
  return versions
    .filter((v) => v.served === true)
    .map((v): CustomResourceVersion => {
      const scale = isObject(v.subresources) && isObject(v.subresources.scale) ? v.subresources.scale : undefined;
      return {
        crdName: crd.metadata?.name ?? "",
        group: spec.group ?? "",
        version: v.name,
        storageVersion: storage,
        kind: names.kind ?? "",
        listKind: names.listKind ?? `${names.kind ?? ""}List`,
        plural: names.plural ?? "",
        singular: names.singular ?? (names.kind ?? "").toLowerCase(),
        shortNames: Array.isArray(names.shortNames) ? [...names.shortNames] : [],
        categories: Array.isArray(names.categories) ? [...names.categories] : [],
        namespaced: spec.scope === "Namespaced",
        schema: isObject(v.schema) && isObject(v.schema.openAPIV3Schema) ? v.schema.openAPIV3Schema : undefined,
        statusEnabled: isObject(v.subresources) && v.subresources.status !== undefined && v.subresources.status !== null,
        scale: scale
          ? {
              specReplicasPath: scale.specReplicasPath,
              statusReplicasPath: scale.statusReplicasPath,
              ...(scale.labelSelectorPath ? { labelSelectorPath: scale.labelSelectorPath } : {}),
            }
          : undefined,
        columns: Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns : [],
        selectableFields: (Array.isArray(v.selectableFields) ? v.selectableFields : []).map((f) => f.jsonPath).filter((p) => typeof p === "string"),
        deprecated: v.deprecated === true,
        deprecationWarning: v.deprecationWarning,
      };
    });
}

function dotPath(path: string): string[] {
  return path.replace(/^\./, "").split(".").filter((p) => p !== "");
}

function nested(obj: unknown, path: string): { found: boolean; value: unknown } {
  let cur: unknown = obj;
  for (const p of dotPath(path)) {
    if (!isObject(cur) || !Object.prototype.hasOwnProperty.call(cur, p)) return { found: false, value: undefined };
    cur = cur[p];
  }
  return { found: true, value: cur };
}

/** Go's %T of a decoded JSON value. */
function goType(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  return Array.isArray(v) ? "[]interface {}" : "map[string]interface {}";
}

function goValue(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return v;
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** unstructured.NestedInt64 checks of a replicas path (ValidateScaleSpec / ValidateScaleStatus). */
function validateReplicasPath(obj: KubeObject, path: string): FieldError[] {
  const { found, value } = nested(obj, path);
  if (!found) return [];
  if (typeof value !== "number" || !Number.isInteger(value)) {
    return [fieldErrors.invalid(path, 0, `${"." + dotPath(path).join(".")} accessor error: ${goValue(value)} is of the type ${goType(value)}, expected int64`)];
  }
  if (value < 0) return [fieldErrors.invalid(path, value, "should be a non-negative integer")];
  if (value > maxInt32) return [fieldErrors.invalid(path, value, `should be less than or equal to ${maxInt32}`)];
  return [];
}

function validateSelectorPath(obj: KubeObject, path: string | undefined): FieldError[] {
  if (!path) return [];
  const { found, value } = nested(obj, path);
  if (!found || typeof value === "string") return [];
  return [fieldErrors.invalid(path, "", `${"." + dotPath(path).join(".")} accessor error: ${goValue(value)} is of the type ${goType(value)}, expected string`)];
}

/** Everything but metadata (and status, when it is a subresource): what a generation bump compares. */
function generationInputs(obj: KubeObject, statusEnabled: boolean): JSONObject {
  const out: JSONObject = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === "metadata" || k === "apiVersion" || k === "kind" || (statusEnabled && k === "status")) continue;
    out[k] = v;
  }
  return out;
}

/** The selectable field values (metadata.name, metadata.namespace, and the CRD's selectableFields). */
function fieldValue(obj: KubeObject, path: string): string {
  const { found, value } = nested(obj, path);
  if (!found || value === null || value === undefined) return "";
  return typeof value === "string" ? value : String(value);
}

export function customResourceStrategy(v: CustomResourceVersion, pruned: PrunedFields, warnings: WarningSinks = new WeakMap()): ResourceStrategy {
  const schema = v.schema;
  const rules = compileRules(schema);
  /** The CEL rules after the other checks (strategy.go: skipped when an earlier error blocks). */
  const validateCEL = (obj: KubeObject, old: KubeObject | undefined, errs: FieldError[]): FieldError[] => {
    if (!rules) return errs;
    if (errs.some((e) => blockingTypes.has(e.type))) {
      errs.push(fieldErrors.invalid("<nil>", "null", "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"));
      return errs;
    }
    const r = validateRules(rules, obj, old);
    errs.push(...r.errors);
    const sink = warnings.get(obj);
    if (sink) for (const w of r.warnings) if (!sink.includes(w)) sink.push(w);
    return errs;
  };
  const validateCommon = (obj: KubeObject, old: KubeObject | undefined, status: boolean): FieldError[] => {
    const errs = validateValue(obj, schema ?? {}, old ? { old } : {});
    if (v.scale) {
      if (!status) errs.push(...validateReplicasPath(obj, v.scale.specReplicasPath));
      errs.push(...validateReplicasPath(obj, v.scale.statusReplicasPath));
      errs.push(...validateSelectorPath(obj, v.scale.labelSelectorPath));
    }
    errs.push(...validateEmbeddedResources(obj, schema));
    errs.push(...validateListSetsAndMaps(obj, schema));
    return errs;
  };
  return {
    names: {
      group: v.group,
      version: v.version,
      kind: v.kind,
      resource: v.plural,
      singular: v.singular,
      listKind: v.listKind,
      shortNames: v.shortNames,
      categories: v.categories,
      namespaced: v.namespaced,
    },
    verbs: [...standardVerbs],
    subresources: { ...(v.statusEnabled ? { status: true } : {}), ...(v.scale ? { scale: v.scale } : {}) },
    openAPIV3Schema: schema,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,

    defaults(obj) {
      const paths = prune(obj, schema, true);
      if (paths.length) pruned.set(obj, paths);
      else pruned.delete(obj);
      pruneNonNullableNulls(obj, schema);
      applyDefaults(obj, schema);
    },

    prepareForCreate(obj) {
      if (v.statusEnabled) delete obj.status;
      (obj.metadata ??= {}).generation = 1;
    },

    prepareForUpdate(obj, old) {
      const meta = (obj.metadata ??= {});
      if (old.metadata?.generation !== undefined) meta.generation = old.metadata.generation;
      else delete meta.generation;
      if (v.statusEnabled) {
        if (old.status === undefined) delete obj.status;
        else obj.status = structuredClone(old.status);
      }
      if (!jsonEqual(generationInputs(obj, v.statusEnabled), generationInputs(old, v.statusEnabled))) {
        meta.generation = (old.metadata?.generation ?? 0) + 1;
      }
    },

    prepareForStatusUpdate(obj, old) {
      const hasStatus = Object.prototype.hasOwnProperty.call(obj, "status");
      const status = obj.status;
      const managedFields = obj.metadata?.managedFields;
      for (const k of Object.keys(obj)) delete obj[k];
      Object.assign(obj, structuredClone(old));
      if (managedFields !== undefined) (obj.metadata ??= {}).managedFields = managedFields;
      if (hasStatus) obj.status = status;
      else delete obj.status;
    },

    validate(obj) {
      const errs = validateGenericObjectMeta(obj.metadata, v.namespaced, nameIsDNSSubdomain);
      errs.push(...validateCommon(obj, undefined, false));
      return validateCEL(obj, undefined, errs);
    },

    validateUpdate(obj, old) {
      const errs = validateGenericObjectMetaUpdate(obj.metadata, old.metadata);
      errs.push(...validateCommon(obj, old, false));
      return validateCEL(obj, old, errs);
    },

    validateStatusUpdate(obj, old) {
      const errs = validateGenericObjectMetaUpdate(obj.metadata, old.metadata);
      errs.push(...validateCommon(obj, old, true));
      return validateCEL(obj, old, errs);
    },

    fieldSet(obj) {
      const f: Record<string, string> = { "metadata.name": obj.metadata?.name ?? "" };
      if (v.namespaced) f["metadata.namespace"] = obj.metadata?.namespace ?? "";
      for (const p of v.selectableFields) f[p.replace(/^\./, "")] = fieldValue(obj, p);
      return f;
    },
  };
}
