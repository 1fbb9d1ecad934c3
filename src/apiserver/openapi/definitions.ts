/**
 * The built-in type definitions: generated from kubernetes-types by
 * scripts/openapi/generate.mjs into definitions.json, enriched at first use with the merge
 * metadata (patch strategies from the strategic-merge-patch table, list/map types).
 */
import generated from "./definitions.json" with { type: "json" };
import { builtinPatchTypes } from "../../apimachinery/patch/builtinpatchmeta.js";
import { applyMergeMetadata } from "./patchmeta.js";
import type { Definitions, GroupVersionKindExt, Schema } from "./schema.js";

interface GeneratedFile {
  source: string;
  generator: string;
  definitions: Record<string, Schema>;
}

const file = generated as unknown as GeneratedFile;

/** The generated definitions as committed, without merge metadata. */
export function generatedDefinitions(): Definitions {
  return file.definitions;
}

/** Where the generated definitions came from, e.g. "kubernetes-types@1.30.0". */
export const definitionsSource: string = file.source;

let enriched: Definitions | undefined;
let byGVK: Map<string, string> | undefined;

/** The built-in definitions as served: generated types plus merge metadata. Built once. */
export function builtinDefinitions(): Definitions {
  enriched ??= applyMergeMetadata(file.definitions, { patchTypes: builtinPatchTypes });
  return enriched;
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
 * The description of a field of a built-in definition (upstream's SwaggerDoc text), or "" when
 * unknown. Used by the Table printers for their column descriptions.
 */
export function fieldDescription(definition: string, field: string): string {
  return file.definitions[definition]?.properties?.[field]?.description ?? "";
}
