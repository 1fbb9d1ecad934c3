/**
 * Renders routes and definitions as a Swagger 2.0 document (/openapi/v2) and as OpenAPI 3.0
 * group-version documents (/openapi/v3/<gv>), in kube-apiserver's shapes.
 */
import type { ParameterSpec } from "./parameters.js";
import { PATCH, tagFor, type Operation, type Payload, type Route } from "./routes.js";
import { V2_REF_PREFIX, V3_REF_PREFIX, refName, type Definitions, type Schema } from "./schema.js";

const INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
const QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity";

const JSON_TYPES = ["application/json", "application/yaml"];
const PROTOBUF = "application/vnd.kubernetes.protobuf";
const PATCH_TYPES = ["application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml"];

function producesOf(op: Operation): string[] {
  const types = op.protobuf ? [...JSON_TYPES, PROTOBUF] : [...JSON_TYPES];
  if (op.streaming) types.push("application/json;stream=watch", ...(op.protobuf ? [`${PROTOBUF};stream=watch`] : []));
  return types.sort();
}

function patchTypesOf(op: Operation): string[] {
  return PATCH_TYPES.filter((t) => op.strategicMerge || t !== "application/strategic-merge-patch+json").sort();
}

/** Every definition name the routes reference (request and response bodies). */
export function routeRoots(routes: readonly Route[]): Set<string> {
  const roots = new Set<string>();
  for (const r of routes) {
    for (const op of r.operations) {
      if (op.body) roots.add(op.body);
      for (const resp of op.responses) if ("definition" in resp.payload) roots.add(resp.payload.definition);
    }
  }
  return roots;
}

// ------------------------------------------------------------------------------ Swagger 2.0

function v2Param(p: ParameterSpec): Record<string, unknown> {
  const out: Record<string, unknown> = { uniqueItems: true, type: p.type, description: p.description, name: p.name, in: p.in };
  if (p.required) out.required = true;
  return out;
}

function v2Payload(p: Payload): Schema {
  return "definition" in p ? { $ref: `${V2_REF_PREFIX}${p.definition}` } : { type: "string" };
}

function v2Operation(op: Operation, tag: string): Record<string, unknown> {
  const parameters: Array<Record<string, unknown>> = [];
  if (op.body) parameters.push({ name: "body", in: "body", required: op.body !== "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions", schema: { $ref: `${V2_REF_PREFIX}${op.body}` } });
  parameters.push(...op.query.map(v2Param));
  const responses: Record<string, unknown> = {};
  for (const r of op.responses) responses[r.code] = { description: r.description, schema: v2Payload(r.payload) };
  responses["401"] = { description: "Unauthorized" };
  const out: Record<string, unknown> = {
    description: op.description,
    consumes: op.body === PATCH ? patchTypesOf(op) : ["*/*"],
    produces: op.responses.some((r) => "text" in r.payload) ? ["text/plain", "application/json", "application/yaml", PROTOBUF] : producesOf(op),
    schemes: ["https"],
    tags: [tag],
    operationId: op.operationId,
    responses,
    "x-kubernetes-action": op.action,
    "x-kubernetes-group-version-kind": op.gvk,
  };
  if (parameters.length > 0) out.parameters = parameters;
  return out;
}

export function v2Paths(routes: readonly Route[], group: string, version: string): Record<string, unknown> {
  const tag = tagFor(group, version);
  const paths: Record<string, unknown> = {};
  for (const route of routes) {
    const item: Record<string, unknown> = {};
    for (const op of route.operations) item[op.method] = v2Operation(op, tag);
    if (route.parameters.length > 0) item.parameters = route.parameters.map(v2Param);
    paths[route.path] = item;
  }
  return paths;
}

/** Definitions as served in /openapi/v2 (the generated form, with the named scalars' v2 shapes). */
export function v2Definitions(defs: Definitions, names: readonly string[]): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const n of names) out[n] = defs[n]!;
  return out;
}

// ------------------------------------------------------------------------------ OpenAPI 3.0

/**
 * A v2 schema in v3 form: "#/definitions/" references become "#/components/schemas/"; a
 * reference with sibling keywords (description, default, extensions) is wrapped in allOf, as
 * OpenAPI 3.0 ignores siblings of $ref and kube-openapi publishes them so.
 */
export function toV3Schema(s: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === "$ref") continue;
    if (k === "properties" && v && typeof v === "object") {
      out.properties = Object.fromEntries(Object.entries(v as Record<string, Schema>).map(([pk, pv]) => [pk, toV3Schema(pv)]));
    } else if ((k === "items" || k === "additionalProperties" || k === "not") && v && typeof v === "object") {
      (out as Record<string, unknown>)[k] = toV3Schema(v as Schema);
    } else if ((k === "allOf" || k === "oneOf" || k === "anyOf") && Array.isArray(v)) {
      (out as Record<string, unknown>)[k] = (v as Schema[]).map(toV3Schema);
    } else {
      (out as Record<string, unknown>)[k] = v;
    }
  }
  if (s.$ref === undefined) return out;
  const ref = { $ref: `${V3_REF_PREFIX}${refName(s.$ref)}` };
  if (Object.keys(out).length === 0) return ref;
  return { allOf: [ref], ...out };
}

/** The v3 form of a named definition (IntOrString and Quantity are unions in v3). */
export function v3Definition(name: string, def: Schema): Schema {
  if (name === INT_OR_STRING) {
    return { description: def.description, format: "int-or-string", oneOf: [{ type: "integer" }, { type: "string" }] };
  }
  if (name === QUANTITY) {
    return { description: def.description, oneOf: [{ type: "string" }, { type: "number" }] };
  }
  return toV3Schema(def);
}

function v3Param(p: ParameterSpec): Record<string, unknown> {
  const out: Record<string, unknown> = { name: p.name, in: p.in, description: p.description, schema: { type: p.type, uniqueItems: true } };
  if (p.required) out.required = true;
  return out;
}

function v3Content(types: readonly string[], schema: Schema): Record<string, unknown> {
  return Object.fromEntries(types.map((t) => [t, { schema }]));
}

function v3Payload(p: Payload): Schema {
  return "definition" in p ? { $ref: `${V3_REF_PREFIX}${p.definition}` } : { type: "string" };
}

function v3Operation(op: Operation, tag: string): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const r of op.responses) {
    const types = "text" in r.payload ? ["text/plain", ...JSON_TYPES, ...(op.protobuf ? [PROTOBUF] : [])].sort() : producesOf(op);
    responses[r.code] = { description: r.description, content: v3Content(types, v3Payload(r.payload)) };
  }
  const out: Record<string, unknown> = { tags: [tag], description: op.description, operationId: op.operationId };
  if (op.query.length > 0) out.parameters = op.query.map(v3Param);
  if (op.body) {
    const schema = { $ref: `${V3_REF_PREFIX}${op.body}` };
    const types = op.body === PATCH ? patchTypesOf(op) : ["*/*"];
    out.requestBody = { content: v3Content(types, schema), ...(op.method === "delete" ? {} : { required: true }) };
  }
  out.responses = responses;
  out["x-kubernetes-action"] = op.action;
  out["x-kubernetes-group-version-kind"] = op.gvk;
  return out;
}

export function v3Paths(routes: readonly Route[], group: string, version: string): Record<string, unknown> {
  const tag = tagFor(group, version);
  const paths: Record<string, unknown> = {};
  for (const route of routes) {
    const item: Record<string, unknown> = {};
    for (const op of route.operations) item[op.method] = v3Operation(op, tag);
    if (route.parameters.length > 0) item.parameters = route.parameters.map(v3Param);
    paths[route.path] = item;
  }
  return paths;
}

export const BEARER_TOKEN = { type: "apiKey", description: "Bearer Token authentication", name: "authorization", in: "header" };
