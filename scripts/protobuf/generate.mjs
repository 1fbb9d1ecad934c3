#!/usr/bin/env node
/**
 * Generates the protobuf field tables in src/apiserver/protobuf/schemas/ from the Kubernetes 1.36
 * API definitions: every message of every group/version's generated.proto (k8s.io/api,
 * apimachinery's meta/v1, apiextensions-apiserver, kube-aggregator's apiregistration), joined
 * with the package's Go types for what the .proto does not carry.
 *
 * Usage:  node scripts/protobuf/generate.mjs [--check] [--input DIR]
 *   --input DIR  the k8s-api-1.36 folder (default: shared/k8s-api-1.36 beside the repository,
 *                or $KUBELOOP_K8S_API)
 *   --check      write nothing; exit 1 when the committed tables differ from what would be written
 *
 * What comes from where:
 * - generated.proto: the message set, field numbers, wire types (int32/int64/bool/string/bytes/
 *   double, messages, `map<K,V>`, `repeated`).
 * - the Go types (types.go, types_jsonschema.go): JSON names (the Go json tag — JSONSchemaProps'
 *   `$ref` is proto `ref`), omitempty/omitzero, Go pointers (present on the wire means set, even
 *   when zero), embedded structs (`json:",inline"` → fields merged into the parent object), and
 *   named slices such as `type ExtraValue []string` (a wrapper message `{ repeated T items = 1 }`
 *   on the wire, a plain JSON array). Fields are matched by number (the Go protobuf tag repeats
 *   it); every proto field must find its Go field and agree on cardinality, or generation fails.
 * - kinds: the structs that embed TypeMeta, under the apiVersion of register.go's GroupName.
 * Types with hand-written codecs (Time, MicroTime, Duration, Quantity, IntOrString,
 * RawExtension, FieldsV1, apiextensions JSON and JSONSchemaPropsOr*) become named special types
 * that the decoder implements (see src/apiserver/protobuf/schema.ts for the table format).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseProto, PROTO_SCALARS } from "./proto.mjs";
import { readGoPackageFile } from "./gostructs.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const outDir = join(root, "src", "apiserver", "protobuf", "schemas");
const aggregatorDir = join(root, "scripts", "apigen", "input", "kube-aggregator", "pkg", "apis", "apiregistration");
const gnosticProto = join(root, "scripts", "protobuf", "input", "gnostic", "OpenAPIv2.proto");

function parseArgs() {
  const args = process.argv.slice(2);
  const opts = { check: false, input: process.env.KUBELOOP_K8S_API ?? "" };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--check") opts.check = true;
    else if (args[i] === "--input") opts.input = args[++i];
    else throw new Error(`unknown argument ${args[i]}`);
  }
  return opts;
}

/** The k8s-api-1.36 folder: given, or shared/ beside the repository (or beside its worktree folder). */
export function findK8sApi(given = "") {
  const candidates = given ? [given] : [join(root, "..", "shared", "k8s-api-1.36"), join(root, "..", "..", "shared", "k8s-api-1.36")];
  for (const c of candidates) if (existsSync(join(c, "api", "core", "v1", "generated.proto"))) return resolve(c);
  return undefined;
}

/** Proto message full names with hand-written codecs → special type name. */
const SPECIALS = {
  "k8s.io.apimachinery.pkg.apis.meta.v1.Time": "Time",
  "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime": "MicroTime",
  "k8s.io.apimachinery.pkg.apis.meta.v1.Duration": "Duration",
  "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1": "FieldsV1",
  "k8s.io.apimachinery.pkg.api.resource.Quantity": "Quantity",
  "k8s.io.apimachinery.pkg.util.intstr.IntOrString": "IntOrString",
  "k8s.io.apimachinery.pkg.runtime.RawExtension": "RawExtension",
  "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSON": "JSON",
  "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray": "JSONSchemaPropsOrArray",
  "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool": "JSONSchemaPropsOrBool",
  "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray": "JSONSchemaPropsOrStringArray",
};
/** Messages that are never a field of an API object (Time's wire form, the envelope's own types). */
const NOT_TABLED = new Set([
  "k8s.io.apimachinery.pkg.apis.meta.v1.Timestamp",
]);

/** Proto scalar → table scalar. */
const SCALARS = {
  string: "string", bool: "bool", bytes: "bytes", int32: "int32", int64: "int64", uint32: "uint32",
  uint64: "uint64", sint32: "sint32", sint64: "sint64", double: "double", float: "float",
};

/** Proto package → table package id ("apps/v1"), or undefined for packages without tables. */
function packageId(pkg) {
  let m = /^k8s\.io\.api\.([a-z0-9]+)\.([a-z0-9]+)$/.exec(pkg);
  if (m) return `${m[1]}/${m[2]}`;
  if (pkg === "k8s.io.apimachinery.pkg.apis.meta.v1") return "meta/v1";
  m = /^k8s\.io\.apiextensions_apiserver\.pkg\.apis\.apiextensions\.([a-z0-9]+)$/.exec(pkg);
  if (m) return `apiextensions/${m[1]}`;
  m = /^k8s\.io\.kube_aggregator\.pkg\.apis\.apiregistration\.([a-z0-9]+)$/.exec(pkg);
  if (m) return `apiregistration/${m[1]}`;
  return undefined;
}

/** Every input package: its proto, Go sources and register.go. */
function inputPackages(k8s) {
  const pkgs = [];
  const apiDir = join(k8s, "api");
  for (const group of readdirSync(apiDir).sort()) {
    for (const version of readdirSync(join(apiDir, group)).sort()) {
      const dir = join(apiDir, group, version);
      if (!existsSync(join(dir, "generated.proto"))) continue;
      pkgs.push({ dir, go: ["types.go"] });
    }
  }
  pkgs.push({ dir: join(k8s, "apimachinery", "pkg", "apis", "meta", "v1"), go: ["types.go"] });
  pkgs.push({ dir: join(k8s, "apiextensions", "pkg", "apis", "apiextensions", "v1"), go: ["types.go", "types_jsonschema.go"] });
  for (const version of ["v1", "v1beta1"]) pkgs.push({ dir: join(aggregatorDir, version), go: ["types.go"] });
  // Packages whose messages are all special: parsed to check the special types exist.
  for (const p of ["runtime", "util/intstr", "api/resource"]) pkgs.push({ dir: join(k8s, "apimachinery", "pkg", p), go: [] });
  return pkgs;
}

function groupNameOf(registerGo) {
  const m = /const\s+GroupName\s*=\s*"([^"]*)"/.exec(registerGo);
  if (!m) throw new Error("register.go: no GroupName");
  return m[1];
}

function generate(k8s) {
  const problems = [];
  /** full proto name → { pkg, id, msg, goType } */
  const all = new Map();
  const packages = [];
  for (const p of inputPackages(k8s)) {
    const protoPath = join(p.dir, "generated.proto");
    const proto = parseProto(readFileSync(protoPath, "utf8"), relative(root, protoPath));
    const goTypes = new Map();
    const goImports = new Map();
    for (const f of p.go) {
      const go = readGoPackageFile(readFileSync(join(p.dir, f), "utf8"), join(p.dir, f));
      for (const [k, v] of go.types) goTypes.set(k, v);
      for (const [k, v] of go.imports) goImports.set(k, v);
    }
    const id = packageId(proto.package);
    const registerPath = join(p.dir, "register.go");
    const group = id && existsSync(registerPath) ? groupNameOf(readFileSync(registerPath, "utf8")) : undefined;
    packages.push({ proto, id, goTypes, goImports, group, version: id?.split("/")[1] });
  }
  /** A Go type name as written in package `pkg` ("corev1.ResourceList", "PodSpec") → its declaration. */
  const goLookup = (pkg, name) => {
    const bare = name.replace(/^\*/, "");
    const dot = bare.indexOf(".");
    const here = packages.find((p) => p.proto.package === pkg);
    if (dot < 0) return here?.goTypes.get(bare) && { pkg, type: here.goTypes.get(bare) };
    const path = here?.goImports.get(bare.slice(0, dot));
    if (!path) return undefined;
    const target = path.replaceAll("/", ".").replaceAll("-", "_");
    const there = packages.find((p) => p.proto.package === target);
    const t = there?.goTypes.get(bare.slice(dot + 1));
    return t && { pkg: target, type: t };
  };
  for (const p of packages) {
    for (const [name, msg] of p.proto.messages) {
      // A defined type over another package's struct (`type List metav1.List`) has its fields.
      let goType = p.goTypes.get(name);
      if (goType?.kind === "other" && /^[A-Za-z_][\w.]*$/.test(goType.expr)) goType = goLookup(p.proto.package, goType.expr)?.type ?? goType;
      all.set(`${p.proto.package}.${name}`, { pkg: p.proto.package, id: p.id, msg, goType });
    }
  }
  for (const special of Object.keys(SPECIALS)) if (!all.has(special)) problems.push(`special type ${special} not found in any proto`);

  /** Resolves a proto type name used in package `pkg` to its full name. */
  const resolveName = (pkg, type) => {
    if (type.startsWith(".")) return type.slice(1);
    // Relative: innermost scope first (these files only use same-package or fully qualified names).
    const candidate = `${pkg}.${type}`;
    if (all.has(candidate)) return candidate;
    return type;
  };

  /** The element type of a Go named slice message (`type Verbs []string` → "[]string"), if it is one. */
  const wrapperOf = (full) => {
    const e = all.get(full);
    if (!e?.goType || e.goType.kind !== "other" || !e.goType.expr.startsWith("[]")) return undefined;
    const items = e.msg.fields.find((f) => f.number === 1 && f.label === "repeated");
    if (!items || e.msg.fields.length !== 1) throw new Error(`${full}: a Go slice type whose message is not { repeated T items = 1 }`);
    return `[]${typeString(e.pkg, items.type, full)}`;
  };

  function typeString(pkg, type, where) {
    if (PROTO_SCALARS.has(type)) {
      const s = SCALARS[type];
      if (!s) throw new Error(`${where}: proto scalar ${type} has no table type`);
      return s;
    }
    const full = resolveName(pkg, type);
    if (SPECIALS[full]) return SPECIALS[full];
    const e = all.get(full);
    if (!e) throw new Error(`${where}: unknown message type ${type}`);
    const wrapped = wrapperOf(full);
    if (wrapped) return wrapped;
    if (!e.id) throw new Error(`${where}: message ${full} is in a package without tables`);
    return `${e.id}.${e.msg.name}`;
  }

  /** messageKey → rows */
  const tables = new Map();
  const unmatched = [];
  for (const [full, e] of all) {
    if (!e.id || SPECIALS[full] || NOT_TABLED.has(full) || wrapperOf(full)) continue;
    const key = `${e.id}.${e.msg.name}`;
    const where = key;
    const byNumber = new Map(e.msg.fields.map((f) => [f.number, f]));
    const rows = [];
    if (!e.goType || e.goType.kind !== "struct") {
      // No Go struct in the given sources: JSON names are the proto names, nothing is omitted.
      unmatched.push(key);
      for (const f of e.msg.fields) rows.push(rowFor(e, f, f.name, "", where, undefined));
      tables.set(key, rows);
      continue;
    }
    const seen = new Set();
    for (const gf of e.goType.fields) {
      const pb = gf.tags.protobuf;
      if (pb === undefined || pb === "-") continue;
      const [, numStr] = pb.split(",");
      const number = Number(numStr);
      const f = byNumber.get(number);
      const label = gf.name ?? gf.type;
      if (!f) {
        problems.push(`${where}.${label}: Go protobuf tag number ${number} is not in generated.proto`);
        continue;
      }
      const nameTag = /(?:^|,)name=([^,]+)/.exec(pb)?.[1];
      if (nameTag !== undefined && nameTag !== f.name) problems.push(`${where}.${label}: Go tag name=${nameTag}, proto field ${f.name}`);
      seen.add(number);
      const jsonTag = gf.tags.json;
      const jsonParts = (jsonTag ?? "").split(",");
      const embedded = gf.name === undefined;
      const inline = embedded && jsonParts[0] === "";
      const jsonName = jsonTag === "-" ? "-" : inline ? "" : jsonParts[0] || gf.name || f.name;
      let flags = "";
      if (gf.type.startsWith("*")) flags += "p";
      if (jsonParts.includes("omitempty")) flags += "o";
      if (jsonParts.includes("omitzero")) flags += "z";
      rows.push(rowFor(e, f, jsonName, flags, `${where}.${label}`, gf.type, inline));
    }
    for (const f of e.msg.fields) if (!seen.has(f.number)) problems.push(`${where}: proto field ${f.name} = ${f.number} has no Go field`);
    const numbers = new Set();
    for (const r of rows) {
      if (numbers.has(r[0])) problems.push(`${where}: duplicate field number ${r[0]}`);
      numbers.add(r[0]);
    }
    tables.set(key, rows);
  }

  /** One table row; checks the Go type's cardinality against the proto label. */
  function rowFor(e, f, jsonName, flags, where, goType, inline = false) {
    let type;
    if (f.label === "map") {
      type = `map<${typeString(e.pkg, f.keyType, where)},${typeString(e.pkg, f.valueType, where)}>`;
      flags += "r";
      if (goType !== undefined && !goType.replace(/^\*/, "").startsWith("map[") && !isNamedMap(e, goType)) {
        problems.push(`${where}: proto map, Go type ${goType}`);
      }
    } else if (f.label === "repeated") {
      type = typeString(e.pkg, f.type, where);
      flags += "r";
      if (goType !== undefined && !goType.replace(/^\*/, "").startsWith("[]") && !isNamedSlice(e, goType)) {
        problems.push(`${where}: proto repeated, Go type ${goType}`);
      }
    } else {
      type = typeString(e.pkg, f.type, where);
      if (goType !== undefined && goType.startsWith("[]") && goType !== "[]byte") problems.push(`${where}: proto singular, Go slice ${goType}`);
    }
    if (inline) flags += "i";
    return [f.number, jsonName, type, flags];
  }
  function goNamed(e, goType) {
    return goLookup(e.pkg, goType)?.type;
  }
  function isNamedMap(e, goType) {
    const t = goNamed(e, goType);
    return t?.kind === "other" && t.expr.startsWith("map[");
  }
  function isNamedSlice(e, goType) {
    const t = goNamed(e, goType);
    return t?.kind === "other" && t.expr.startsWith("[]");
  }

  /** apiVersion → kind → message key: structs embedding TypeMeta that have a message. */
  const kinds = {};
  for (const p of packages) {
    if (!p.id || p.group === undefined) continue;
    const apiVersion = p.group === "" ? p.version : `${p.group}/${p.version}`;
    const found = {};
    for (const [name, t] of p.goTypes) {
      if (t.kind !== "struct") continue;
      const embedsTypeMeta = t.fields.some((f) => f.name === undefined && /^(\w+\.)?TypeMeta$/.test(f.type) && (f.tags.json ?? "").startsWith(","));
      if (!embedsTypeMeta) continue;
      const key = `${p.id}.${name}`;
      if (tables.has(key)) found[name] = key;
    }
    if (Object.keys(found).length === 0) continue;
    kinds[apiVersion] = Object.fromEntries(Object.entries(found).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  if (problems.length > 0) throw new Error(`generated.proto and the Go types disagree:\n  ${problems.join("\n  ")}`);
  return { tables, kinds, unmatched };
}

function render(tables, kinds) {
  const files = new Map();
  const byPackage = new Map();
  for (const [key, rows] of [...tables].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const id = key.slice(0, key.indexOf("."));
    if (!byPackage.has(id)) byPackage.set(id, []);
    byPackage.get(id).push([key, rows]);
  }
  const header = (what) =>
    `// Code generated by scripts/protobuf/generate.mjs (node scripts/protobuf/generate.mjs). DO NOT EDIT.\n` +
    `// Source: generated.proto and the Go types of Kubernetes v1.36 (k8s.io/api, apimachinery,\n` +
    `// apiextensions-apiserver: shared/k8s-api-1.36; kube-aggregator: scripts/apigen/input).\n` +
    `// ${what}\n`;
  const modules = [];
  for (const [id, list] of byPackage) {
    const ident = id.replace("/", "_");
    const file = `${ident}.ts`;
    modules.push({ file, ident });
    // One JSON text (a message per line) instead of object literals: modules of this size cost
    // the TypeScript transpiler (tests' child processes, ts loaders) seconds as literals, and
    // nothing as one string; JSON.parse is also V8's fastest way to build them.
    const lines = list.map(([key, rows]) => `${JSON.stringify(key)}:[${rows.map((r) => JSON.stringify(r)).join(",")}]`);
    const json = `{\n${lines.join(",\n")}\n}`;
    if (/[`\\]|\$\{/.test(json)) throw new Error(`${id}: a table holds a character that cannot go in a template literal`);
    JSON.parse(json);
    let s = header(`Protobuf field tables of ${id}: messageKey → [number, jsonName, type, flags][].`);
    s += `import type { MessageTable } from "../schema.js";\n\n`;
    s += `export const messages: MessageTable = JSON.parse(\`${json}\`) as MessageTable;\n`;
    files.set(file, s);
  }
  let idx = header("All message tables, and the kinds (apiVersion → kind → message) they serve.");
  idx += `import type { KindTable, MessageTable } from "../schema.js";\n`;
  for (const m of modules) idx += `import { messages as ${m.ident} } from "./${m.ident}.js";\n`;
  idx += `\nexport const MESSAGES: MessageTable = {\n`;
  for (const m of modules) idx += `  ...${m.ident},\n`;
  const sortedKinds = Object.fromEntries(Object.entries(kinds).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  idx += `};\n\nexport const KINDS: KindTable = ${JSON.stringify(sortedKinds, null, 2)};\n`;
  files.set("index.ts", idx);
  files.set("gnostic_openapiv2.ts", renderGnostic());
  return files;
}

/**
 * gnostic's openapi.v2 messages (the protobuf form of OpenAPI v2 documents) as field tables:
 * message → [number, protoName, type, "optional" | "repeated", oneof group or ""]. Not imported by
 * index.ts: only the OpenAPI v2 encoder uses them.
 */
function renderGnostic() {
  const proto = parseProto(readFileSync(gnosticProto, "utf8"), relative(root, gnosticProto));
  if (proto.package !== "openapi.v2") throw new Error(`${gnosticProto}: package ${proto.package}, expected openapi.v2`);
  let s =
    `// Code generated by scripts/protobuf/generate.mjs (node scripts/protobuf/generate.mjs). DO NOT EDIT.\n` +
    `// Source: scripts/protobuf/input/gnostic/OpenAPIv2.proto (google/gnostic-models v0.7.0).\n` +
    `// The openapi.v2 messages: [number, protoName, type, label, oneof].\n\n` +
    `export type GnosticField = readonly [number, string, string, "optional" | "repeated", string];\n\n` +
    `export const OPENAPI_V2_MESSAGES: Readonly<Record<string, readonly GnosticField[]>> = {\n`;
  for (const [name, msg] of [...proto.messages].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    s += `  ${JSON.stringify(name)}: [\n`;
    for (const f of [...msg.fields].sort((a, b) => a.number - b.number)) {
      if (f.label === "map") throw new Error(`${name}.${f.name}: maps are not expected in OpenAPIv2.proto`);
      s += `    ${JSON.stringify([f.number, f.name, f.type, f.label === "repeated" ? "repeated" : "optional", f.oneof ?? ""])},\n`;
    }
    s += `  ],\n`;
  }
  return `${s}};\n`;
}

function main() {
  const opts = parseArgs();
  const k8s = findK8sApi(opts.input);
  if (!k8s) throw new Error("k8s-api-1.36 not found: pass --input DIR (the folder with api/, apimachinery/, apiextensions/)");
  const { tables, kinds, unmatched } = generate(k8s);
  const files = render(tables, kinds);
  const existing = existsSync(outDir) ? readdirSync(outDir).filter((f) => f.endsWith(".ts")) : [];
  if (opts.check) {
    const stale = [];
    for (const [file, text] of files) {
      const path = join(outDir, file);
      if (!existsSync(path) || readFileSync(path, "utf8") !== text) stale.push(file);
    }
    for (const f of existing) if (!files.has(f)) stale.push(`${f} (no longer generated)`);
    if (stale.length > 0) {
      console.error(`${relative(root, outDir)} is out of date (${stale.join(", ")}): run node scripts/protobuf/generate.mjs`);
      process.exit(1);
    }
    console.log(`${relative(root, outDir)} is up to date (${tables.size} messages)`);
    return;
  }
  mkdirSync(outDir, { recursive: true });
  for (const f of existing) if (!files.has(f)) rmSync(join(outDir, f));
  for (const [file, text] of files) writeFileSync(join(outDir, file), text);
  const fieldCount = [...tables.values()].reduce((n, r) => n + r.length, 0);
  console.log(`wrote ${tables.size} messages (${fieldCount} fields), ${Object.keys(kinds).length} apiVersions, to ${relative(root, outDir)}`);
  if (unmatched.length) console.log(`messages with no Go struct in the inputs (proto names used as JSON names): ${unmatched.join(", ")}`);
}

main();
