// @ts-check
/**
 * The server-side apply schema of the built-in types (src/apiserver/ssa/builtinschema.json):
 * structured-merge-diff's view of every type — which values are scalars, structs (granular or
 * atomic), maps (granular or atomic), and lists (atomic, sets, or associative by key fields) —
 * taken from smd-schema.yaml (client-go's applyconfigurations schema, what kube-apiserver merges
 * by). The types smd-schema.yaml does not cover (apiextensions.k8s.io and apiregistration.k8s.io,
 * some meta/v1 types) are derived from the model with kube-openapi's schemaconv rules; the
 * generator checks that derivation against every type smd-schema.yaml does cover, so both halves
 * follow the same rules.
 *
 * Format, per definition name, a type:
 *   "scalar" | "deduced" (any JSON: maps granular, lists atomic) | "atomic" (any JSON, atomic)
 *   | "<definition name>"
 *   | { "named": "<definition>", "relationship": "atomic" | "granular" }   (a reference that overrides the struct's relationship)
 *   | { "list": "atomic" | "set" | "map", "of": type, "keys"?: [field...] }
 *   | { "map": "granular" | "atomic", "of": type }
 *   | { "fields": { name: type }, "atomic"?: true, "required"?: [field...], "defaults"?: { field: value } }   (structs, named only)
 * `required`: fields Go always serializes (no omitempty): present, if only as zero values, in
 * every object. `defaults`: the schema defaults (kube-openapi's), used for list keys an item omits.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { SOURCE, OpenAPIBuilder } from "./emit-openapi.mjs";

export const SSA_SCHEMA_FILE = "src/apiserver/ssa/builtinschema.json";

const UNTYPED_DEDUCED = "__untyped_deduced_";
const UNTYPED_ATOMIC = "__untyped_atomic_";

/** Special types' SMD shapes (smd-schema.yaml: Time, MicroTime, Quantity, IntOrString are untyped scalars; RawExtension and FieldsV1 any JSON). */
const SPECIAL_SHAPES = {
  "k8s.io/apimachinery/pkg/apis/meta/v1.Time": "scalar",
  "k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime": "scalar",
  "k8s.io/apimachinery/pkg/apis/meta/v1.Duration": "scalar",
  "k8s.io/apimachinery/pkg/api/resource.Quantity": "scalar",
  "k8s.io/apimachinery/pkg/util/intstr.IntOrString": "scalar",
  "k8s.io/apimachinery/pkg/runtime.RawExtension": { map: "granular", of: "deduced" },
  "k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1": { map: "granular", of: "deduced" },
  "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON": "deduced",
  "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray": "deduced",
  "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool": "deduced",
  "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray": "deduced",
};

/**
 * Types whose fields smd-schema.yaml types differently from the named definition: every
 * RawExtension-typed field is an untyped atomic value (__untyped_atomic_) — an embedded object
 * is replaced whole by apply — while the RawExtension definition itself is a deduced map.
 */
const FIELD_SHAPES = { "k8s.io/apimachinery/pkg/runtime.RawExtension": "atomic" };

// ---------------------------------------------------------------------------- smd-schema.yaml

/** An SMD atom/type reference in the compact form. */
function fromSMD(ref) {
  if (ref.namedType !== undefined) {
    const name = ref.namedType === UNTYPED_DEDUCED ? "deduced" : ref.namedType === UNTYPED_ATOMIC ? "atomic" : ref.namedType;
    if (ref.elementRelationship && name !== "deduced" && name !== "atomic") {
      return { named: name, relationship: ref.elementRelationship === "atomic" ? "atomic" : "granular" };
    }
    return name;
  }
  const kinds = ["scalar", "list", "map"].filter((k) => ref[k] !== undefined);
  if (kinds.length > 1) {
    // scalar + list + map: an untyped value (RawExtension's elements, empty structs' values).
    return ref.map?.elementRelationship === "atomic" ? "atomic" : "deduced";
  }
  if (ref.scalar !== undefined) return "scalar";
  if (ref.list) {
    const of = fromSMD(ref.list.elementType);
    if (ref.list.elementRelationship === "associative") {
      return ref.list.keys && ref.list.keys.length > 0 ? { list: "map", of, keys: [...ref.list.keys] } : { list: "set", of };
    }
    return { list: "atomic", of };
  }
  if (ref.map) {
    if (ref.map.fields) return structFromSMD(ref.map);
    return { map: ref.map.elementRelationship === "atomic" ? "atomic" : "granular", of: ref.map.elementType ? fromSMD(ref.map.elementType) : "deduced" };
  }
  throw new Error(`unreadable SMD type ${JSON.stringify(ref)}`);
}

function structFromSMD(map) {
  /** @type {Record<string, unknown>} */
  const fields = {};
  /** @type {Record<string, unknown>} */
  const defaults = {};
  for (const f of map.fields) {
    fields[f.name] = fromSMD(f.type);
    if (f.default !== undefined) defaults[f.name] = f.default;
  }
  /** @type {Record<string, unknown>} */
  const out = { fields };
  if (map.elementRelationship === "atomic") out.atomic = true;
  if (Object.keys(defaults).length > 0) out.defaults = defaults;
  return out;
}

/** @param {string} text */
export function readSMDSchema(text) {
  const doc = parse(text);
  /** @type {Map<string, unknown>} */
  const out = new Map();
  for (const t of doc.types) {
    if (t.name === UNTYPED_ATOMIC || t.name === UNTYPED_DEDUCED) continue;
    const { name, ...rest } = t;
    out.set(name, rest.map?.fields ? structFromSMD(rest.map) : fromSMD(rest));
  }
  return out;
}

// ------------------------------------------------------------------ derivation from the model

/**
 * The SMD type of a value, by kube-openapi schemaconv's rules over the OpenAPI the model
 * produces (list types from +listType, else from the patch strategy; map and struct types from
 * +mapType/+structType).
 */
class Deriver {
  /** @param {import("./model.mjs").Model} model */
  constructor(model) {
    this.model = model;
    this.oa = new OpenAPIBuilder(model);
  }

  /** @param {import("./model.mjs").Ref} ref @param {Map<string, string[]>} [tags] field markers */
  value(ref, tags) {
    const r = this.oa.resolve(ref);
    if (this.oa.isBytes(r)) return "scalar";
    switch (r.k) {
      case "builtin":
        return r.name === "interface" ? "deduced" : "scalar";
      case "named": {
        if (FIELD_SHAPES[r.q]) return FIELD_SHAPES[r.q];
        const name = this.model.definitionName(r.q);
        const t = this.model.type(r.q);
        const override = tags?.get("structType")?.[0] ?? (t.special ? undefined : tags?.get("mapType")?.[0]);
        if (override && !t.special) return { named: name, relationship: override === "atomic" ? "atomic" : "granular" };
        return name;
      }
      case "slice":
      case "array": {
        const of = this.value(r.elem);
        const lt = tags?.get("listType")?.[0];
        if (lt === "map") return { list: "map", of, keys: [...(tags?.get("listMapKey") ?? [])] };
        if (lt === "set") return { list: "set", of };
        if (lt === "atomic") return { list: "atomic", of };
        const strategy = (tags?.get("patchStrategy")?.[0] ?? "").split(",");
        if (strategy.includes("merge")) {
          const key = tags?.get("patchMergeKey")?.[0];
          return key ? { list: "map", of, keys: [key] } : { list: "set", of };
        }
        return { list: "atomic", of };
      }
      case "map":
        return { map: tags?.get("mapType")?.[0] === "atomic" ? "atomic" : "granular", of: this.value(r.elem) };
      case "interface":
        return "deduced";
      default:
        throw new Error(`no SMD type for ${JSON.stringify(r)}`);
    }
  }

  /**
   * kube-openapi's default of a field (generateDefault): the +default marker of the field, else
   * of its type; else the zero value Go always serializes (non-omitempty scalars) or {} for
   * non-pointer structs without custom JSON.
   */
  defaultOf(field) {
    let explicit = field.tags.get("default")?.[0];
    let r = field.ref;
    for (let i = 0; explicit === undefined && i < 10; i++) {
      if (r.k === "ptr") {
        r = r.elem;
        continue;
      }
      if (r.k !== "named") break;
      const t = this.model.types.get(r.q);
      if (!t) break;
      explicit = t.tags.get("default")?.[0];
      if (t.def.k === "struct" || t.special) break;
      r = t.def;
    }
    if (explicit !== undefined) {
      if (/^ref\(/.test(explicit)) return this.constRef(explicit, field);
      return JSON.parse(explicit);
    }
    return this.enforced(field.ref, field.omitempty);
  }

  /** `+default=ref(Name)`: a constant's value. */
  constRef(marker, field) {
    const name = marker.slice(4, -1);
    for (const pkg of this.model.packages.values()) {
      const v = this.model.lookupConst(pkg.path, name.split(".").pop());
      if (v !== undefined) return v;
    }
    throw new Error(`cannot resolve default ${marker} of ${field.goName}`);
  }

  enforced(ref, omitempty) {
    let r = ref;
    for (let i = 0; i < 10; i++) {
      if (r.k === "named") {
        const t = this.model.types.get(r.q);
        if (!t) return undefined;
        if (t.special) return undefined;
        if (t.def.k === "struct") {
          const ms = t.fields;
          if (ms.length === 1 && ms[0].embedded) {
            r = ms[0].ref;
            continue;
          }
          return {};
        }
        r = t.def;
        continue;
      }
      if (r.k === "builtin") {
        if (omitempty) return undefined;
        if (r.name === "string") return "";
        if (r.name === "bool") return false;
        if (r.name === "interface") return undefined;
        return 0;
      }
      return undefined;
    }
    return undefined;
  }

  /** @param {import("./model.mjs").GoType} t */
  type(t) {
    if (t.special) {
      const s = SPECIAL_SHAPES[t.q];
      if (s === undefined) throw new Error(`no SMD shape for special type ${t.q}`);
      return s;
    }
    if (t.def.k !== "struct") throw new Error(`${t.q} is not a struct`);
    const members = this.model.members(t).filter(({ field }) => !field.tags.get("k8s:openapi-gen")?.includes("false"));
    if (members.length === 0) return { map: "granular", of: "deduced" };
    /** @type {Record<string, unknown>} */
    const fields = {};
    /** @type {Record<string, unknown>} */
    const defaults = {};
    for (const { field } of [...members].sort((a, b) => ((a.field.name ?? "") < (b.field.name ?? "") ? -1 : 1))) {
      const name = /** @type {string} */ (field.name);
      fields[name] = field.asString ? "scalar" : this.value(field.ref, field.tags);
      const d = this.defaultOf(field);
      if (d !== undefined) defaults[name] = d;
    }
    /** @type {Record<string, unknown>} */
    const out = { fields };
    if (t.tags.get("structType")?.[0] === "atomic") out.atomic = true;
    if (Object.keys(defaults).length > 0) out.defaults = defaults;
    return out;
  }
}

/** Fields Go always serializes (no omitempty / omitzero) of a struct, by definition name. */
function requiredFields(model, t) {
  return model
    .members(t)
    .filter(({ field }) => !field.omitempty && !field.omitzero)
    .map(({ field }) => /** @type {string} */ (field.name))
    .sort();
}

/** Definition names a compact type references. */
function refsOf(v, out) {
  if (typeof v === "string") {
    if (v !== "scalar" && v !== "deduced" && v !== "atomic") out.add(v);
    return out;
  }
  if (v.named) out.add(v.named);
  if (v.of) refsOf(v.of, out);
  if (v.fields) for (const f of Object.values(v.fields)) refsOf(f, out);
  return out;
}

function stable(v) {
  return JSON.stringify(v, (_k, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x));
}

/**
 * @param {import("./model.mjs").Model} model
 * @param {string} k8sApiDir
 */
export function generateSSASchema(model, k8sApiDir) {
  const smd = readSMDSchema(readFileSync(join(k8sApiDir, "smd-schema.yaml"), "utf8"));
  const deriver = new Deriver(model);
  /** definition name → qualified Go type */
  /** @type {Map<string, string>} */
  const byDef = new Map();
  for (const q of model.emittedTypes()) {
    const t = model.type(q);
    if (t.alias) continue;
    if (t.special || t.def.k === "struct") byDef.set(model.definitionName(q), q);
  }
  // The derivation must agree with smd-schema.yaml wherever both exist.
  /** @type {string[]} */
  const mismatches = [];
  for (const [name, want] of smd) {
    const q = byDef.get(name);
    if (!q) {
      mismatches.push(`${name}: in smd-schema.yaml but not in the model`);
      continue;
    }
    const got = deriver.type(model.type(q));
    if (stable(got) !== stable(want)) mismatches.push(`${name}: derived ${stable(got)} != smd-schema.yaml ${stable(want)}`);
  }
  if (mismatches.length > 0) throw new Error(`SSA schema derivation disagrees with smd-schema.yaml in ${mismatches.length} types:\n  ${mismatches.slice(0, Number(process.env.APIGEN_SHOW ?? 10)).join("\n  ")}`);

  // Kinds of every resource of every group version, and what they reach.
  /** @type {Record<string, string>} */
  const kinds = {};
  for (const r of model.resources) kinds[`${r.group}/${r.version}/${r.kind}`] = model.definitionName(r.type);
  /** @type {Map<string, unknown>} */
  const types = new Map();
  const stack = Object.values(kinds);
  while (stack.length > 0) {
    const name = /** @type {string} */ (stack.pop());
    if (types.has(name)) continue;
    const q = byDef.get(name);
    if (!q) throw new Error(`SSA schema: no type ${name}`);
    const t = model.type(q);
    /** @type {any} */
    const def = smd.get(name) ?? deriver.type(t);
    if (def && typeof def === "object" && def.fields) {
      const required = requiredFields(model, t);
      if (required.length > 0) def.required = required;
    }
    types.set(name, def);
    for (const r of refsOf(def, new Set())) if (!types.has(r)) stack.push(r);
  }
  const typeLines = [...types.keys()].sort().map((n) => `${JSON.stringify(n)}:${stable(types.get(n))}`);
  const kindLines = Object.keys(kinds).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(kinds[k])}`);
  const text =
    `{"source":${JSON.stringify(`${SOURCE}; smd-schema.yaml from client-go v0.36.3 applyconfigurations`)},"generator":"scripts/apigen/generate.mjs",\n` +
    `"kinds":{\n${kindLines.join(",\n")}\n},\n` +
    `"types":{\n${typeLines.join(",\n")}\n}}\n`;
  return new Map([[SSA_SCHEMA_FILE, text]]);
}
