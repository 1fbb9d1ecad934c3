/**
 * Applies merge metadata to the generated definitions: x-kubernetes-patch-strategy and
 * x-kubernetes-patch-merge-key from the strategic-merge-patch table (the single table the patch
 * code also uses), and x-kubernetes-list-type / list-map-keys / map-type from the marker facts.
 *
 * The input is never mutated: definitions that change are copied (with their changed
 * properties); the rest are shared.
 */
import { atomicStructs as defaultAtomicStructs, builtinFieldMarkers, type FieldMarkers } from "./listtypes.js";
import type { Definitions, Schema } from "./schema.js";

/** One field's entry in the strategic-merge-patch table (src/apimachinery/patch/builtinpatchmeta.ts). */
export interface PatchFieldMeta {
  patchStrategy?: string;
  patchMergeKey?: string;
  /** The definition name of the field's (element) type. */
  type?: string;
}

/** Definition name → field name → patch metadata. */
export type PatchTypeTable = Readonly<Record<string, Readonly<Record<string, PatchFieldMeta>>>>;

export interface MergeMetadata {
  patchTypes: PatchTypeTable;
  fieldMarkers?: Readonly<Record<string, Readonly<Record<string, FieldMarkers>>>>;
  atomicStructs?: ReadonlySet<string>;
}

export function applyMergeMetadata(defs: Definitions, meta: MergeMetadata): Definitions {
  const out: Record<string, Schema> = { ...defs };
  const markers = meta.fieldMarkers ?? builtinFieldMarkers;
  const structs = meta.atomicStructs ?? defaultAtomicStructs;

  const editProperty = (defName: string, field: string, edit: (s: Schema) => Schema) => {
    const def = out[defName];
    const prop = def?.properties?.[field];
    // Tables may name fields newer than the generated types; those have nothing to annotate.
    if (!def || !prop) return;
    const copy = def === defs[defName] ? { ...def, properties: { ...def.properties } } : def;
    copy.properties![field] = edit(prop);
    out[defName] = copy;
  };

  for (const [defName, fields] of Object.entries(markers)) {
    for (const [field, m] of Object.entries(fields)) {
      editProperty(defName, field, (s) => {
        const next: Schema = { ...s };
        if (m.listType) next["x-kubernetes-list-type"] = m.listType;
        if (m.listMapKeys) next["x-kubernetes-list-map-keys"] = [...m.listMapKeys];
        if (m.mapType) next["x-kubernetes-map-type"] = m.mapType;
        return next;
      });
    }
  }
  for (const [defName, fields] of Object.entries(meta.patchTypes)) {
    for (const [field, pm] of Object.entries(fields)) {
      if (!pm.patchStrategy && !pm.patchMergeKey) continue;
      editProperty(defName, field, (s) => {
        const next: Schema = { ...s };
        if (pm.patchMergeKey) next["x-kubernetes-patch-merge-key"] = pm.patchMergeKey;
        if (pm.patchStrategy) next["x-kubernetes-patch-strategy"] = pm.patchStrategy;
        return next;
      });
    }
  }
  for (const name of structs) {
    const def = out[name];
    if (def) out[name] = { ...def, "x-kubernetes-map-type": "atomic" };
  }
  return out;
}
