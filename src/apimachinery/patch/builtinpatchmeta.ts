/**
 * Patch metadata of the built-in kinds, as data.
 *
 * `builtinPatchTypes` is keyed by OpenAPI definition name. Each entry lists, for one type, the
 * fields that carry a `patchStrategy` / `patchMergeKey` struct tag upstream, and every field
 * through which such a field is reachable, with `type` naming the field's definition (for lists:
 * the element's). A field entry describes a list when it has a merge key or its strategy includes
 * "merge"; otherwise (no strategy, or "retainKeys"/"replace" alone) it describes a struct.
 *
 * The table is generated from the struct tags of every type of every Kubernetes 1.36 group
 * version (scripts/apigen/generate.mjs → builtinpatchtypes.json), so it holds exactly what
 * upstream's strategicpatch reads from the Go structs by reflection. Fields without tags are
 * absent: strategic merge patch replaces such lists and merges such maps, which is also what an
 * absent entry means (PodSpec.tolerations, Container.envFrom, RBAC rules and subjects, ...).
 *
 * Readers: the API server (strategic merge patch of built-in kinds, via `patchMetaForKind`).
 */
import generated from "./builtinpatchtypes.json" with { type: "json" };
import { deepFreeze } from "../deepcopy.js";
import type { PatchMeta } from "./strategicpatch.js";

export interface BuiltinFieldPatchInfo {
  /** "merge", "replace", "retainKeys" or "merge,retainKeys". */
  readonly patchStrategy?: string;
  readonly patchMergeKey?: string;
  /** Definition name of the field's type (of the element type for lists), when it matters. */
  readonly type?: string;
}

export type BuiltinPatchTypeTable = Readonly<Record<string, Readonly<Record<string, BuiltinFieldPatchInfo>>>>;

interface GeneratedFile {
  source: string;
  generator: string;
  /** "group/version/Kind" → definition name. */
  kinds: Record<string, string>;
  types: Record<string, Record<string, BuiltinFieldPatchInfo>>;
}

const file = generated as unknown as GeneratedFile;

/** The table, frozen. */
export const builtinPatchTypes: BuiltinPatchTypeTable = deepFreeze(file.types);

const kinds: Readonly<Record<string, string>> = deepFreeze(file.kinds);

/**
 * The OpenAPI definition name of a built-in kind ("apps", "v1", "Deployment" →
 * "io.k8s.api.apps.v1.Deployment"), or undefined when the kind is not built in (custom
 * resources, kinds no 1.36 group version registers).
 */
export function rootTypeForKind(group: string, version: string, kindName: string): string | undefined {
  const key = `${group}/${version}/${kindName}`;
  return Object.prototype.hasOwnProperty.call(kinds, key) ? kinds[key] : undefined;
}

const metaCache = new Map<string, PatchMeta>();

function isListEntry(info: BuiltinFieldPatchInfo): boolean {
  return info.patchMergeKey !== undefined || (info.patchStrategy ?? "").split(",").includes("merge");
}

/** The PatchMeta tree of one definition, built from the table on first use and cached (frozen). */
export function patchMetaForType(definition: string): PatchMeta {
  const cached = metaCache.get(definition);
  if (cached !== undefined) return cached;
  const fields: Record<string, PatchMeta> = {};
  const meta: PatchMeta = { fields };
  // Cache before recursing so a self-referencing type terminates.
  metaCache.set(definition, meta);
  const entries = Object.prototype.hasOwnProperty.call(builtinPatchTypes, definition) ? builtinPatchTypes[definition] : {};
  for (const [field, info] of Object.entries(entries)) {
    const m: PatchMeta = {};
    if (info.patchStrategy !== undefined) m.patchStrategy = info.patchStrategy;
    if (info.patchMergeKey !== undefined) m.patchMergeKey = info.patchMergeKey;
    if (info.type !== undefined) {
      const sub = patchMetaForType(info.type);
      if (isListEntry(info)) m.items = sub;
      else if (sub.fields !== undefined) m.fields = sub.fields;
    }
    fields[field] = Object.freeze(m);
  }
  Object.freeze(fields);
  return Object.freeze(meta);
}

/**
 * The strategic-merge-patch metadata of a built-in kind, or undefined for kinds the table does
 * not know (kube-apiserver refuses strategic merge patches of custom resources with 415).
 */
export function patchMetaForKind(group: string, version: string, kindName: string): PatchMeta | undefined {
  const root = rootTypeForKind(group, version, kindName);
  return root === undefined ? undefined : patchMetaForType(root);
}
