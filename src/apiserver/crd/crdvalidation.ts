/**
 * Validation of CustomResourceDefinition objects (apiextensions validation.go for v1 CRDs):
 * metadata.name must be `<plural>.<group>`, the group a DNS subdomain with a dot, scope
 * Cluster or Namespaced, names DNS-1035 labels (kinds in mixed case), at least one version,
 * exactly one storage version, unique version names, a structural schema for every version,
 * scale paths under .spec / .status, printer columns with known types, stored versions that
 * are still listed, approval annotation for *.k8s.io groups; on update group and plural are
 * immutable, and scope and kind too once the CRD is established.
 */
import { FieldError, fieldErrors } from "../../apimachinery/fielderrors.js";
import { isDNS1035Label, isDNS1123Subdomain, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { validateImmutableField } from "../registry/meta.js";
import { validateWebhookService, validateWebhookURL } from "../registry/admissionwebhooks.js";
import { invalidSlice } from "../registry/admissionrules.js";
import { decodePEMBlocks } from "../auth/csr.js";
import { validateVersionSchema } from "./schemavalidation.js";
import { validateGenericObjectMeta, validateGenericObjectMetaUpdate } from "./structure.js";
import { isObject, jsonEqual, type Schema } from "./schema.js";
import { isConditionTrue, namesOf, specOf, statusOf, versionsOf, type CRDVersion } from "./types.js";

const printerColumnTypes = ["boolean", "date", "integer", "number", "string"];
const printerColumnFormats = ["byte", "date", "date-time", "double", "float", "int32", "int64", "password"];
const approvalAnnotation = "api-approved.kubernetes.io";

function validateEnumString(field: string, value: unknown, accepted: string[]): FieldError[] {
  if (value === undefined || value === "") return [fieldErrors.required(field, "")];
  if (typeof value !== "string" || !accepted.includes(value)) return [fieldErrors.notSupported(field, value, accepted)];
  return [];
}

/** ValidateCustomResourceDefinitionNames (spec.names and status.acceptedNames). */
export function validateNames(names: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(names)) return errs;
  const str = (k: string) => (typeof names[k] === "string" ? (names[k] as string) : "");
  const plural = str("plural");
  const singular = str("singular");
  const kind = str("kind");
  const listKind = str("listKind");
  if (plural) {
    const e = isDNS1035Label(plural);
    if (e.length) errs.push(fieldErrors.invalid(`${path}.plural`, plural, e.join(",")));
  }
  if (singular) {
    const e = isDNS1035Label(singular);
    if (e.length) errs.push(fieldErrors.invalid(`${path}.singular`, singular, e.join(",")));
  }
  if (kind) {
    const e = isDNS1035Label(kind.toLowerCase());
    if (e.length) errs.push(fieldErrors.invalid(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${e.join(",")}`));
  }
  if (listKind) {
    const e = isDNS1035Label(listKind.toLowerCase());
    if (e.length) errs.push(fieldErrors.invalid(`${path}.listKind`, listKind, `may have mixed case, but should otherwise match: ${e.join(",")}`));
  }
  const list = (k: string) => (Array.isArray(names[k]) ? (names[k] as unknown[]) : []);
  list("shortNames").forEach((s, i) => {
    const e = isDNS1035Label(String(s));
    if (e.length) errs.push(fieldErrors.invalid(`${path}.shortNames[${i}]`, s, e.join(",")));
  });
  if (kind && kind === listKind) errs.push(fieldErrors.invalid(`${path}.listKind`, listKind, "kind and listKind may not be the same"));
  list("categories").forEach((c, i) => {
    const e = isDNS1035Label(String(c));
    if (e.length) errs.push(fieldErrors.invalid(`${path}.categories[${i}]`, c, e.join(",")));
  });
  return errs;
}

function validateSimpleJSONPath(s: string, field: string): FieldError[] {
  if (s.length === 0) return [fieldErrors.invalid(field, s, "must not be empty")];
  if (s[0] !== ".") return [fieldErrors.invalid(field, s, "must be a simple json path starting with .")];
  return [];
}

function validateSubresources(sub: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(sub) || !isObject(sub.scale)) return errs;
  const scale = sub.scale;
  const spec = typeof scale.specReplicasPath === "string" ? scale.specReplicasPath : "";
  if (spec === "") errs.push(fieldErrors.required(`${path}.scale.specReplicasPath`, ""));
  else {
    const e = validateSimpleJSONPath(spec, `${path}.scale.specReplicasPath`);
    if (e.length) errs.push(...e);
    else if (!spec.startsWith(".spec.")) errs.push(fieldErrors.invalid(`${path}.scale.specReplicasPath`, spec, "should be a json path under .spec"));
  }
  const status = typeof scale.statusReplicasPath === "string" ? scale.statusReplicasPath : "";
  if (status === "") errs.push(fieldErrors.required(`${path}.scale.statusReplicasPath`, ""));
  else {
    const e = validateSimpleJSONPath(status, `${path}.scale.statusReplicasPath`);
    if (e.length) errs.push(...e);
    else if (!status.startsWith(".status.")) errs.push(fieldErrors.invalid(`${path}.scale.statusReplicasPath`, status, "should be a json path under .status"));
  }
  const sel = typeof scale.labelSelectorPath === "string" ? scale.labelSelectorPath : "";
  if (sel !== "") {
    const e = validateSimpleJSONPath(sel, `${path}.scale.labelSelectorPath`);
    if (e.length) errs.push(...e);
    else if (!sel.startsWith(".spec.") && !sel.startsWith(".status.")) {
      errs.push(fieldErrors.invalid(`${path}.scale.labelSelectorPath`, sel, "should be a json path under either .spec or .status"));
    }
  }
  return errs;
}

function validateColumn(col: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const c = isObject(col) ? col : {};
  if (typeof c.name !== "string" || c.name === "") errs.push(fieldErrors.required(`${path}.name`, ""));
  const type = typeof c.type === "string" ? c.type : "";
  if (type === "") errs.push(fieldErrors.required(`${path}.type`, `must be one of ${printerColumnTypes.join(",")}`));
  else if (!printerColumnTypes.includes(type)) errs.push(fieldErrors.invalid(`${path}.type`, type, `must be one of ${printerColumnTypes.join(",")}`));
  if (typeof c.format === "string" && c.format !== "" && !printerColumnFormats.includes(c.format)) {
    errs.push(fieldErrors.invalid(`${path}.format`, c.format, `must be one of ${printerColumnFormats.join(",")}`));
  }
  const jp = typeof c.jsonPath === "string" ? c.jsonPath : "";
  if (jp === "") errs.push(fieldErrors.required(`${path}.JSONPath`, ""));
  else errs.push(...validateSimpleJSONPath(jp, `${path}.JSONPath`));
  return errs;
}

/** The schema node a selectable field's path points at, or an error text. */
function resolveSelectable(path: string, schema: Schema | undefined): Schema | string {
  if (!path.startsWith(".")) return "must start with '.'";
  let cur = schema;
  for (const part of path.slice(1).split(".")) {
    if (part === "" || /[[\]]/.test(part)) return "array notation is not allowed";
    const next: Schema | undefined = isObject(cur?.properties) ? (cur.properties[part] as Schema | undefined) : undefined;
    if (!next) return `does not refer to a valid field`;
    cur = next;
  }
  return cur ?? "does not refer to a valid field";
}

function validateSelectableFields(fields: unknown, schema: Schema | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(fields)) return errs;
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const p = `${path}[${i}].jsonPath`;
    const jp = isObject(f) && typeof f.jsonPath === "string" ? f.jsonPath : "";
    if (jp === "") {
      errs.push(fieldErrors.required(p, ""));
      return;
    }
    const target = resolveSelectable(jp, schema);
    if (typeof target === "string") {
      errs.push(fieldErrors.invalid(p, jp, `is an invalid path: ${target}`));
      return;
    }
    if (jp.split(".")[1] === "metadata") errs.push(fieldErrors.invalid(p, jp, "must not point to fields in metadata"));
    if (target.type !== "string" && target.type !== "boolean" && target.type !== "integer") {
      errs.push(fieldErrors.invalid(p, jp, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."));
    }
    if (seen.has(jp)) errs.push(fieldErrors.duplicate(p, jp));
    seen.add(jp);
  });
  if (seen.size > 8) errs.push(fieldErrors.tooMany(path, seen.size, 8));
  return errs;
}

function validateDeprecationWarning(v: CRDVersion): string[] {
  if (!v.deprecated && v.deprecationWarning !== undefined) return ["can only be set for deprecated versions"];
  if (v.deprecationWarning === undefined) return [];
  const w = String(v.deprecationWarning);
  const out: string[] = [];
  if (w.length > 256) out.push("must be <= 256 characters long");
  if (w.length === 0) out.push("must not be an empty string");
  const bad = [...w].findIndex((ch) => /[\p{Cc}]/u.test(ch));
  if (bad >= 0) out.push(`must only contain printable UTF-8 characters; control character found at index ${bad}`);
  return out;
}

/**
 * `schemaPath` is where the version's schema errors are reported: "spec.validation" when every
 * version has the same schema (upstream's internal form then holds it once, at spec.validation),
 * else "spec.versions[i].schema".
 */
function validateVersion(v: CRDVersion, path: string, schemaPath = `${path}.schema`): FieldError[] {
  const errs: FieldError[] = [];
  for (const msg of validateDeprecationWarning(v)) errs.push(fieldErrors.invalid(`${path}.deprecationWarning`, v.deprecationWarning, msg));
  const statusEnabled = isObject(v.subresources) && v.subresources.status !== undefined && v.subresources.status !== null;
  errs.push(...validateVersionSchema(v.schema, statusEnabled, schemaPath));
  errs.push(...validateSubresources(v.subresources, `${path}.subresources`));
  (Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns : []).forEach((c, i) =>
    errs.push(...validateColumn(c, `${path}.additionalPrinterColumns[${i}]`)),
  );
  if (Array.isArray(v.selectableFields) && v.selectableFields.length > 0) {
    const schema = v.schema?.openAPIV3Schema;
    if (!isObject(schema)) {
      errs.push(fieldErrors.invalid(`${path}.selectableFields`, "", "selectableFields may only be set when version.schema.openAPIV3Schema is not included"));
    } else errs.push(...validateSelectableFields(v.selectableFields, schema, `${path}.selectableFields`));
  }
  return errs;
}

interface SpecOptions {
  /** Create, or an update of a CRD not yet established or whose CA bundle was already invalid. */
  allowInvalidCABundle: boolean;
  /** conversionReviewVersions must name one this server speaks (unless the stored CRD did not). */
  requireRecognizedConversionReviewVersion: boolean;
}

const acceptedConversionReviewVersions = ["v1", "v1beta1"];

/** cert.ParseCertsPEM as ValidateCABundle uses it. */
function caBundleErrors(caBundle: string, field: string): FieldError[] {
  const pem = Buffer.from(caBundle, "base64").toString("utf8");
  if (decodePEMBlocks(pem).some((b) => b.type === "CERTIFICATE")) return [];
  return [fieldErrors.invalid(field, caBundle, "data does not contain any valid RSA or ECDSA certificates")];
}

function validCABundleOrEmpty(caBundle: unknown): boolean {
  return typeof caBundle !== "string" || caBundle === "" || caBundleErrors(caBundle, "").length === 0;
}

/**
 * validateCustomResourceConversion, on v1's shape: paths name the internal fields
 * (spec.conversion.webhookClientConfig, spec.conversion.conversionReviewVersions) as upstream.
 */
function validateConversion(conv: unknown, opts: SpecOptions): FieldError[] {
  if (conv === undefined || conv === null) return [];
  const c = isObject(conv) ? conv : {};
  const errs = validateEnumString("spec.conversion.strategy", c.strategy, ["None", "Webhook"]);
  const webhook = isObject(c.webhook) ? c.webhook : undefined;
  const cc = webhook && isObject(webhook.clientConfig) ? webhook.clientConfig : undefined;
  const versions = webhook && Array.isArray(webhook.conversionReviewVersions) ? webhook.conversionReviewVersions : [];
  const base = "spec.conversion.webhookClientConfig";
  if (c.strategy === "Webhook") {
    if (!cc) errs.push(fieldErrors.required(base, "required when strategy is set to Webhook"));
    else {
      const url = typeof cc.url === "string" ? cc.url : undefined;
      const service = isObject(cc.service) ? cc.service : undefined;
      if ((url === undefined) === (service === undefined)) errs.push(fieldErrors.required(base, "exactly one of url or service is required"));
      else if (url !== undefined) errs.push(...validateWebhookURL(url, `${base}.url`));
      else if (service) errs.push(...validateWebhookService(service, `${base}.service`));
      if (typeof cc.caBundle === "string" && cc.caBundle !== "" && !opts.allowInvalidCABundle) errs.push(...caBundleErrors(cc.caBundle, `${base}.caBundle`));
    }
    const vpath = "spec.conversion.conversionReviewVersions";
    if (versions.length < 1) errs.push(fieldErrors.required(vpath, ""));
    else {
      const seen = new Set<unknown>();
      let accepted = false;
      versions.forEach((v, i) => {
        if (seen.has(v)) {
          errs.push(fieldErrors.invalid(`${vpath}[${i}]`, v, "duplicate version"));
          return;
        }
        seen.add(v);
        for (const e of isDNS1035Label(String(v))) errs.push(fieldErrors.invalid(`${vpath}[${i}]`, v, e));
        if (acceptedConversionReviewVersions.includes(String(v))) accepted = true;
      });
      if (opts.requireRecognizedConversionReviewVersion && !accepted) {
        errs.push(invalidSlice(vpath, versions.map(String), `must include at least one of ${acceptedConversionReviewVersions.join(", ")}`));
      }
    }
  } else {
    if (cc) errs.push(fieldErrors.forbidden(base, "should not be set when strategy is not set to Webhook"));
    if (versions.length > 0) errs.push(fieldErrors.forbidden("spec.conversion.conversionReviewVersions", "should not be set when strategy is not set to Webhook"));
  }
  return errs;
}

function validateSpec(obj: KubeObject, opts: SpecOptions): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(obj);
  const group = typeof spec.group === "string" ? spec.group : "";
  if (group === "") errs.push(fieldErrors.required("spec.group", ""));
  else {
    const e = isDNS1123Subdomain(group);
    if (e.length) errs.push(fieldErrors.invalid("spec.group", group, e.join(",")));
    else if (group.split(".").length < 2) errs.push(fieldErrors.invalid("spec.group", group, "should be a domain with at least one dot"));
  }
  errs.push(...validateEnumString("spec.scope", spec.scope, ["Cluster", "Namespaced"]));
  const versions = versionsOf(obj);
  versions.forEach((v, i) => {
    if (!isObject(v.schema) || !isObject(v.schema.openAPIV3Schema)) {
      errs.push(fieldErrors.required(`spec.versions[${i}].schema.openAPIV3Schema`, "schemas are required"));
    }
  });
  if (spec.preserveUnknownFields === true) {
    // v1 only keeps preserveUnknownFields for CRDs migrated from v1beta1.
    errs.push(fieldErrors.invalid("spec.preserveUnknownFields", true, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"));
  }
  let storage = 0;
  const seen = new Set<string>();
  let unique = true;
  const sharedSchema = versions.length > 0 && versions.every((v) => jsonEqual(v.schema, versions[0].schema));
  let sharedReported = false;
  versions.forEach((v, i) => {
    if (v.storage === true) storage++;
    const name = typeof v.name === "string" ? v.name : "";
    if (seen.has(name)) unique = false;
    seen.add(name);
    const e = isDNS1035Label(name);
    if (e.length) errs.push(fieldErrors.invalid(`spec.versions[${i}].name`, name, e.join(",")));
    if (sharedSchema) {
      // The shared schema is validated (and reported) once, at spec.validation.
      errs.push(...validateVersion(sharedReported ? { ...v, schema: undefined } : v, `spec.versions[${i}]`, "spec.validation"));
      sharedReported = true;
    } else errs.push(...validateVersion(v, `spec.versions[${i}]`));
  });
  if (versions.length === 0) errs.push(fieldErrors.invalid("spec.versions", [], "must have exactly one version marked as storage version"));
  if (!unique) errs.push(fieldErrors.invalid("spec.versions", specOf(obj).versions, "must contain unique version names"));
  if (versions.length > 0 && storage !== 1) errs.push(fieldErrors.invalid("spec.versions", specOf(obj).versions, "must have exactly one version marked as storage version"));
  const names = namesOf(obj);
  for (const k of ["plural", "singular", "kind", "listKind"] as const) {
    if (typeof names[k] !== "string" || names[k] === "") errs.push(fieldErrors.required(`spec.names.${k}`, ""));
  }
  errs.push(...validateNames(spec.names, "spec.names"));
  errs.push(...validateConversion(spec.conversion, opts));
  return errs;
}

/** ValidateCustomResourceDefinitionStoredVersions. */
function validateStoredVersions(obj: KubeObject): FieldError[] {
  const stored = statusOf(obj).storedVersions;
  const list = Array.isArray(stored) ? stored : [];
  if (list.length === 0) return [fieldErrors.invalid("status.storedVersions", list, "must have at least one stored version")];
  const errs: FieldError[] = [];
  const remaining = new Map<string, number>();
  list.forEach((v, i) => remaining.set(v, i));
  for (const v of versionsOf(obj)) {
    const has = remaining.has(v.name);
    if (v.storage === true && !has) errs.push(fieldErrors.invalid("status.storedVersions", list, `must have the storage version ${v.name}`));
    remaining.delete(v.name);
  }
  for (const [v, i] of remaining) {
    errs.push(
      fieldErrors.invalid(
        `status.storedVersions[${i}]`,
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  }
  return errs;
}

type ApprovalState = "missing" | "invalid" | "approved" | "bypassed";

function approvalState(annotations: Record<string, string> | undefined): ApprovalState {
  const v = annotations?.[approvalAnnotation];
  if (v === undefined) return "missing";
  if (v.startsWith("unapproved")) return "bypassed";
  try {
    const u = new URL(v);
    return u.protocol === "http:" || u.protocol === "https:" ? "approved" : "invalid";
  } catch {
    return "invalid";
  }
}

/** validateAPIApproval: groups under k8s.io and kubernetes.io need the approval annotation. */
function validateAPIApproval(obj: KubeObject, old: KubeObject | undefined): FieldError[] {
  const group = String(specOf(obj).group ?? "");
  const isProtected = group === "k8s.io" || group.endsWith(".k8s.io") || group === "kubernetes.io" || group.endsWith(".kubernetes.io");
  if (!isProtected) return [];
  const state = approvalState(obj.metadata?.annotations);
  if (old && approvalState(old.metadata?.annotations) === state) return [];
  const field = `metadata.annotations[${approvalAnnotation}]`;
  if (state === "missing") {
    return [fieldErrors.required(field, `protected groups must have approval annotation "${approvalAnnotation}", see https://github.com/kubernetes/enhancements/pull/1111`)];
  }
  if (state === "invalid") {
    return [
      fieldErrors.invalid(
        field,
        obj.metadata?.annotations?.[approvalAnnotation],
        `protected groups must have approval annotation "${approvalAnnotation}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
      ),
    ];
  }
  return [];
}

/** ValidateCustomResourceDefinition (create). */
export function validateCRD(obj: KubeObject): FieldError[] {
  const names = namesOf(obj);
  const required = `${names.plural ?? ""}.${specOf(obj).group ?? ""}`;
  const errs = validateGenericObjectMeta(obj.metadata, false, (name, prefix) => {
    const out = nameIsDNSSubdomain(name, prefix);
    if (name !== required) out.push(`must be spec.names.plural+"."+spec.group`);
    return out;
  });
  errs.push(...validateSpec(obj, { allowInvalidCABundle: true, requireRecognizedConversionReviewVersion: true }));
  errs.push(...validateNames(statusOf(obj).acceptedNames, "status.acceptedNames"));
  errs.push(...validateStoredVersions(obj));
  errs.push(...validateAPIApproval(obj, undefined));
  return errs;
}

/** ValidateCustomResourceDefinitionUpdate. */
export function validateCRDUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateGenericObjectMetaUpdate(obj.metadata, old.metadata);
  const oldConv = specOf(old).conversion as { webhook?: { clientConfig?: { caBundle?: unknown }; conversionReviewVersions?: unknown } } | undefined;
  const oldVersions = Array.isArray(oldConv?.webhook?.conversionReviewVersions) ? (oldConv.webhook.conversionReviewVersions as unknown[]) : [];
  errs.push(
    ...validateSpec(obj, {
      allowInvalidCABundle: !isConditionTrue(old, "Established") || !validCABundleOrEmpty(oldConv?.webhook?.clientConfig?.caBundle),
      requireRecognizedConversionReviewVersion: oldVersions.length === 0 || oldVersions.some((v) => acceptedConversionReviewVersions.includes(String(v))),
    }),
  );
  const spec = specOf(obj);
  const oldSpec = specOf(old);
  if (isConditionTrue(old, "Established")) {
    errs.push(...validateImmutableField(spec.scope, oldSpec.scope, "spec.scope"));
    errs.push(...validateImmutableField(namesOf(obj).kind, namesOf(old).kind, "spec.names.kind"));
  }
  errs.push(...validateImmutableField(spec.group, oldSpec.group, "spec.group"));
  errs.push(...validateImmutableField(namesOf(obj).plural, namesOf(old).plural, "spec.names.plural"));
  errs.push(...validateNames(statusOf(obj).acceptedNames, "status.acceptedNames"));
  errs.push(...validateStoredVersions(obj));
  errs.push(...validateAPIApproval(obj, old));
  return errs;
}

/** ValidateUpdateCustomResourceDefinitionStatus. */
export function validateCRDStatusUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateGenericObjectMetaUpdate(obj.metadata, old.metadata);
  errs.push(...validateNames(statusOf(obj).acceptedNames, "status.acceptedNames"));
  return errs;
}
