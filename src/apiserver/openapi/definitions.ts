/**
 * The built-in type definitions: the OpenAPI v2 definitions kube-apiserver 1.36 publishes for
 * its default resources, generated from the Kubernetes API definitions by
 * scripts/apigen/generate.mjs into definitions.json — descriptions, formats, required fields,
 * x-kubernetes-group-version-kind and the merge metadata (list types and map keys, map types,
 * patch strategies and merge keys, unions) as kube-openapi emits them.
 */
import generated from "./definitions.json" with { type: "json" };
import type { Definitions, GroupVersionKindExt, Schema } from "./schema.js";

interface GeneratedFile {
  source: string;
  generator: string;
  definitions: Record<string, Schema>;
}

const file = generated as unknown as GeneratedFile;

/** Where the generated definitions came from (the Kubernetes API version and modules). */
export const definitionsSource: string = file.source;

let byGVK: Map<string, string> | undefined;

/** The built-in definitions as served. */
export function builtinDefinitions(): Definitions {
  return file.definitions;
}

function gvkKey(g: GroupVersionKindExt): string {
  return `${g.group}/${g.version}/${g.kind}`;
}

/** The definition name of a built-in kind, e.g. apps/v1 Deployment → io.k8s.api.apps.v1.Deployment. */
export function definitionNameForKind(gvk: GroupVersionKindExt): string | undefined {
  if (!byGVK) {
    byGVK = new Map();
    for (const [name, def] of Object.entries(file.definitions)) {
      for (const g of def["x-kubernetes-group-version-kind"] ?? []) byGVK.set(gvkKey(g), name);
    }
  }
  return byGVK.get(gvkKey(gvk));
}

/**
 * The description of a field of a built-in definition (upstream's OpenAPI text), or "" when
 * unknown. Used by the Table printers for their column descriptions.
 */
export function fieldDescription(definition: string, field: string): string {
  return file.definitions[definition]?.properties?.[field]?.description ?? "";
}
