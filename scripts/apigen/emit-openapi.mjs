// @ts-check
/**
 * OpenAPI v2 definitions as kube-apiserver 1.36 publishes them (/openapi/v2 `definitions`):
 * kube-openapi's openapi-gen rules applied to the model (pkg/generators/openapi.go,
 * extension.go, union.go), plus the x-kubernetes-group-version-kind lists kube-apiserver adds
 * from its scheme. The v2 document carries no defaults and no enums (kube-apiserver removes
 * them from v2; they appear in v3 only), so neither is emitted here.
 */
import { OPENAPI_EXTRA_ROOTS } from "./facts.mjs";


/** kube-openapi common.schemaTypeFormatMap for Go builtins. */
const SIMPLE = {
  uint: ["integer", "int32"],
  uint8: ["integer", "byte"],
  uint16: ["integer", "int32"],
  uint32: ["integer", "int64"],
  uint64: ["integer", "int64"],
  int: ["integer", "int32"],
  int8: ["integer", "byte"],
  int16: ["integer", "int32"],
  int32: ["integer", "int32"],
  int64: ["integer", "int64"],
  byte: ["integer", "byte"],
  float64: ["number", "double"],
  float32: ["number", "float"],
  bool: ["boolean", ""],
  string: ["string", ""],
  interface: ["object", ""],
};

/** Member comment tags that become vendor extensions (kube-openapi tagToExtension). */
const MEMBER_EXTENSIONS = {
  listMapKey: { x: "x-kubernetes-list-map-keys", array: true },
  listType: { x: "x-kubernetes-list-type" },
  mapType: { x: "x-kubernetes-map-type" },
  patchMergeKey: { x: "x-kubernetes-patch-merge-key" },
  patchStrategy: { x: "x-kubernetes-patch-strategy" },
  structType: { x: "x-kubernetes-map-type" },
  validations: { x: "x-kubernetes-validations" },
};

const REF = "#/definitions/";

/**
 * @param {import("./model.mjs").Model} model
 */
export class OpenAPIBuilder {
  /** @param {import("./model.mjs").Model} model */
  constructor(model) {
    this.model = model;
  }

  /**
   * Resolves named non-struct types and pointers (kube-openapi resolveAliasAndPtrType): what is
   * left is a builtin, a slice/map, or a struct/special type that gets a definition.
   * @param {import("./model.mjs").Ref} r
   * @returns {import("./model.mjs").Ref}
   */
  resolve(r) {
    for (let i = 0; i < 20; i++) {
      if (r.k === "ptr") {
        r = r.elem;
        continue;
      }
      if (r.k === "named") {
        const t = this.model.types.get(r.q);
        if (!t) throw new Error(`unknown type ${r.q}`);
        if (t.alias) {
          r = t.def;
          continue;
        }
        if (t.special || t.def.k === "struct") return r;
        r = t.def;
        continue;
      }
      return r;
    }
    throw new Error("type resolution loop");
  }

  /** True for `[]byte` after resolution (kube-openapi's "[]byte" simple type). */
  isBytes(r) {
    return (r.k === "slice" && r.elem.k === "builtin" && (r.elem.name === "byte" || r.elem.name === "uint8"));
  }

  /**
   * The schema of a value of type `r` (no description).
   * @param {import("./model.mjs").Ref} ref
   * @param {Set<string>} deps
   * @returns {Record<string, unknown>}
   */
  valueSchema(ref, deps) {
    const r = this.resolve(ref);
    if (this.isBytes(r)) return { type: "string", format: "byte" };
    switch (r.k) {
      case "builtin": {
        const s = SIMPLE[r.name];
        if (!s) throw new Error(`no OpenAPI type for Go ${r.name}`);
        return s[1] ? { type: s[0], format: s[1] } : { type: s[0] };
      }
      case "named": {
        const name = this.model.definitionName(r.q);
        deps.add(r.q);
        return { $ref: `${REF}${name}` };
      }
      case "slice":
      case "array":
        return { type: "array", items: this.valueSchema(r.elem, deps) };
      case "map": {
        const key = this.resolve(r.key);
        if (!(key.k === "builtin" && key.name === "string")) throw new Error(`map with non-string keys: ${JSON.stringify(r.key)}`);
        return { type: "object", additionalProperties: this.valueSchema(r.elem, deps) };
      }
      case "interface":
        return {};
      default:
        throw new Error(`no OpenAPI schema for ${JSON.stringify(r)}`);
    }
  }

  /**
   * Vendor extensions from comment tags (kube-openapi parseExtensions): `+listType=map` etc. and
   * `+k8s:openapi-gen=x-kubernetes-foo:value`.
   * @param {Map<string, string[]>} tags
   */
  extensions(tags) {
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const v of tags.get("k8s:openapi-gen") ?? []) {
      if (!v.startsWith("x-kubernetes-")) continue;
      const colon = v.indexOf(":");
      if (colon < 0) throw new Error(`invalid extension ${v}`);
      out[v.slice(0, colon)] = v.slice(colon + 1);
    }
    for (const key of [...tags.keys()].sort()) {
      const ext = MEMBER_EXTENSIONS[key];
      if (!ext) continue;
      const values = tags.get(key) ?? [];
      out[ext.x] = ext.array || values.length > 1 ? [...values] : values[0];
    }
    return out;
  }

  /**
   * x-kubernetes-unions of a struct (kube-openapi parseUnions).
   * @param {import("./model.mjs").GoType} t
   * @returns {Record<string, unknown>[]}
   */
  unions(t) {
    /** @type {Record<string, unknown>[]} */
    const out = [];
    const emit = (discriminator, fields) => {
      const u = {};
      if (discriminator) u.discriminator = discriminator;
      u["fields-to-discriminateBy"] = Object.fromEntries(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      out.push(u);
    };
    if (t.tags.has("union")) {
      let disc;
      const fields = {};
      for (const f of t.fields) {
        if (f.name === null || f.inline) continue;
        if (f.tags.has("unionDiscriminator")) disc = f.name;
        else fields[f.name] = f.goName;
      }
      emit(disc, fields);
    }
    for (const f of t.fields) {
      if (!f.inline) continue;
      let r = f.ref;
      while (r.k === "ptr") r = r.elem;
      const inner = this.model.follow(r);
      if (inner) out.push(...this.unions(inner));
    }
    let disc;
    const fields = {};
    for (const f of t.fields) {
      if (f.name === null || f.inline) continue;
      if (f.tags.has("unionDiscriminator")) disc = f.name;
      if (f.tags.has("unionDeprecated")) fields[f.name] = f.goName;
    }
    if (Object.keys(fields).length > 0) emit(disc, fields);
    return out;
  }

  /**
   * The definition of one type, and the types it references.
   * @param {string} q
   */
  definition(q) {
    const t = this.model.type(q);
    /** @type {Set<string>} */
    const deps = new Set();
    /** @type {Record<string, unknown>} */
    const def = {};
    if (t.description) def.description = t.description;
    if (t.special) {
      Object.assign(def, t.special.openapi);
      return { def, deps };
    }
    if (t.def.k !== "struct") throw new Error(`${q} is not a struct`);
    /** @type {Record<string, unknown>} */
    const properties = {};
    /** @type {string[]} */
    const required = [];
    for (const { field } of this.model.members(t)) {
      if (field.tags.get("k8s:openapi-gen")?.includes("false")) continue;
      const name = /** @type {string} */ (field.name);
      if (!field.optional) required.push(name);
      /** @type {Record<string, unknown>} */
      let prop;
      if (field.asString) prop = { type: "string" };
      else prop = this.valueSchema(field.ref, deps);
      if (field.description) prop = { description: field.description, ...prop };
      Object.assign(prop, this.extensions(field.tags));
      properties[name] = prop;
    }
    def.type = "object";
    if (Object.keys(properties).length > 0) def.properties = properties;
    if (required.length > 0) def.required = required;
    Object.assign(def, this.extensions(t.tags));
    const unions = this.unions(t);
    if (unions.length > 0) def["x-kubernetes-unions"] = unions;
    const gvks = this.model.gvks.get(q);
    if (gvks && gvks.length > 0) def["x-kubernetes-group-version-kind"] = gvks.map((g) => ({ group: g.group, kind: g.kind, version: g.version }));
    return { def, deps };
  }

  /**
   * Definitions reachable from `roots` (qualified Go names), by definition name.
   * @param {Iterable<string>} roots
   */
  closure(roots) {
    /** @type {Map<string, Record<string, unknown>>} */
    const out = new Map();
    const stack = [...roots];
    /** @type {Set<string>} */
    const seen = new Set();
    while (stack.length > 0) {
      const q = /** @type {string} */ (stack.pop());
      if (seen.has(q)) continue;
      seen.add(q);
      const { def, deps } = this.definition(q);
      out.set(this.model.definitionName(q), def);
      for (const d of deps) if (!seen.has(d)) stack.push(d);
    }
    return out;
  }

  /**
   * The root types of the default-served API: every served resource's kind and list kind, the
   * bodies of its subresources (Scale, Eviction, Binding, TokenRequest; connect subresources
   * take their options as query parameters and publish no definition), and the meta types of
   * the non-resource paths.
   * @param {(r: import("./model.mjs").Resource) => boolean} served
   */
  roots(served) {
    /** @type {Set<string>} */
    const roots = new Set(OPENAPI_EXTRA_ROOTS);
    for (const r of this.model.resources) {
      if (!served(r)) continue;
      roots.add(r.type);
      if (r.listType) roots.add(r.listType);
      for (const s of r.subresources) {
        if (s.kind.endsWith("Options")) continue;
        const q = this.model.typeOfKind(s.group, s.version, s.kind);
        if (!q) throw new Error(`${r.group}/${r.version}/${r.resource}/${s.name}: no type for kind ${s.group}/${s.version}.${s.kind}`);
        roots.add(q);
      }
    }
    return roots;
  }
}

/** Recursively sorted keys, for stable output. */
export function sortDeep(v) {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (v && typeof v === "object") {
    const o = /** @type {Record<string, unknown>} */ (v);
    return Object.fromEntries(Object.keys(o).sort().map((k) => [k, sortDeep(o[k])]));
  }
  return v;
}



export const DEFINITIONS_FILE = "src/apiserver/openapi/definitions.json";
export const SOURCE = "Kubernetes 1.36 API definitions (k8s.io/api, apimachinery and apiextensions-apiserver v0.36.3; kube-aggregator v0.36.2)";

/**
 * definitions.json: the definitions of every resource kube-apiserver 1.36 serves by default and
 * of everything they reference, one definition per line (small diffs on regeneration).
 * @param {import("./model.mjs").Model} model
 */
export function generateDefinitions(model) {
  const b = new OpenAPIBuilder(model);
  const defs = b.closure(b.roots((r) => r.servedByDefault));
  const names = [...defs.keys()].sort();
  const lines = names.map((n) => `${JSON.stringify(n)}:${JSON.stringify(sortDeep(defs.get(n)))}`);
  const text = `{"source":${JSON.stringify(SOURCE)},"generator":"scripts/apigen/generate.mjs","definitions":{\n${lines.join(",\n")}\n}}\n`;
  return new Map([[DEFINITIONS_FILE, text]]);
}
