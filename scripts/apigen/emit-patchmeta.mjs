// @ts-check
/**
 * Strategic merge patch metadata of the built-in types (src/apimachinery/patch/builtinpatchtypes.json),
 * read from the `patchStrategy` / `patchMergeKey` struct tags of every type of every group version:
 * what upstream's strategicpatch.PatchMetaFromStruct reads by reflection.
 *
 * `types` is keyed by OpenAPI definition name; a type is listed when one of its fields carries
 * a tag or leads to a type that does (through a struct field, or the elements of a tagged list).
 * A field entry has the tags, and `type` (the definition of the field's struct, or of a list's
 * element) when that type has entries itself. Untagged lists are replaced wholesale by strategic
 * merge patch, so nothing below them matters and they are left out. `kinds` maps
 * "group/version/Kind" ("" group for core) to the definition of every registered kind that has
 * entries.
 */
import { SOURCE } from "./emit-openapi.mjs";

export const PATCH_TYPES_FILE = "src/apimachinery/patch/builtinpatchtypes.json";

/** @param {import("./model.mjs").Model} model */
export function generatePatchMeta(model) {
  const structs = model.emittedTypes().map((q) => model.type(q)).filter((t) => !t.alias && !t.special && t.def.k === "struct");

  /** The struct type a field's value is (through pointers), if any. */
  const structOf = (r) => {
    while (r.k === "ptr") r = r.elem;
    if (r.k !== "named") return undefined;
    const t = model.follow(r);
    if (!t || t.special || t.def.k !== "struct") return undefined;
    return t;
  };
  /** The struct a slice field's elements are, if any. */
  const elemStructOf = (r) => {
    while (r.k === "ptr") r = r.elem;
    if (r.k === "named") {
      const t = model.types.get(r.q);
      if (t && !t.special && t.def.k !== "struct") return elemStructOf(t.def);
    }
    if (r.k === "slice" || r.k === "array") return structOf(r.elem);
    return undefined;
  };
  const isList = (r) => {
    while (r.k === "ptr") r = r.elem;
    if (r.k === "named") {
      const t = model.types.get(r.q);
      if (t && !t.special && t.def.k !== "struct" && !t.alias) return isList(t.def);
      if (t && t.alias) return isList(t.def);
    }
    return (r.k === "slice" || r.k === "array") && !(r.elem.k === "builtin" && (r.elem.name === "byte" || r.elem.name === "uint8"));
  };

  /** Fixpoint: which struct types have patch metadata somewhere below them. */
  /** @type {Set<string>} */
  const relevant = new Set();
  for (let changed = true; changed; ) {
    changed = false;
    for (const t of structs) {
      if (relevant.has(t.q)) continue;
      const has = model.members(t).some(({ field: f }) => {
        if (f.patchStrategy || f.patchMergeKey) return true;
        if (isList(f.ref)) return false;
        const s = structOf(f.ref);
        return s !== undefined && relevant.has(s.q);
      });
      if (has) {
        relevant.add(t.q);
        changed = true;
      }
    }
  }

  /** @type {Record<string, Record<string, Record<string, string>>>} */
  const types = {};
  for (const t of structs) {
    if (!relevant.has(t.q)) continue;
    /** @type {Record<string, Record<string, string>>} */
    const fields = {};
    for (const { field: f } of model.members(t)) {
      const name = /** @type {string} */ (f.name);
      /** @type {Record<string, string>} */
      const entry = {};
      if (f.patchStrategy) entry.patchStrategy = f.patchStrategy;
      if (f.patchMergeKey) entry.patchMergeKey = f.patchMergeKey;
      const tagged = Object.keys(entry).length > 0;
      const target = isList(f.ref) ? (tagged ? elemStructOf(f.ref) : undefined) : structOf(f.ref);
      if (target && relevant.has(target.q)) entry.type = model.definitionName(target.q);
      if (Object.keys(entry).length > 0) fields[name] = entry;
    }
    types[model.definitionName(t.q)] = fields;
  }

  /** @type {Record<string, string>} */
  const kinds = {};
  for (const pkg of model.packages.values()) {
    if (pkg.group === undefined || pkg.version === undefined) continue;
    for (const k of pkg.known) {
      const t = model.types.get(k.type);
      if (!t || !relevant.has(t.q) || t.pkg !== pkg) continue;
      kinds[`${pkg.group}/${pkg.version}/${k.kind}`] = model.definitionName(t.q);
    }
  }

  const sortObj = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
  const typeLines = Object.keys(types).sort().map((n) => `${JSON.stringify(n)}:${JSON.stringify(sortObj(types[n]))}`);
  const kindLines = Object.keys(kinds).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(kinds[k])}`);
  const text =
    `{"source":${JSON.stringify(SOURCE)},"generator":"scripts/apigen/generate.mjs",\n` +
    `"kinds":{\n${kindLines.join(",\n")}\n},\n` +
    `"types":{\n${typeLines.join(",\n")}\n}}\n`;
  return new Map([[PATCH_TYPES_FILE, text]]);
}
