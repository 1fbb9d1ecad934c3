/**
 * The server-side apply type of a custom resource version: its structural schema as
 * kube-apiserver publishes it (apiVersion and kind strings, metadata the full ObjectMeta,
 * the same implicit fields on embedded resources), converted to structured-merge-diff type
 * nodes, so that `x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and
 * `x-kubernetes-map-type` decide how applies merge lists and maps of custom resources.
 *
 * Only the shape matters here: value validations (enum, pattern, bounds, CEL) and the
 * value-validation-only junctors (allOf/anyOf/oneOf/not, which a structural schema may not use
 * to declare types) are left out.
 */
import { builtinDefinitions } from "../openapi/definitions.js";
import { V2_REF_PREFIX, type Schema as OpenAPISchema } from "../openapi/schema.js";
import { SchemaTypes, type TypeNode } from "../ssa/schema.js";
import { isObject, type Schema } from "./schema.js";

const objectMetaRef = `${V2_REF_PREFIX}io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`;

/** Shared: definitions (ObjectMeta and what it references) are converted once, lazily. */
let builtinTypes: SchemaTypes | undefined;

function listType(v: unknown): OpenAPISchema["x-kubernetes-list-type"] {
  return v === "atomic" || v === "set" || v === "map" ? v : undefined;
}

function mapType(v: unknown): OpenAPISchema["x-kubernetes-map-type"] {
  return v === "atomic" || v === "granular" ? v : undefined;
}

/** The implicit fields of a (root or embedded) Kubernetes object. */
function withObjectFields(s: OpenAPISchema, replaceMetadata: boolean): OpenAPISchema {
  const props = { ...(s.properties ?? {}) };
  props.apiVersion ??= { type: "string" };
  props.kind ??= { type: "string" };
  if (replaceMetadata || !props.metadata) props.metadata = { $ref: objectMetaRef };
  return { ...s, type: s.type ?? "object", properties: props };
}

/** The shape-bearing part of a CRD schema node, in the OpenAPI form SchemaTypes reads. */
function shapeOf(s: Schema): OpenAPISchema {
  const out: OpenAPISchema = {};
  if (typeof s.type === "string") out.type = s.type;
  if (Array.isArray(s.required)) out.required = s.required.filter((r): r is string => typeof r === "string");
  if (isObject(s.properties)) {
    const props: Record<string, OpenAPISchema> = {};
    for (const [name, p] of Object.entries(s.properties)) if (isObject(p)) props[name] = shapeOf(p);
    out.properties = props;
  }
  if (isObject(s.additionalProperties)) out.additionalProperties = shapeOf(s.additionalProperties);
  // A structural schema has one items schema; the tuple form is not allowed in v1 CRDs.
  if (isObject(s.items)) out.items = shapeOf(s.items);
  const lt = listType(s["x-kubernetes-list-type"]);
  if (lt) out["x-kubernetes-list-type"] = lt;
  if (Array.isArray(s["x-kubernetes-list-map-keys"])) {
    out["x-kubernetes-list-map-keys"] = s["x-kubernetes-list-map-keys"].filter((k): k is string => typeof k === "string");
  }
  const mt = mapType(s["x-kubernetes-map-type"]);
  if (mt) out["x-kubernetes-map-type"] = mt;
  if (s["x-kubernetes-preserve-unknown-fields"] === true) out["x-kubernetes-preserve-unknown-fields"] = true;
  if (s["x-kubernetes-int-or-string"] === true) out["x-kubernetes-int-or-string"] = true;
  if (s["x-kubernetes-embedded-resource"] === true) return withObjectFields(out, false);
  return out;
}

/** The published (OpenAPI) object schema of a custom resource version, shape only. */
export function publishedShape(schema: Schema | undefined): OpenAPISchema {
  const base: OpenAPISchema = schema ? shapeOf(schema) : { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  // As kube-apiserver publishes CRD schemas: metadata is ObjectMeta whatever the CRD says.
  return withObjectFields(base, true);
}

/** The server-side apply type of a custom resource version with this openAPIV3Schema. */
export function customResourceType(schema: Schema | undefined): TypeNode {
  builtinTypes ??= new SchemaTypes(builtinDefinitions());
  return builtinTypes.convert(publishedShape(schema));
}
