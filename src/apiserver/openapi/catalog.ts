/**
 * The definitions of one served resource set: the built-in definitions plus a definition per
 * custom resource kind (and its list), named as kube-apiserver names CRD schemas
 * (group reversed: stable.example.com/v1 CronTab → com.example.stable.v1.CronTab).
 */
import { builtinDefinitions, definitionNameForKind } from "./definitions.js";
import type { ResourceDefinitions } from "./routes.js";
import { V2_REF_PREFIX, type Definitions, type Schema } from "./schema.js";
import type { ServedResource } from "./types.js";

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
const API_VERSION_DOC =
  "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
const KIND_DOC =
  "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
const METADATA_DOC =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const LIST_METADATA_DOC =
  "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

export function customDefinitionName(group: string, version: string, kind: string): string {
  const reversed = group.split(".").reverse().join(".");
  return `${reversed}.${version}.${kind}`;
}

export interface Catalog {
  definitions: Definitions;
  definitionsOf(r: ServedResource): ResourceDefinitions;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function customObjectSchema(r: ServedResource): Schema {
  const provided = isSchema(r.openAPIV3Schema) ? r.openAPIV3Schema : undefined;
  const base: Schema = provided ? { ...provided } : { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  // As kube-apiserver does for CRD schemas: the implicit fields are always documented, and
  // metadata is the full ObjectMeta whatever the CRD says about name/generateName.
  base.properties = {
    ...(base.properties ?? {}),
    apiVersion: { type: "string", description: API_VERSION_DOC },
    kind: { type: "string", description: KIND_DOC },
    metadata: { $ref: `${V2_REF_PREFIX}${META}.ObjectMeta`, description: METADATA_DOC },
  };
  base.type ??= "object";
  base["x-kubernetes-group-version-kind"] = [{ group: r.group, kind: r.kind, version: r.version }];
  return base;
}

function customListSchema(r: ServedResource, objectName: string): Schema {
  return {
    description: `${r.listKind} is a list of ${r.kind}`,
    properties: {
      apiVersion: { type: "string", description: API_VERSION_DOC },
      items: {
        type: "array",
        items: { $ref: `${V2_REF_PREFIX}${objectName}` },
        description: `List of ${r.resource}. More info: https://git.k8s.io/community/contributors/devel/api-conventions.md`,
      },
      kind: { type: "string", description: KIND_DOC },
      metadata: { $ref: `${V2_REF_PREFIX}${META}.ListMeta`, description: LIST_METADATA_DOC },
    },
    required: ["items"],
    type: "object",
    "x-kubernetes-group-version-kind": [{ group: r.group, kind: r.listKind, version: r.version }],
  };
}

export function buildCatalog(resources: readonly ServedResource[]): Catalog {
  const builtin = builtinDefinitions();
  const extra: Record<string, Schema> = {};
  const names = new Map<ServedResource, ResourceDefinitions>();
  for (const r of resources) {
    const object = definitionNameForKind({ group: r.group, version: r.version, kind: r.kind });
    const list = definitionNameForKind({ group: r.group, version: r.version, kind: r.listKind });
    if (object && list) {
      names.set(r, { object, list, builtin: true });
      continue;
    }
    const objectName = customDefinitionName(r.group, r.version, r.kind);
    const listName = customDefinitionName(r.group, r.version, r.listKind);
    extra[objectName] = customObjectSchema(r);
    extra[listName] = customListSchema(r, objectName);
    names.set(r, { object: objectName, list: listName, builtin: false });
  }
  const definitions = Object.keys(extra).length === 0 ? builtin : { ...builtin, ...extra };
  return {
    definitions,
    definitionsOf(r) {
      const n = names.get(r);
      if (!n) throw new Error(`resource ${r.resource} is not in this catalog`);
      return n;
    },
  };
}
