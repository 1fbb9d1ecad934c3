/** Response conversions chosen by the Accept header: Table and PartialObjectMetadata. */
import type { ListMeta } from "../../apimachinery/api/meta/v1.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeList, KubeObject } from "../../apimachinery/types.js";
import type { ResourceStore } from "../rest/store.js";
import type { HandlerEnv, IncludeObject } from "./env.js";
import { PROTOBUF_MEDIA_TYPE, type ObjectRepresentation } from "./negotiate.js";

export function includeObjectOf(q: URLSearchParams): IncludeObject {
  const v = q.get("includeObject") ?? "";
  if (v === "") return "Metadata";
  if (v === "None" || v === "Metadata" || v === "Object") return v;
  throw StatusError.badRequest(`includeObject: Unsupported value: ${JSON.stringify(v)}: supported values: "Metadata", "None", "Object"`);
}

export function contentTypeFor(rep: ObjectRepresentation): string {
  switch (rep.kind) {
    case "json":
      return "application/json";
    case "protobuf":
      return PROTOBUF_MEDIA_TYPE;
    case "table":
      return `application/json;as=Table;v=${rep.version};g=meta.k8s.io`;
    case "partial":
      // Upstream names the serializer's media type alone for protobuf answers.
      return rep.protobuf ? PROTOBUF_MEDIA_TYPE : `application/json;as=PartialObjectMetadata;v=${rep.version};g=meta.k8s.io`;
  }
}

export function toTableObject(
  env: HandlerEnv,
  store: ResourceStore,
  objects: KubeObject[],
  include: IncludeObject,
  version: "v1" | "v1beta1",
  listMeta: ListMeta,
): object {
  if (!env.toTable) throw StatusError.internalError(new Error("table conversion is not available"));
  const t = env.toTable({ group: store.gk.group, kind: store.gk.kind }, objects, { includeObject: include, now: env.clock.now() }) as Record<string, unknown>;
  return { ...t, apiVersion: `meta.k8s.io/${version}`, metadata: listMeta };
}

function partialOf(obj: KubeObject, version: string): object {
  return { kind: "PartialObjectMetadata", apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

/** One object in the negotiated representation. */
export function renderObject(env: HandlerEnv, store: ResourceStore, obj: KubeObject, rep: ObjectRepresentation, include: IncludeObject): object {
  switch (rep.kind) {
    case "json":
    case "protobuf":
      return obj;
    case "table":
      return toTableObject(env, store, [obj], include, rep.version, { resourceVersion: obj.metadata?.resourceVersion });
    case "partial":
      return partialOf(obj, rep.version);
  }
}

export function renderList(env: HandlerEnv, store: ResourceStore, list: KubeList, rep: ObjectRepresentation, include: IncludeObject): object {
  switch (rep.kind) {
    case "json":
    case "protobuf":
      return list;
    case "table":
      return toTableObject(env, store, list.items, include, rep.version, list.metadata ?? {});
    case "partial":
      return {
        kind: "PartialObjectMetadataList",
        apiVersion: `meta.k8s.io/${rep.version}`,
        metadata: list.metadata,
        items: list.items.map((o) => partialOf(o, rep.version)),
      };
  }
}
