// @ts-check
/**
 * The decoding schema table (src/apiserver/generated/schema.json): for every type of every 1.36
 * group version, its JSON fields as encoding/json sees the Go struct — value kinds, omitempty /
 * omitzero, pointers, kube-openapi's required fields, enum values, list/map semantics and patch
 * tags — so request bodies can be decoded "like Go structs". The format is documented in
 * src/apiserver/generated/schema.ts, which reads it.
 */
import { SOURCE } from "./emit-openapi.mjs";

export const DECODE_SCHEMA_FILE = "src/apiserver/generated/schema.json";

/** Go builtins → scalar kinds of the table. */
const SCALARS = {
  string: "string",
  bool: "bool",
  int: "int64",
  int8: "int32",
  int16: "int32",
  int32: "int32",
  int64: "int64",
  uint: "uint64",
  uint8: "int32",
  uint16: "int32",
  uint32: "uint32",
  uint64: "uint64",
  byte: "int32",
  float32: "float64",
  float64: "float64",
  interface: "any",
};

/** @param {import("./model.mjs").Model} model */
export function generateDecodeSchema(model) {
  const keyOf = (t) => `${t.pkg.module}.${t.name}`;
  /** @type {Map<string, { values: string[], marked: boolean }>} */
  const enums = new Map();

  /**
   * The type expression of a value (pointers are a field flag, not part of the expression).
   * @returns {{ expr: string, enumKey?: string }}
   */
  const exprOf = (ref) => {
    let r = ref;
    while (r.k === "ptr") r = r.elem;
    switch (r.k) {
      case "builtin": {
        const s = SCALARS[r.name];
        if (!s) throw new Error(`no scalar kind for Go ${r.name}`);
        return { expr: s };
      }
      case "slice":
      case "array": {
        if (r.elem.k === "builtin" && (r.elem.name === "byte" || r.elem.name === "uint8")) return { expr: "bytes" };
        const inner = exprOf(r.elem);
        return { expr: `[]${inner.expr}`, enumKey: inner.enumKey };
      }
      case "map": {
        const inner = exprOf(r.elem);
        return { expr: `map[]${inner.expr}`, enumKey: inner.enumKey };
      }
      case "interface":
      case "struct":
        return { expr: "any" };
      case "named": {
        const t = model.types.get(r.q);
        if (!t) throw new Error(`unknown type ${r.q}`);
        if (t.alias) return exprOf(t.def);
        if (t.special) return { expr: t.special.decode };
        if (t.def.k === "struct") return { expr: keyOf(t) };
        const inner = exprOf(t.def);
        if (t.enumValues && inner.expr === "string") {
          enums.set(keyOf(t), { values: t.enumValues, marked: t.enumMarked });
          return { expr: "string", enumKey: keyOf(t) };
        }
        return inner;
      }
      default:
        throw new Error(`no type expression for ${JSON.stringify(r)}`);
    }
  };

  /** @type {Record<string, unknown>} */
  const types = {};
  for (const q of model.emittedTypes()) {
    const t = model.type(q);
    if (t.alias || t.special || t.def.k !== "struct") continue;
    /** @type {Record<string, Record<string, unknown>>} */
    const fields = {};
    for (const { field } of model.members(t)) {
      const name = /** @type {string} */ (field.name);
      const { expr, enumKey } = field.asString ? { expr: "string", enumKey: undefined } : exprOf(field.ref);
      let flags = "";
      if (field.ref.k === "ptr") flags += "p";
      if (field.omitempty) flags += "o";
      if (field.omitzero) flags += "z";
      if (!field.optional) flags += "r";
      if (field.asString) flags += "s";
      /** @type {Record<string, unknown>} */
      const spec = { t: expr };
      if (flags) spec.f = flags;
      if (enumKey) spec.e = enumKey;
      const lt = field.tags.get("listType")?.[0];
      if (lt) spec.lt = lt;
      const lk = field.tags.get("listMapKey");
      if (lk) spec.lk = [...lk];
      const mt = field.tags.get("mapType")?.[0] ?? field.tags.get("structType")?.[0];
      if (mt) spec.mt = mt;
      if (field.patchStrategy) spec.ps = field.patchStrategy;
      if (field.patchMergeKey) spec.pk = field.patchMergeKey;
      fields[name] = spec;
    }
    /** @type {Record<string, unknown>} */
    const entry = { d: model.definitionName(q), fields };
    if (t.tags.get("structType")?.[0] === "atomic") entry.a = true;
    types[keyOf(t)] = entry;
  }

  /** @type {Record<string, string>} */
  const kinds = {};
  for (const [q, gvks] of model.gvks) {
    const t = model.types.get(q);
    if (!t || t.def.k !== "struct" || t.special) continue;
    for (const g of gvks) kinds[`${g.group}/${g.version}/${g.kind}`] = keyOf(t);
  }

  const sortObj = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
  const lines = (o) => Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(o[k])}`);
  const enumObj = sortObj(Object.fromEntries(enums));
  const text =
    `{"format":"src/apiserver/generated/schema.ts","source":${JSON.stringify(SOURCE)},"generator":"scripts/apigen/generate.mjs",\n` +
    `"kinds":{\n${lines(kinds).join(",\n")}\n},\n` +
    `"enums":{\n${lines(enumObj).join(",\n")}\n},\n` +
    `"types":{\n${lines(types).join(",\n")}\n}}\n`;
  return new Map([[DECODE_SCHEMA_FILE, text]]);
}
