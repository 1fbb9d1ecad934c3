#!/usr/bin/env node
// @ts-check
/**
 * Build-time generator for the embedded API server's OpenAPI definitions.
 *
 * Reads the `kubernetes-types` declaration files (node_modules/kubernetes-types) with the
 * TypeScript compiler API and writes src/apiserver/openapi/definitions.json: one swagger-2.0
 * style schema per type, named as kube-apiserver names them (io.k8s.api.apps.v1.Deployment,
 * io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta, ...), carrying the type graph ($ref to
 * "#/definitions/<name>"), field types, required fields (non-optional properties), doc comments
 * as descriptions and x-kubernetes-group-version-kind for top-level kinds (from the literal
 * apiVersion/kind types kubernetes-types declares).
 *
 * What the .d.ts files do not carry is recovered from small fact tables below:
 *  - integer formats: every `number` is an integer with format int32 unless INT64_FIELDS says
 *    int64 or DOUBLE_FIELDS says number/double (kube-openapi maps Go int32/int64/float64 so);
 *  - `number | string` is intstr.IntOrString; `Time`/`MicroTime` are string/date-time;
 *    `Quantity` is resource.Quantity; []byte fields (BYTE_FIELDS) are string/byte;
 *  - the x-kubernetes-* members of JSONSchemaProps, which kubernetes-types drops.
 * Patch strategies, merge keys and list types are NOT written here: the server applies them
 * when it builds documents (src/apiserver/openapi/patchmeta.ts), so there is one table.
 *
 * Usage: node scripts/openapi/generate.mjs [--check]
 *   --check  exits 1 when the committed file differs from what would be generated.
 */
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const require = createRequire(join(root, "package.json"));
/** @type {typeof import("typescript")} */
const ts = require("typescript");
const typesDir = dirname(require.resolve("kubernetes-types/package.json"));
const typesVersion = JSON.parse(readFileSync(join(typesDir, "package.json"), "utf8")).version;
const outFile = join(root, "src", "apiserver", "openapi", "definitions.json");

/** The API group files served by the embedded server; their imports are followed. */
const ENTRY_FILES = [
  "core/v1",
  "apps/v1",
  "meta/v1",
  "coordination/v1",
  "rbac/v1",
  "apiextensions/v1",
  "events/v1",
  "autoscaling/v1",
  "discovery/v1",
  "authorization/v1",
  "authentication/v1",
  "batch/v1",
  "policy/v1",
  "scheduling/v1",
];

/** kubernetes-types file (without .d.ts) → definition-name prefix used by kube-apiserver. */
function prefixOf(fileKey) {
  if (fileKey === "meta/v1") return "io.k8s.apimachinery.pkg.apis.meta.v1";
  if (fileKey === "runtime") return "io.k8s.apimachinery.pkg.runtime";
  if (fileKey === "api/resource") return "io.k8s.apimachinery.pkg.api.resource";
  if (fileKey === "version") return "io.k8s.apimachinery.pkg.version";
  if (fileKey.startsWith("apiextensions/")) {
    return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${fileKey.split("/")[1]}`;
  }
  const [group, version] = fileKey.split("/");
  if (!group || !version) throw new Error(`unexpected kubernetes-types file ${fileKey}`);
  return `io.k8s.api.${group}.${version}`;
}

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
const CORE = "io.k8s.api.core.v1";
const APIEXT = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1";
const INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";

/**
 * Fields whose Go type is int64 (kube-openapi: integer/int64). Everything else that is a
 * `number` is int32 unless listed in DOUBLE_FIELDS. For arrays the format applies to items.
 */
const INT64_FIELDS = {
  [`${META}.ObjectMeta`]: ["generation", "deletionGracePeriodSeconds"],
  [`${META}.ListMeta`]: ["remainingItemCount"],
  [`${META}.DeleteOptions`]: ["gracePeriodSeconds"],
  [`${META}.Condition`]: ["observedGeneration"],
  [`${CORE}.PodSpec`]: ["activeDeadlineSeconds", "terminationGracePeriodSeconds"],
  [`${CORE}.Probe`]: ["terminationGracePeriodSeconds"],
  [`${CORE}.SecurityContext`]: ["runAsUser", "runAsGroup"],
  [`${CORE}.PodSecurityContext`]: ["runAsUser", "runAsGroup", "fsGroup", "supplementalGroups"],
  [`${CORE}.SleepAction`]: ["seconds"],
  [`${CORE}.ServiceAccountTokenProjection`]: ["expirationSeconds"],
  [`${CORE}.ContainerImage`]: ["sizeBytes"],
  [`${CORE}.Toleration`]: ["tolerationSeconds"],
  [`${CORE}.ReplicationControllerStatus`]: ["observedGeneration"],
  [`${CORE}.PodCondition`]: ["observedGeneration"],
  [`${CORE}.PodStatus`]: ["observedGeneration"],
  ["io.k8s.api.apps.v1.ControllerRevision"]: ["revision"],
  ["io.k8s.api.apps.v1.DeploymentStatus"]: ["observedGeneration"],
  ["io.k8s.api.apps.v1.ReplicaSetStatus"]: ["observedGeneration"],
  ["io.k8s.api.apps.v1.StatefulSetStatus"]: ["observedGeneration"],
  ["io.k8s.api.apps.v1.DaemonSetStatus"]: ["observedGeneration"],
  ["io.k8s.api.batch.v1.JobSpec"]: ["activeDeadlineSeconds"],
  ["io.k8s.api.batch.v1.CronJobSpec"]: ["startingDeadlineSeconds"],
  ["io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerStatus"]: ["observedGeneration"],
  ["io.k8s.api.policy.v1.PodDisruptionBudgetStatus"]: ["observedGeneration"],
  ["io.k8s.api.authentication.v1.TokenRequestSpec"]: ["expirationSeconds"],
  [`${APIEXT}.JSONSchemaProps`]: ["maxItems", "maxLength", "maxProperties", "minItems", "minLength", "minProperties"],
};

/** Fields whose Go type is float64 (kube-openapi: number/double). */
const DOUBLE_FIELDS = {
  [`${APIEXT}.JSONSchemaProps`]: ["maximum", "minimum", "multipleOf"],
};

/** Fields whose Go type is []byte (string/byte); for maps the format applies to values. */
const BYTE_FIELDS = {
  [`${CORE}.Secret`]: ["data"],
  [`${CORE}.ConfigMap`]: ["binaryData"],
  [`${APIEXT}.WebhookClientConfig`]: ["caBundle"],
};

/** Descriptions upstream has that kubernetes-types omits (empty doc comments). */
const MISSING_DESCRIPTIONS = {
  [`${META}.Patch`]: "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.",
};

/** Named scalar types: kube-openapi's OpenAPIDefinition for each wrapper type. */
const SCALARS = {
  [`${META}.Time`]: { type: "string", format: "date-time" },
  [`${META}.MicroTime`]: { type: "string", format: "date-time" },
  ["io.k8s.apimachinery.pkg.api.resource.Quantity"]: { type: "string" },
};

/** Empty interfaces that are free-form JSON objects upstream (type: object). */
const OPAQUE_OBJECTS = new Set([
  `${META}.FieldsV1`,
  `${META}.Patch`,
  "io.k8s.apimachinery.pkg.runtime.RawExtension",
  `${APIEXT}.CustomResourceSubresourceStatus`,
]);

/** Types with no type at all upstream (any JSON value). */
const UNTYPED = new Set([
  `${APIEXT}.JSON`,
  `${APIEXT}.JSONSchemaPropsOrArray`,
  `${APIEXT}.JSONSchemaPropsOrBool`,
  `${APIEXT}.JSONSchemaPropsOrStringArray`,
]);

/** The JSONSchemaProps members kubernetes-types drops (Go: XPreserveUnknownFields, ...). */
const EXTRA_PROPERTIES = {
  [`${APIEXT}.JSONSchemaProps`]: {
    "x-kubernetes-embedded-resource": {
      type: "boolean",
      description:
        "x-kubernetes-embedded-resource defines that the value is an embedded Kubernetes runtime.Object, with TypeMeta and ObjectMeta. The type must be object. It is allowed to further restrict the embedded object. kind, apiVersion and metadata are validated automatically. x-kubernetes-preserve-unknown-fields is allowed to be true, but does not have to be if the object is fully specified (up to kind, apiVersion, metadata).",
    },
    "x-kubernetes-int-or-string": {
      type: "boolean",
      description:
        "x-kubernetes-int-or-string specifies that this value is either an integer or a string. If this is true, an empty type is allowed and type as child of anyOf is permitted if following one of the following patterns:\n\n1) anyOf:\n   - type: integer\n   - type: string\n2) allOf:\n   - anyOf:\n     - type: integer\n     - type: string\n   - ... zero or more",
    },
    "x-kubernetes-list-map-keys": {
      type: "array",
      items: { type: "string" },
      "x-kubernetes-list-type": "atomic",
      description:
        "x-kubernetes-list-map-keys annotates an array with the x-kubernetes-list-type `map` by specifying the keys used as the index of the map.\n\nThis tag MUST only be used on lists that have the \"x-kubernetes-list-type\" extension set to \"map\". Also, the values specified for this attribute must be a scalar typed field of the child structure (no nesting is supported).\n\nThe properties specified must either be required or have a default value, to ensure those properties are present for all list items.",
    },
    "x-kubernetes-list-type": {
      type: "string",
      description:
        "x-kubernetes-list-type annotates an array to further describe its topology. This extension must only be used on lists and may have 3 possible values:\n\n1) `atomic`: the list is treated as a single entity, like a scalar.\n     Atomic lists will be entirely replaced when updated. This extension\n     may be used on any type of list (struct, scalar, ...).\n2) `set`:\n     Sets are lists that must not have multiple items with the same value. Each\n     value must be a scalar, an object with x-kubernetes-map-type `atomic` or an\n     array with x-kubernetes-list-type `atomic`.\n3) `map`:\n     These lists are like maps in that their elements have a non-index key\n     used to identify them. Order is preserved upon merge. The map tag\n     must only be used on a list with elements of type object.\nDefaults to atomic for arrays.",
    },
    "x-kubernetes-map-type": {
      type: "string",
      description:
        "x-kubernetes-map-type annotates an object to further describe its topology. This extension must only be used when type is object and may have 2 possible values:\n\n1) `granular`:\n     These maps are actual maps (key-value pairs) and each fields are independent\n     from each other (they can each be manipulated by separate actors). This is\n     the default behaviour for all maps.\n2) `atomic`: the list is treated as a single entity, like a scalar.\n     Atomic maps will be entirely replaced when updated.",
    },
    "x-kubernetes-preserve-unknown-fields": {
      type: "boolean",
      description:
        "x-kubernetes-preserve-unknown-fields stops the API server decoding step from pruning fields which are not specified in the validation schema. This affects fields recursively, but switches back to normal pruning behaviour if nested properties or additionalProperties are specified in the schema. This can either be true or undefined. False is forbidden.",
    },
    "x-kubernetes-validations": {
      type: "array",
      items: { $ref: `#/definitions/${APIEXT}.ValidationRule` },
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["rule"],
      "x-kubernetes-patch-merge-key": "rule",
      "x-kubernetes-patch-strategy": "merge",
      description: "x-kubernetes-validations describes a list of validation rules written in the CEL expression language.",
    },
  },
};

const INT_OR_STRING_DEF = {
  description:
    "IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number.",
  type: "string",
  format: "int-or-string",
};

// ---------------------------------------------------------------------------------------------

/** fileKey → parsed source file. */
const files = new Map();

function fileKeyOf(absPath) {
  return relative(typesDir, absPath).replace(/\\/g, "/").replace(/\.d\.ts$/, "");
}

function load(fileKey) {
  if (files.has(fileKey)) return files.get(fileKey);
  const path = join(typesDir, `${fileKey}.d.ts`);
  if (!existsSync(path)) throw new Error(`kubernetes-types has no ${fileKey}.d.ts`);
  const sf = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.ES2022, true);
  /** @type {Map<string, string>} imported name → fileKey */
  const imports = new Map();
  const entry = { fileKey, sf, imports };
  files.set(fileKey, entry);
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    const target = fileKeyOf(resolve(dirname(path), st.moduleSpecifier.text));
    const named = st.importClause?.namedBindings;
    if (named && ts.isNamedImports(named)) {
      for (const el of named.elements) imports.set(el.name.text, target);
    }
    load(target);
  }
  return entry;
}

/** The doc comment attached to a declaration, as upstream's description text. */
function docOf(node) {
  const jsDocs = /** @type {{ jsDoc?: import("typescript").JSDoc[] }} */ (/** @type {unknown} */ (node)).jsDoc;
  if (!jsDocs || jsDocs.length === 0) return undefined;
  const parts = jsDocs.map((d) => (typeof d.comment === "string" ? d.comment : ts.getTextOfJSDocComment(d.comment) ?? ""));
  const text = parts.join("\n\n").trim();
  return text === "" ? undefined : text;
}

function defNameFor(entry, typeName) {
  const target = entry.imports.get(typeName) ?? entry.fileKey;
  return `${prefixOf(target)}.${typeName}`;
}

function integerSchema(defName, field) {
  if (DOUBLE_FIELDS[defName]?.includes(field)) return { type: "number", format: "double" };
  if (INT64_FIELDS[defName]?.includes(field)) return { type: "integer", format: "int64" };
  return { type: "integer", format: "int32" };
}

/**
 * Schema for a type node. `ctx` names the property being converted so the fact tables can
 * apply; `referenced` collects the definitions reached.
 */
function schemaOf(node, entry, ctx, referenced) {
  switch (node.kind) {
    case ts.SyntaxKind.StringKeyword: {
      if (BYTE_FIELDS[ctx.defName]?.includes(ctx.field)) return { type: "string", format: "byte" };
      return { type: "string" };
    }
    case ts.SyntaxKind.NumberKeyword:
      return integerSchema(ctx.defName, ctx.field);
    case ts.SyntaxKind.BooleanKeyword:
      return { type: "boolean" };
    case ts.SyntaxKind.LiteralType:
      // apiVersion: "apps/v1", kind: "Deployment": plain strings on the wire.
      return { type: "string" };
    case ts.SyntaxKind.ArrayType:
      return { type: "array", items: schemaOf(/** @type {import("typescript").ArrayTypeNode} */ (node).elementType, entry, ctx, referenced) };
    case ts.SyntaxKind.ParenthesizedType:
      return schemaOf(/** @type {import("typescript").ParenthesizedTypeNode} */ (node).type, entry, ctx, referenced);
    case ts.SyntaxKind.UnionType: {
      const members = /** @type {import("typescript").UnionTypeNode} */ (node).types;
      const kinds = new Set(members.map((m) => m.kind));
      if (kinds.size === 2 && kinds.has(ts.SyntaxKind.NumberKeyword) && kinds.has(ts.SyntaxKind.StringKeyword)) {
        referenced.add(INT_OR_STRING);
        return { $ref: `#/definitions/${INT_OR_STRING}` };
      }
      if ([...kinds].every((k) => k === ts.SyntaxKind.LiteralType)) return { type: "string" };
      throw new Error(`unsupported union type in ${ctx.defName}.${ctx.field}: ${node.getText()}`);
    }
    case ts.SyntaxKind.TypeLiteral: {
      const lit = /** @type {import("typescript").TypeLiteralNode} */ (node);
      const index = lit.members.find(ts.isIndexSignatureDeclaration);
      if (index && lit.members.length === 1 && index.type) {
        return { type: "object", additionalProperties: schemaOf(index.type, entry, ctx, referenced) };
      }
      throw new Error(`unsupported type literal in ${ctx.defName}.${ctx.field}`);
    }
    case ts.SyntaxKind.TypeReference: {
      const ref = /** @type {import("typescript").TypeReferenceNode} */ (node);
      const name = ref.typeName.getText();
      if (name === "Array" && ref.typeArguments?.length === 1) {
        return { type: "array", items: schemaOf(ref.typeArguments[0], entry, ctx, referenced) };
      }
      const target = defNameFor(entry, name);
      referenced.add(target);
      return { $ref: `#/definitions/${target}` };
    }
    default:
      throw new Error(`unsupported type node ${ts.SyntaxKind[node.kind]} in ${ctx.defName}.${ctx.field}`);
  }
}

function gvkOf(decl) {
  let apiVersion;
  let kind;
  for (const m of decl.members) {
    if (!ts.isPropertySignature(m) || !m.type || !ts.isLiteralTypeNode(m.type) || !ts.isStringLiteral(m.type.literal)) continue;
    if (m.name.getText() === "apiVersion") apiVersion = m.type.literal.text;
    if (m.name.getText() === "kind") kind = m.type.literal.text;
  }
  if (apiVersion === undefined || kind === undefined) return undefined;
  const slash = apiVersion.indexOf("/");
  return slash < 0
    ? { group: "", kind, version: apiVersion }
    : { group: apiVersion.slice(0, slash), kind, version: apiVersion.slice(slash + 1) };
}

function propertyName(m) {
  const n = m.name;
  if (ts.isIdentifier(n) || ts.isStringLiteral(n)) return n.text;
  return n.getText();
}

/** All definitions declared in one file. */
function definitionsOf(entry, out, referenced) {
  const prefix = prefixOf(entry.fileKey);
  for (const st of entry.sf.statements) {
    if (ts.isInterfaceDeclaration(st)) {
      const defName = `${prefix}.${st.name.text}`;
      /** @type {Record<string, unknown>} */
      const def = {};
      const description = docOf(st) ?? MISSING_DESCRIPTIONS[defName];
      if (description) def.description = description;
      const props = st.members.filter(ts.isPropertySignature);
      if (props.length === 0) {
        if (OPAQUE_OBJECTS.has(defName)) def.type = "object";
        else if (!UNTYPED.has(defName)) throw new Error(`empty interface ${defName} needs a fact (OPAQUE_OBJECTS or UNTYPED)`);
        out[defName] = def;
        continue;
      }
      /** @type {Record<string, Record<string, unknown>>} */
      const properties = {};
      const required = [];
      for (const m of props) {
        const field = propertyName(m);
        if (!m.type) throw new Error(`${defName}.${field} has no type`);
        const schema = schemaOf(m.type, entry, { defName, field }, referenced);
        const doc = docOf(m);
        properties[field] = doc ? { ...schema, description: doc } : schema;
        if (!m.questionToken) required.push(field);
      }
      Object.assign(properties, EXTRA_PROPERTIES[defName] ?? {});
      for (const extra of Object.values(EXTRA_PROPERTIES[defName] ?? {})) {
        const items = /** @type {{ items?: { $ref?: string } }} */ (extra).items;
        if (items?.$ref) referenced.add(items.$ref.slice("#/definitions/".length));
      }
      def.properties = sortKeys(properties);
      if (required.length > 0) def.required = required;
      def.type = "object";
      const gvk = gvkOf(st);
      if (gvk) def["x-kubernetes-group-version-kind"] = [gvk];
      out[defName] = def;
    } else if (ts.isTypeAliasDeclaration(st)) {
      const defName = `${prefix}.${st.name.text}`;
      /** @type {Record<string, unknown>} */
      const def = {};
      const description = docOf(st);
      if (description) def.description = description;
      if (SCALARS[defName]) Object.assign(def, SCALARS[defName]);
      else if (!UNTYPED.has(defName)) throw new Error(`type alias ${defName} needs a fact (SCALARS or UNTYPED)`);
      out[defName] = def;
    }
  }
}

function sortKeys(obj) {
  return Object.fromEntries(Object.keys(obj).sort().map((k) => [k, obj[k]]));
}

function generate() {
  for (const f of ENTRY_FILES) load(f);
  /** @type {Record<string, unknown>} */
  const defs = {};
  const referenced = new Set();
  for (const entry of files.values()) definitionsOf(entry, defs, referenced);
  defs[INT_OR_STRING] = INT_OR_STRING_DEF;
  const missing = [...referenced].filter((r) => !(r in defs));
  if (missing.length > 0) throw new Error(`unresolved references: ${missing.join(", ")}`);
  const sorted = sortKeys(defs);
  // One definition per line: small diffs when kubernetes-types is upgraded, no pretty-print bloat.
  const lines = Object.entries(sorted).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  const header = `{"source":${JSON.stringify(`kubernetes-types@${typesVersion}`)},"generator":"scripts/openapi/generate.mjs","definitions":{\n`;
  return `${header}${lines.join(",\n")}\n}}\n`;
}

const text = generate();
if (process.argv.includes("--check")) {
  const current = existsSync(outFile) ? readFileSync(outFile, "utf8") : "";
  if (current !== text) {
    console.error(`${relative(root, outFile)} is out of date: run node scripts/openapi/generate.mjs`);
    process.exit(1);
  }
  console.log(`${relative(root, outFile)} is up to date`);
} else {
  writeFileSync(outFile, text);
  const count = text.split("\n").length - 2;
  console.log(`wrote ${relative(root, outFile)}: ${count} definitions, ${text.length} bytes`);
}
