// @ts-check
/**
 * The API model: every Go package of the Kubernetes 1.36 API read into one in-memory graph of
 * packages, types, fields, enum values, registered kinds and resources, with the rules the
 * upstream generators apply (kube-openapi for names, required fields and extensions, client-gen
 * for resources) resolved once, so each emitter only formats.
 *
 * Inputs (see scripts/apigen/input/README.md):
 *   <k8s-api>/api/<group>/<version>/{types.go, types_swagger_doc_generated.go, register.go}
 *   <k8s-api>/apimachinery/pkg/apis/meta/v1/{types.go, types_swagger_doc_generated.go, register.go}
 *   <k8s-api>/apiextensions/pkg/apis/apiextensions/v1/{types.go, types_jsonschema.go, register.go}
 *   scripts/apigen/input/apimachinery/...   (auxiliary declarations: Time, WatchEvent, ...)
 *   scripts/apigen/input/kube-aggregator/... (apiregistration.k8s.io/v1)
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { mapStringLiteral, parseGoFile, stringValue, tagLookup } from "./gosource.mjs";
import { commentTags, description } from "./markers.mjs";
import {
  EXTRA_RESOURCES,
  EXTRA_ROOT_TYPES,
  EXTRA_SCHEME_GROUP_VERSIONS,
  EXTRA_SUBRESOURCES,
  NOT_IN_APISERVER_SCHEME,
  PLURAL_EXCEPTIONS,
  RESOURCE_NAMES,
  SPECIAL_TYPES,
  SUBRESOURCE_VERBS,
  VERB_OVERRIDES,
  VERSION_PRIORITY,
  servedByDefault,
} from "./facts.mjs";

/** @typedef {import("./gosource.mjs").TypeExpr} TypeExpr */
/** @typedef {import("./gosource.mjs").GoFile} GoFile */

/**
 * A resolved type reference.
 * @typedef {{ k: "builtin", name: string }
 *   | { k: "named", q: string }
 *   | { k: "ptr", elem: Ref }
 *   | { k: "slice", elem: Ref }
 *   | { k: "array", elem: Ref, len: string }
 *   | { k: "map", key: Ref, elem: Ref }
 *   | { k: "interface" }
 *   | { k: "struct" }} Ref
 */

/**
 * @typedef {object} Field
 * @property {string} goName
 * @property {string | null} name        JSON name; null for `json:"-"`
 * @property {boolean} embedded
 * @property {boolean} inline            embedded and flattened into the parent (kube-openapi shouldInlineMembers)
 * @property {boolean} omitempty
 * @property {boolean} omitzero
 * @property {boolean} asString          `json:",string"`
 * @property {Ref} ref
 * @property {string[]} doc              comment lines
 * @property {Map<string, string[]>} tags comment markers
 * @property {boolean} optional          kube-openapi isOptional: +optional, else not +required and omitempty
 * @property {string | undefined} patchStrategy  struct tag
 * @property {string | undefined} patchMergeKey  struct tag
 * @property {string | undefined} protobuf       struct tag
 * @property {string} description
 */

/**
 * @typedef {object} GoType
 * @property {string} q                  import path + "." + name
 * @property {Pkg} pkg
 * @property {string} name
 * @property {string[]} doc
 * @property {string[]} doc2
 * @property {Map<string, string[]>} tags       markers of the doc comment
 * @property {Map<string, string[]>} allTags    markers of the doc and the detached comment above it (genclient reads both)
 * @property {boolean} alias             `type X = Y`
 * @property {Ref} def                   the type's definition (struct → { k: "struct" })
 * @property {Field[]} fields            struct fields in declaration order (empty otherwise)
 * @property {boolean} primary           declared in a primary input file (not an auxiliary apimachinery file)
 * @property {(typeof SPECIAL_TYPES)[string] | undefined} special
 * @property {string} description
 * @property {string[] | undefined} enumValues   string constants of this type (sorted), for named string types with a const block
 * @property {boolean} enumMarked        `+enum`: kube-openapi publishes the values (OpenAPI v3)
 * @property {{ name: string, value: string, doc: string[] }[]} consts
 */

/**
 * @typedef {object} Pkg
 * @property {string} path               Go import path
 * @property {string} module             module path under src/apimachinery/api (kubernetes-types layout)
 * @property {string} openapiPrefix      definition name prefix, e.g. io.k8s.api.core.v1
 * @property {string | undefined} group  API group ("" = core) when the package registers kinds
 * @property {string | undefined} version
 * @property {Map<string, GoType>} types
 * @property {Map<string, Record<string, string>>} swagger  type name → field json name ("" = type) → doc
 * @property {{ kind: string, type: string }[]} known     kinds registered with the group version (type = qualified Go type)
 * @property {boolean} metaTypes         registers the meta types of metav1.AddToGroupVersion
 * @property {boolean} inScheme          part of kube-apiserver's scheme
 */

/**
 * @typedef {{ group: string, version: string, kind: string }} GVK
 * @typedef {{ name: string, group: string, version: string, kind: string, verbs: string[] }} Subresource
 * @typedef {object} Resource
 * @property {string} group
 * @property {string} version
 * @property {string} resource
 * @property {string} singular
 * @property {string} kind
 * @property {string | undefined} listKind   absent for create-only kinds (reviews, bindings), which have no list
 * @property {boolean} namespaced
 * @property {string[]} verbs
 * @property {string[]} shortNames
 * @property {string[]} categories
 * @property {Subresource[]} subresources
 * @property {boolean} servedByDefault
 * @property {{ introduced?: string, deprecated?: string, removed?: string }} lifecycle  `+k8s:prerelease-lifecycle-gen:*` markers of the kind
 * @property {string} type               qualified Go type of the kind
 * @property {string | undefined} listType qualified Go type of the list kind
 */

const GO_BUILTINS = new Set([
  "string", "bool", "byte", "rune", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
  "uintptr", "float32", "float64", "complex64", "complex128", "error", "any",
]);

/** `k8s.io/api/core/v1` → `io.k8s.api.core.v1` (kube-openapi's canonical type names). */
export function openapiPrefixOf(importPath) {
  const [host, ...rest] = importPath.split("/");
  return [...host.split(".").reverse(), ...rest].join(".");
}

/** Module layout of kubernetes-types: api packages by group/version, apimachinery by their short paths. */
function moduleOf(importPath) {
  const table = {
    "k8s.io/apimachinery/pkg/apis/meta/v1": "meta/v1",
    "k8s.io/apimachinery/pkg/runtime": "runtime",
    "k8s.io/apimachinery/pkg/api/resource": "api/resource",
    "k8s.io/apimachinery/pkg/util/intstr": "util/intstr",
    "k8s.io/apimachinery/pkg/version": "version",
    "k8s.io/apimachinery/pkg/types": "types",
    "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1": "apiextensions/v1",
    "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1": "apiregistration/v1",
  };
  if (table[importPath]) return table[importPath];
  const m = /^k8s\.io\/api\/([^/]+)\/([^/]+)$/.exec(importPath);
  if (!m) throw new Error(`no module path for ${importPath}`);
  return `${m[1]}/${m[2]}`;
}

/**
 * gengo's plural namer (k8s.io/gengo/v2/namer), lower-cased: what client-gen and the registry
 * name a kind's resource.
 */
export function pluralOf(kind) {
  if (PLURAL_EXCEPTIONS[kind]) return PLURAL_EXCEPTIONS[kind];
  const s = kind;
  const isConsonant = (c) => !"aeiou".includes(c.toLowerCase());
  let p;
  const last = s[s.length - 1];
  const prev = s[s.length - 2];
  if (s.length < 2) p = s;
  else if (last === "s" || last === "x" || last === "z") p = `${s}es`;
  else if (last === "y") p = isConsonant(prev) ? `${s.slice(0, -1)}ies` : `${s}s`;
  else if (last === "h") p = prev === "c" || prev === "s" ? `${s}es` : `${s}s`;
  else if (last === "e") p = prev === "f" ? `${s.slice(0, -2)}ves` : `${s}s`;
  else if (last === "f") p = `${s.slice(0, -1)}ves`;
  else p = `${s}s`;
  return p.toLowerCase();
}

/** The primary and auxiliary Go files of every package. */
function discover(k8sApiDir, inputDir) {
  /** @type {{ path: string, primary: string[], aux: string[], swagger: string[], register?: string, doc?: string }[]} */
  const pkgs = [];
  const apiDir = join(k8sApiDir, "api");
  for (const group of readdirSync(apiDir).sort()) {
    for (const version of readdirSync(join(apiDir, group)).sort()) {
      const dir = join(apiDir, group, version);
      const swagger = join(dir, "types_swagger_doc_generated.go");
      pkgs.push({
        path: `k8s.io/api/${group}/${version}`,
        primary: [join(dir, "types.go")],
        aux: [],
        swagger: existsSync(swagger) ? [swagger] : [],
        register: join(dir, "register.go"),
      });
    }
  }
  const meta = join(k8sApiDir, "apimachinery/pkg/apis/meta/v1");
  const metaAux = join(inputDir, "apimachinery/pkg/apis/meta/v1");
  pkgs.push({
    path: "k8s.io/apimachinery/pkg/apis/meta/v1",
    primary: [join(meta, "types.go")],
    aux: readdirSync(metaAux).filter((f) => f.endsWith(".go")).sort().map((f) => join(metaAux, f)),
    swagger: [join(meta, "types_swagger_doc_generated.go")],
    register: join(meta, "register.go"),
  });
  for (const sub of ["runtime", "util/intstr", "api/resource", "version", "types"]) {
    const dir = join(inputDir, "apimachinery/pkg", sub);
    pkgs.push({ path: `k8s.io/apimachinery/pkg/${sub}`, primary: [], aux: readdirSync(dir).filter((f) => f.endsWith(".go")).sort().map((f) => join(dir, f)), swagger: [] });
  }
  const apiext = join(k8sApiDir, "apiextensions/pkg/apis/apiextensions/v1");
  pkgs.push({
    path: "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1",
    primary: [join(apiext, "types.go"), join(apiext, "types_jsonschema.go")],
    aux: [],
    swagger: [],
    register: join(apiext, "register.go"),
  });
  const agg = join(inputDir, "kube-aggregator/pkg/apis/apiregistration/v1");
  pkgs.push({
    path: "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1",
    primary: [join(agg, "types.go")],
    aux: [],
    swagger: [],
    register: join(agg, "register.go"),
    doc: join(agg, "doc.go"),
  });
  return pkgs;
}

function read(file) {
  return parseGoFile(readFileSync(file, "utf8"), file);
}

/** @param {import("./gosource.mjs").Token[]} toks */
function tokenText(toks) {
  return toks.map((t) => t.v).join(" ");
}

export class Model {
  /**
   * @param {{ k8sApiDir: string, inputDir: string, smdSchemaText?: string }} opts
   */
  constructor(opts) {
    this.k8sApiDir = opts.k8sApiDir;
    this.inputDir = opts.inputDir;
    /** @type {Map<string, Pkg>} */
    this.packages = new Map();
    /** @type {Map<string, GoType>} */
    this.types = new Map();
    /** Parsed Go files of each package (types and constants). */
    /** @type {Map<string, GoFile[]>} */
    this.files = new Map();
    /** qualified type → GVKs it is registered under in kube-apiserver's scheme */
    /** @type {Map<string, GVK[]>} */
    this.gvks = new Map();
    /** @type {Resource[]} */
    this.resources = [];
    this.load(discover(opts.k8sApiDir, opts.inputDir));
  }

  /** @param {ReturnType<typeof discover>} sources */
  load(sources) {
    /** @type {{ pkg: Pkg, src: (typeof sources)[number], files: { f: GoFile, primary: boolean }[] }[]} */
    const loaded = [];
    for (const src of sources) {
      /** @type {Pkg} */
      const pkg = {
        path: src.path,
        module: moduleOf(src.path),
        openapiPrefix: openapiPrefixOf(src.path),
        group: undefined,
        version: undefined,
        types: new Map(),
        swagger: new Map(),
        known: [],
        metaTypes: false,
        inScheme: !NOT_IN_APISERVER_SCHEME.has(src.path),
      };
      this.packages.set(pkg.path, pkg);
      const files = [...src.primary.map((p) => ({ f: read(p), primary: true })), ...src.aux.map((p) => ({ f: read(p), primary: false }))];
      for (const sw of src.swagger) {
        for (const v of read(sw).vars) {
          if (!v.name.startsWith("map_")) continue;
          const m = mapStringLiteral(v.value);
          if (m) pkg.swagger.set(v.name.slice(4), m);
        }
      }
      loaded.push({ pkg, src, files });
      this.files.set(pkg.path, files.map((x) => x.f));
    }
    // Declarations.
    for (const { pkg, files } of loaded) {
      for (const { f, primary } of files) {
        for (const d of f.types) {
          if (!/^[A-Z]/.test(d.name)) continue;
          const q = `${pkg.path}.${d.name}`;
          if (this.types.has(q)) throw new Error(`type ${q} declared twice`);
          /** @type {GoType} */
          const t = {
            q,
            pkg,
            name: d.name,
            doc: d.doc,
            doc2: d.doc2,
            tags: commentTags(d.doc),
            allTags: commentTags([...d.doc2, ...d.doc]),
            alias: d.alias,
            def: { k: "interface" },
            fields: [],
            primary,
            special: SPECIAL_TYPES[q],
            description: "",
            enumValues: undefined,
            enumMarked: false,
            consts: [],
            /** @type {any} */ _decl: d,
            /** @type {any} */ _file: f,
          };
          pkg.types.set(d.name, t);
          this.types.set(q, t);
        }
      }
    }
    // Definitions, fields, descriptions.
    for (const t of this.types.values()) this.resolveType(t);
    // `type MatchCondition v1.MatchCondition`: a new struct type with the fields of another.
    for (let changed = true; changed; ) {
      changed = false;
      for (const t of this.types.values()) {
        if (t.alias || t.special || t.def.k !== "named") continue;
        const target = this.follow(t.def);
        if (!target || target.special || target.def.k !== "struct") continue;
        t.def = { k: "struct" };
        t.fields = target.fields;
        changed = true;
      }
    }
    // Constants (enum values).
    for (const { pkg, files } of loaded) for (const { f } of files) this.loadConsts(pkg, f);
    for (const t of this.types.values()) {
      if (t.consts.length > 0 && this.underlyingBuiltin(t) === "string") {
        t.enumValues = [...new Set(t.consts.map((c) => c.value))].sort();
        t.enumMarked = t.tags.has("enum");
      }
    }
    // Registration.
    const metaReg = this.readMetaRegistration(loaded.find((l) => l.pkg.path === "k8s.io/apimachinery/pkg/apis/meta/v1"));
    for (const { pkg, src } of loaded) {
      if (!src.register || pkg.path === "k8s.io/apimachinery/pkg/apis/meta/v1") continue;
      this.readRegistration(pkg, read(src.register));
    }
    this.computeGVKs(metaReg);
    this.buildResources();
    this.descriptionCheck = this.checkDescriptions();
    for (const t of this.types.values()) {
      delete (/** @type {any} */ (t)._decl);
      delete (/** @type {any} */ (t)._file);
    }
  }

  /**
   * Descriptions come from the doc comments, formatted as kube-openapi formats them (which is
   * what kube-apiserver serves). types_swagger_doc_generated.go holds the same texts produced by
   * a slightly different formatter (it cuts at any "---" and unescapes backslashes), so it serves
   * as a check that comments attach to the right declarations: beyond those known differences,
   * the two must agree.
   */
  checkDescriptions() {
    let compared = 0;
    /** @type {string[]} */
    const mismatches = [];
    for (const t of this.types.values()) {
      const sw = t.pkg.swagger.get(t.name);
      if (!sw) continue;
      const check = (mine, theirs, where) => {
        if (theirs === undefined) return;
        compared++;
        if (mine === theirs || mine.includes("---") || mine.includes("\\")) return;
        mismatches.push(where);
      };
      check(t.description, sw[""], t.q);
      for (const f of t.fields) if (f.name) check(f.description, sw[f.name], `${t.q}.${f.name}`);
    }
    if (mismatches.length > compared / 200) {
      throw new Error(`doc comments disagree with the swagger docs in ${mismatches.length} of ${compared} places, e.g. ${mismatches.slice(0, 5).join(", ")}`);
    }
    return { compared, mismatches };
  }

  /**
   * @param {GoFile} file @param {Pkg} pkg @param {TypeExpr} e
   * @returns {Ref}
   */
  resolveExpr(file, pkg, e) {
    switch (e.k) {
      case "ident":
        if (GO_BUILTINS.has(e.name)) return { k: "builtin", name: e.name === "any" ? "interface" : e.name };
        return { k: "named", q: `${pkg.path}.${e.name}` };
      case "qual": {
        const path = file.imports.get(e.pkg);
        if (!path) throw new Error(`${file.file}: unknown package ${e.pkg} in ${e.pkg}.${e.name}`);
        return { k: "named", q: `${path}.${e.name}` };
      }
      case "ptr":
        return { k: "ptr", elem: this.resolveExpr(file, pkg, e.elem) };
      case "slice":
        return { k: "slice", elem: this.resolveExpr(file, pkg, e.elem) };
      case "array":
        return { k: "array", elem: this.resolveExpr(file, pkg, e.elem), len: e.len };
      case "map":
        return { k: "map", key: this.resolveExpr(file, pkg, e.key), elem: this.resolveExpr(file, pkg, e.elem) };
      case "struct":
        return { k: "struct" };
      case "interface":
        return { k: "interface" };
      case "func":
        return { k: "interface" };
      default:
        throw new Error(`unsupported type expression ${JSON.stringify(e)}`);
    }
  }

  /** @param {GoType} t */
  resolveType(t) {
    /** @type {any} */
    const d = /** @type {any} */ (t)._decl;
    /** @type {GoFile} */
    const file = /** @type {any} */ (t)._file;
    const pkg = t.pkg;
    t.def = this.resolveExpr(file, pkg, d.type);
    t.description = description(t.doc);
    if (d.type.k !== "struct" || t.special) return;
    for (const f of d.type.fields) {
      const exported = f.embedded ? true : /^[A-Z]/.test(f.names[0]);
      if (!exported) continue;
      const jsonTag = tagLookup(f.tag, "json");
      const parts = jsonTag === undefined ? [] : jsonTag.split(",");
      const ref = this.resolveExpr(file, pkg, f.type);
      const goNames = f.embedded ? [embeddedName(f.type)] : f.names;
      for (const goName of goNames) {
        const inline = f.embedded && jsonTag !== undefined && (jsonTag === "" || jsonTag.startsWith(","));
        let name = parts.length > 0 ? parts[0] : goName;
        if (name === "") name = goName;
        const tags = commentTags(f.doc);
        const omitempty = jsonTag !== undefined && (jsonTag.endsWith(",omitempty") || jsonTag.includes(",omitempty,"));
        let optional;
        if (tags.has("optional") && tags.has("required")) throw new Error(`${t.q}.${goName} is both +optional and +required`);
        else if (tags.has("required")) optional = false;
        else if (tags.has("optional")) optional = true;
        else optional = omitempty;
        const jsonName = parts[0] === "-" && parts.length === 1 ? null : name;
        /** @type {Field} */
        const field = {
          goName,
          name: inline ? null : jsonName,
          embedded: f.embedded,
          inline,
          omitempty,
          omitzero: parts.slice(1).includes("omitzero"),
          asString: parts.slice(1).includes("string"),
          ref,
          doc: f.doc,
          tags,
          optional,
          patchStrategy: tagLookup(f.tag, "patchStrategy"),
          patchMergeKey: tagLookup(f.tag, "patchMergeKey"),
          protobuf: tagLookup(f.tag, "protobuf"),
          description: "",
        };
        if (field.name !== null) field.description = description(f.doc);
        t.fields.push(field);
      }
    }
  }

  /** @param {Pkg} pkg @param {GoFile} f */
  loadConsts(pkg, f) {
    for (const c of f.consts) {
      if (!c.type || c.type.k === "struct") continue;
      const value = this.constValue(pkg, f, c.value);
      if (value === undefined) continue;
      const ref = this.resolveExpr(f, pkg, c.type);
      if (ref.k !== "named") continue;
      const t = this.follow(ref);
      if (!t) continue;
      t.consts.push({ name: c.name, value, doc: c.doc });
    }
  }

  /**
   * A string constant's value: a literal, or a reference to another string constant.
   * @param {Pkg} pkg @param {GoFile} f @param {import("./gosource.mjs").Token[]} toks
   * @returns {string | undefined}
   */
  constValue(pkg, f, toks) {
    if (toks.length === 1 && (toks[0].t === "string" || toks[0].t === "rawstring")) return stringValue(toks[0]);
    if (toks.length === 1 && toks[0].t === "ident") return this.lookupConst(pkg.path, toks[0].v);
    if (toks.length === 3 && toks[0].t === "ident" && toks[1].v === "." && toks[2].t === "ident") {
      const path = f.imports.get(toks[0].v);
      return path ? this.lookupConst(path, toks[2].v) : undefined;
    }
    return undefined;
  }

  lookupConst(pkgPath, name) {
    const pkg = this.packages.get(pkgPath);
    for (const f of this.files.get(pkgPath) ?? []) {
      const c = f.consts.find((x) => x.name === name);
      if (c && pkg) return this.constValue(pkg, f, c.value);
    }
    return undefined;
  }

  /** The type a named reference points to, following type aliases (`type X = Y`). */
  follow(ref) {
    let r = ref;
    for (let i = 0; i < 10; i++) {
      if (r.k !== "named") return undefined;
      const t = this.types.get(r.q);
      if (!t) return undefined;
      if (!t.alias) return t;
      r = t.def;
    }
    throw new Error(`alias loop at ${ref.q}`);
  }

  /** The builtin a named scalar type is defined as (`type Protocol string` → "string"), or undefined. */
  underlyingBuiltin(t) {
    let r = t.def;
    for (let i = 0; i < 10; i++) {
      if (r.k === "builtin") return r.name;
      if (r.k !== "named") return undefined;
      const next = this.types.get(r.q);
      if (!next || next.special) return undefined;
      r = next.def;
    }
    return undefined;
  }

  /** @param {string} q */
  type(q) {
    const t = this.types.get(q);
    if (!t) throw new Error(`unknown type ${q}`);
    return t;
  }

  /**
   * The JSON-visible fields of a struct type, with inline embedded members flattened as
   * kube-openapi's generateMembers and encoding/json flatten them.
   * @param {GoType} t
   * @returns {{ field: Field, owner: GoType }[]}
   */
  members(t) {
    this.membersCache ??= new Map();
    const cached = this.membersCache.get(t.q);
    if (cached) return cached;
    /** @type {{ field: Field, owner: GoType }[]} */
    const out = [];
    this.membersCache.set(t.q, out);
    for (const f of t.fields) {
      if (f.inline) {
        let r = f.ref;
        while (r.k === "ptr") r = r.elem;
        const inner = this.follow(r);
        if (!inner) throw new Error(`${t.q}.${f.goName}: inline type ${JSON.stringify(r)} is unknown`);
        out.push(...this.members(inner));
        continue;
      }
      if (f.name === null) continue;
      out.push({ field: f, owner: t });
    }
    return out;
  }

  // ---------------------------------------------------------------------------------- scheme

  /** metav1.AddToGroupVersion's registrations, read from meta/v1 register.go. */
  readMetaRegistration(entry) {
    const file = read(join(this.k8sApiDir, "apimachinery/pkg/apis/meta/v1/register.go"));
    const fn = file.funcs.find((x) => x.name === "AddToGroupVersion");
    if (!fn) throw new Error("meta/v1 register.go: AddToGroupVersion not found");
    const body = fn.body;
    /** @type {string[]} */
    const perGroupVersion = [];
    /** @type {{ group: string, version: string, types: string[] }} */
    const unversioned = { group: "", version: "", types: [] };
    const constString = (name) => {
      const c = file.consts.find((x) => x.name === name) ?? entry.files.flatMap((x) => x.f.consts).find((x) => x.name === name);
      return c ? stringValue(c.value[0]) : undefined;
    };
    const typesIn = (toks) => {
      /** @type {string[]} */
      const out = [];
      for (let i = 0; i + 3 < toks.length; i++) {
        if (toks[i].v === "&" && toks[i + 1].t === "ident" && toks[i + 2].v === "{" && toks[i + 3].v === "}") out.push(toks[i + 1].v);
      }
      return out;
    };
    for (const call of calls(body)) {
      if (call.name === "AddKnownTypeWithName") {
        // scheme.AddKnownTypeWithName(groupVersion.WithKind(WatchEventKind), &WatchEvent{})
        const text = tokenText(call.args);
        if (!/^groupVersion \. WithKind/.test(text)) continue;
        const kindConst = call.args[4]?.v;
        const kind = constString(kindConst);
        const types = typesIn(call.args);
        if (kind && types.length === 1) perGroupVersion.push(`${kind}=${types[0]}`);
      } else if (call.name === "AddKnownTypes" && call.args[0]?.v === "groupVersion") {
        // scheme.AddKnownTypes(groupVersion, optionsTypes...)
        const varName = call.args[2]?.v;
        const v = file.vars.find((x) => x.name === varName);
        if (!v) throw new Error(`meta/v1 register.go: ${varName} not found`);
        for (const ty of typesIn(v.value)) perGroupVersion.push(`${ty}=${ty}`);
      } else if (call.name === "AddUnversionedTypes" && call.args[0]?.v === "Unversioned") {
        const v = file.vars.find((x) => x.name === "Unversioned");
        if (!v) throw new Error("meta/v1 register.go: Unversioned not found");
        const gv = groupVersionLiteral(v.value, () => undefined);
        unversioned.group = gv.group;
        unversioned.version = gv.version;
        unversioned.types.push(...typesIn(call.args));
      }
    }
    if (perGroupVersion.length === 0 || unversioned.types.length === 0) throw new Error("meta/v1 register.go: AddToGroupVersion has an unexpected shape");
    return { perGroupVersion, unversioned };
  }

  /** @param {Pkg} pkg @param {GoFile} file */
  readRegistration(pkg, file) {
    const groupConst = file.consts.find((c) => c.name === "GroupName");
    const gvVar = file.vars.find((v) => v.name === "SchemeGroupVersion");
    if (!gvVar) return;
    const gv = groupVersionLiteral(gvVar.value, (name) => (name === "GroupName" && groupConst ? stringValue(groupConst.value[0]) : undefined));
    pkg.group = gv.group;
    pkg.version = gv.version;
    const fn = file.funcs.find((x) => x.name === "addKnownTypes");
    if (!fn) return;
    for (const call of calls(fn.body)) {
      if (call.name === "AddKnownTypes" && call.args[0]?.v === "SchemeGroupVersion") {
        for (let i = 1; i < call.args.length; i++) {
          if (call.args[i].v !== "&") continue;
          // &Kind{} or &pkg.Kind{}
          const a = call.args;
          if (a[i + 1]?.t === "ident" && a[i + 2]?.v === "{") {
            pkg.known.push({ kind: a[i + 1].v, type: `${pkg.path}.${a[i + 1].v}` });
          } else if (a[i + 1]?.t === "ident" && a[i + 2]?.v === "." && a[i + 3]?.t === "ident" && a[i + 4]?.v === "{") {
            const path = file.imports.get(a[i + 1].v);
            if (!path) throw new Error(`${file.file}: unknown package ${a[i + 1].v}`);
            pkg.known.push({ kind: a[i + 3].v, type: `${path}.${a[i + 3].v}` });
          }
        }
      } else if (call.name === "AddToGroupVersion") {
        pkg.metaTypes = true;
      } else if (call.name === "AddKnownTypes" || call.name === "AddKnownTypeWithName" || call.name === "AddUnversionedTypes") {
        throw new Error(`${file.file}: unsupported registration ${call.name}(${tokenText(call.args)})`);
      }
    }
  }

  /**
   * x-kubernetes-group-version-kind of every type: the kinds it is registered as in
   * kube-apiserver's scheme (its own group version; the meta types in every group version).
   */
  computeGVKs(metaReg) {
    const META = "k8s.io/apimachinery/pkg/apis/meta/v1";
    const add = (q, gvk) => {
      let list = this.gvks.get(q);
      if (!list) this.gvks.set(q, (list = []));
      if (!list.some((x) => x.group === gvk.group && x.version === gvk.version && x.kind === gvk.kind)) list.push(gvk);
    };
    /** @type {{ group: string, version: string }[]} */
    const metaGVs = [];
    for (const pkg of this.packages.values()) {
      if (pkg.group === undefined || pkg.version === undefined || !pkg.inScheme) continue;
      for (const k of pkg.known) add(k.type, { group: pkg.group, version: pkg.version, kind: k.kind });
      if (pkg.metaTypes) metaGVs.push({ group: pkg.group, version: pkg.version });
    }
    metaGVs.push(...EXTRA_SCHEME_GROUP_VERSIONS);
    for (const gv of metaGVs) {
      for (const entry of metaReg.perGroupVersion) {
        const [kind, type] = entry.split("=");
        add(`${META}.${type}`, { group: gv.group, version: gv.version, kind });
      }
    }
    for (const ty of metaReg.unversioned.types) add(`${META}.${ty}`, { group: metaReg.unversioned.group, version: metaReg.unversioned.version, kind: ty });
    for (const list of this.gvks.values()) list.sort((a, b) => cmp(a.group, b.group) || cmp(a.version, b.version) || cmp(a.kind, b.kind));
  }

  // ------------------------------------------------------------------------------ resources

  buildResources() {
    for (const pkg of this.packages.values()) {
      if (pkg.group === undefined || pkg.version === undefined) continue;
      for (const t of pkg.types.values()) {
        if (!t.allTags.has("genclient") || t.allTags.has("genclient:noVerbs")) continue;
        const group = pkg.group;
        const resource = t.allTags.get("resourceName")?.[0] ?? pluralOf(t.name);
        const key = `${group}/${resource}`;
        const listKind = `${t.name}List`;
        if (!pkg.known.some((k) => k.kind === t.name)) throw new Error(`${t.q} has +genclient but is not registered`);
        const hasList = pkg.known.some((k) => k.kind === listKind);
        if (!hasList && verbs_list_required(t)) throw new Error(`${t.q}: ${listKind} is not registered`);
        let verbs = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
        const only = t.allTags.get("genclient:onlyVerbs");
        const skip = t.allTags.get("genclient:skipVerbs");
        if (only) verbs = only.flatMap((v) => v.split(",")).map((v) => v.toLowerCase());
        if (skip) {
          const s = new Set(skip.flatMap((v) => v.split(",")).map((v) => v.toLowerCase()));
          verbs = verbs.filter((v) => !s.has(v));
        }
        verbs = (VERB_OVERRIDES[key] ?? verbs).filter((v) => v !== "apply").sort();
        /** @type {Subresource[]} */
        const subresources = [];
        const writable = verbs.includes("update");
        if (writable && this.members(t).some((m) => m.field.name === "status")) {
          subresources.push({ name: "status", group, version: pkg.version, kind: t.name, verbs: SUBRESOURCE_VERBS.status });
        }
        for (const m of t.allTags.get("genclient:method") ?? []) {
          const params = Object.fromEntries(m.split(",").slice(1).map((kv) => kv.split("=")));
          if (!params.subresource || subresources.some((s) => s.name === params.subresource)) continue;
          const result = params.result ?? params.input;
          let kindGV = { group, version: pkg.version, kind: t.name };
          if (result) {
            const q = result.includes("/") ? result : `${pkg.path}.${result}`;
            kindGV = this.kindOf(q);
          }
          const sv = SUBRESOURCE_VERBS[params.subresource];
          if (!sv) throw new Error(`${t.q}: no verbs known for subresource ${params.subresource}`);
          subresources.push({ name: params.subresource, ...kindGV, verbs: sv });
        }
        for (const extra of EXTRA_SUBRESOURCES[key] ?? []) {
          const [gv, kind] = extra.kind.split(".");
          const [g, v] = gv.split("/");
          subresources.push({ name: extra.name, group: g, version: v, kind, verbs: extra.verbs });
        }
        subresources.sort((a, b) => cmp(a.name, b.name));
        const names = RESOURCE_NAMES[key] ?? {};
        this.resources.push({
          group,
          version: pkg.version,
          resource,
          singular: t.name.toLowerCase(),
          kind: t.name,
          listKind: hasList ? listKind : undefined,
          namespaced: !t.allTags.has("genclient:nonNamespaced"),
          verbs,
          shortNames: names.shortNames ?? [],
          categories: names.categories ?? [],
          subresources,
          servedByDefault: servedByDefault(pkg.version),
          lifecycle: lifecycleOf(t),
          type: t.q,
          listType: hasList ? `${pkg.path}.${listKind}` : undefined,
        });
      }
    }
    for (const x of EXTRA_RESOURCES) {
      const pkg = [...this.packages.values()].find((p) => p.group === x.group && p.version === x.version);
      if (!pkg) throw new Error(`no package for ${x.group}/${x.version}`);
      this.resources.push({
        group: x.group,
        version: x.version,
        resource: x.resource,
        singular: x.kind.toLowerCase(),
        kind: x.kind,
        listKind: undefined,
        namespaced: x.namespaced,
        verbs: [...x.verbs].sort(),
        shortNames: [],
        categories: [],
        subresources: [],
        servedByDefault: servedByDefault(x.version),
        lifecycle: {},
        type: `${pkg.path}.${x.kind}`,
        listType: undefined,
      });
    }
    this.resources.sort((a, b) => cmp(a.group, b.group) || versionOrder(a.group, a.version, b.version) || cmp(a.resource, b.resource));
  }

  /** The GVK a registered type is known as in its own package. */
  kindOf(q) {
    const dot = q.lastIndexOf(".");
    const pkg = this.packages.get(q.slice(0, dot));
    if (!pkg || pkg.group === undefined || pkg.version === undefined) throw new Error(`type ${q} is not in a registered package`);
    const k = pkg.known.find((x) => x.type === q);
    if (!k) throw new Error(`type ${q} is not registered`);
    return { group: pkg.group, version: pkg.version, kind: k.kind };
  }

  /** The qualified Go type of a GVK. */
  typeOfKind(group, version, kind) {
    for (const pkg of this.packages.values()) {
      if (pkg.group !== group || pkg.version !== version) continue;
      const k = pkg.known.find((x) => x.kind === kind);
      if (k) return k.type;
    }
    return undefined;
  }

  /** OpenAPI definition name of a type. */
  definitionName(q) {
    const t = this.type(q);
    return `${t.pkg.openapiPrefix}.${t.name}`;
  }

  /** Group versions with resources, in discovery order (groups sorted, core first; versions by priority). */
  groupVersions() {
    /** @type {Map<string, Set<string>>} */
    const byGroup = new Map();
    for (const r of this.resources) {
      let s = byGroup.get(r.group);
      if (!s) byGroup.set(r.group, (s = new Set()));
      s.add(r.version);
    }
    return [...byGroup.entries()]
      .sort((a, b) => cmp(a[0], b[0]))
      .map(([group, versions]) => ({ group, versions: [...versions].sort((a, b) => versionOrder(group, a, b)) }));
  }

  /** Types every emitter covers: the primary packages' types plus what they reach and the extra roots. */
  emittedTypes() {
    if (this.emittedCache) return this.emittedCache;
    /** @type {Set<string>} */
    const seen = new Set();
    const stack = [];
    for (const t of this.types.values()) if (t.primary && this.isEmittable(t)) stack.push(t.q);
    stack.push(...EXTRA_ROOT_TYPES);
    while (stack.length > 0) {
      const q = stack.pop();
      if (q === undefined || seen.has(q)) continue;
      const t = this.types.get(q);
      if (!t) throw new Error(`type ${q} is referenced but not declared in the inputs`);
      seen.add(q);
      for (const r of this.refsOf(t)) if (!seen.has(r)) stack.push(r);
    }
    this.emittedCache = [...seen].sort();
    return this.emittedCache;
  }

  /** Whether a type is a declaration of its own in the outputs (structs, special types, aliases of those). */
  isEmittable(t) {
    if (t.special) return true;
    if (t.alias) {
      const target = this.follow(t.def);
      return target !== undefined && (target.def.k === "struct" || target.special !== undefined);
    }
    return t.def.k === "struct";
  }

  /** Qualified names of the types a type's definition references (through fields and named scalars). */
  refsOf(t) {
    /** @type {Set<string>} */
    const out = new Set();
    const visit = (r) => {
      switch (r.k) {
        case "named": {
          const target = this.types.get(r.q);
          if (!target) throw new Error(`${t.q} references unknown type ${r.q}`);
          out.add(r.q);
          return;
        }
        case "ptr":
        case "slice":
        case "array":
          visit(r.elem);
          return;
        case "map":
          visit(r.key);
          visit(r.elem);
          return;
        default:
          return;
      }
    };
    if (t.special) return out;
    if (t.def.k === "struct") for (const f of t.fields) visit(f.ref);
    else visit(t.def);
    return out;
  }
}

/** The prerelease-lifecycle markers of a kind (introduced/deprecated/removed Kubernetes versions). */
function lifecycleOf(t) {
  /** @type {{ introduced?: string, deprecated?: string, removed?: string }} */
  const out = {};
  for (const k of ["introduced", "deprecated", "removed"]) {
    const v = t.allTags.get(`k8s:prerelease-lifecycle-gen:${k}`)?.[0];
    if (v) out[k] = v;
  }
  return out;
}

/** Kinds that can be listed must register a list kind. */
function verbs_list_required(t) {
  const only = t.allTags.get("genclient:onlyVerbs");
  return !only || only.some((v) => v.split(",").includes("list"));
}

function embeddedName(e) {
  if (e.k === "ptr") return embeddedName(e.elem);
  if (e.k === "ident" || e.k === "qual") return e.name;
  throw new Error(`unsupported embedded field ${JSON.stringify(e)}`);
}

/** Calls `x.Name(args)` / `Name(args)` in a function body, with their argument tokens. */
function calls(body) {
  const out = [];
  for (let i = 0; i < body.length; i++) {
    if (body[i].t !== "ident" || body[i + 1]?.v !== "(") continue;
    let depth = 0;
    const args = [];
    let j = i + 1;
    for (; j < body.length; j++) {
      const v = body[j].v;
      if (v === "(") depth++;
      else if (v === ")") {
        depth--;
        if (depth === 0) break;
      }
      if (j > i + 1) args.push(body[j]);
    }
    out.push({ name: body[i].v, args });
  }
  return out;
}

/** schema.GroupVersion{Group: X, Version: "v1"} */
function groupVersionLiteral(toks, lookup) {
  let group;
  let version;
  for (let i = 0; i + 2 < toks.length; i++) {
    if (toks[i].v === "Group" && toks[i + 1].v === ":") group = toks[i + 2].t === "string" ? stringValue(toks[i + 2]) : lookup(toks[i + 2].v);
    if (toks[i].v === "Version" && toks[i + 1].v === ":") version = toks[i + 2].t === "string" ? stringValue(toks[i + 2]) : lookup(toks[i + 2].v);
  }
  if (group === undefined || version === undefined) throw new Error(`cannot read group version from ${tokenText(toks)}`);
  return { group, version };
}

function cmp(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Kubernetes version order (stable > beta > alpha, higher numbers first), with the
 * VERSION_PRIORITY overrides: the order discovery lists a group's versions in.
 */
export function versionOrder(group, a, b) {
  const prio = VERSION_PRIORITY[group];
  if (prio) {
    const ia = prio.indexOf(a);
    const ib = prio.indexOf(b);
    if (ia >= 0 && ib >= 0) return ia - ib;
  }
  const parse = (v) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [0, 0, 0];
    const level = m[2] === undefined ? 3 : m[2] === "beta" ? 2 : 1;
    return [level, Number(m[1]), Number(m[3] ?? 0)];
  };
  const pa = parse(a);
  const pb = parse(b);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pb[i] - pa[i];
  return 0;
}
