/**
 * TypeScript from an existing CustomResourceDefinition (what kopium does for Rust): one interface
 * per object node of each served version's schema, named after its path (GatewayClassSpec,
 * GatewayClassStatusConditions, ...), plus a typed `defineResource` descriptor per version. The
 * storage version gets the plain names; other served versions carry their version as a suffix
 * (GatewayClassV1beta1, gatewayClassesV1beta1).
 *
 * Mapping: required properties are non-optional; string enums become unions of literals;
 * int-or-string is `number | string`; `nullable` adds `| null`; additionalProperties is a
 * `Record<string, T>`; preserve-unknown-fields keeps the declared properties and adds an index
 * signature of `unknown`; an embedded resource is a TypedObject with unknown extra fields;
 * descriptions become doc comments. The generated file imports only from "kubeloop".
 */
import { parseAllDocuments } from "yaml";
import type { JSONSchemaProps } from "./schema.js";

export class CRDTypesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CRDTypesError";
  }
}

export interface TypesOptions {
  /** Named in the header: the file the CRD came from. */
  source?: string;
  /** Module the generated code imports kubeloop from (default "kubeloop"). */
  kubeloopModule?: string;
}

interface CRDInput {
  kind?: unknown;
  metadata?: { name?: unknown };
  spec?: {
    group?: unknown;
    scope?: unknown;
    names?: { kind?: unknown; plural?: unknown };
    versions?: { name?: unknown; served?: unknown; storage?: unknown; schema?: { openAPIV3Schema?: JSONSchemaProps } }[];
  };
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const RESERVED = new Set(["default", "delete", "new", "class", "function", "import", "export", "enum", "interface", "type", "var", "let", "const"]);

function pascal(s: string): string {
  const parts = s.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return parts.map((p) => p[0].toUpperCase() + p.slice(1)).join("") || "X";
}

function camel(s: string): string {
  const p = pascal(s);
  return p[0].toLowerCase() + p.slice(1);
}

function propKey(name: string): string {
  return IDENT.test(name) ? name : JSON.stringify(name);
}

function doc(text: string | undefined, indent: string): string[] {
  if (!text) return [];
  const lines = text.replace(/\*\//g, "*\\/").trim().split("\n");
  if (lines.length === 1) return [`${indent}/** ${lines[0]} */`];
  return [`${indent}/**`, ...lines.map((l) => `${indent} *${l ? ` ${l}` : ""}`), `${indent} */`];
}

/** The generator for one CRD: collects interface declarations as it walks the schemas. */
class Emitter {
  private readonly decls: string[] = [];
  private readonly taken = new Set<string>();

  constructor(reserved: string[]) {
    for (const r of reserved) this.taken.add(r);
  }

  output(): string[] {
    return this.decls;
  }

  private claim(name: string): string {
    let n = name;
    for (let i = 2; this.taken.has(n); i++) n = `${name}${i}`;
    this.taken.add(n);
    return n;
  }

  /** The TS type of a schema node; object nodes with properties become named interfaces. */
  typeOf(s: JSONSchemaProps | undefined, name: string): string {
    if (!s) return "unknown";
    const t = this.baseType(s, name);
    return s.nullable ? `${t} | null` : t;
  }

  private baseType(s: JSONSchemaProps, name: string): string {
    if (s["x-kubernetes-int-or-string"]) return "number | string";
    if (s["x-kubernetes-embedded-resource"]) {
      return s.properties && Object.keys(s.properties).length ? this.interfaceFor(s, name, true) : "{ apiVersion?: string; kind?: string; metadata?: metav1.ObjectMeta; [key: string]: unknown }";
    }
    switch (s.type) {
      case "string":
        return s.enum?.length ? s.enum.map((v) => JSON.stringify(v)).join(" | ") : "string";
      case "integer":
      case "number":
        return s.enum?.length ? s.enum.map((v) => JSON.stringify(v)).join(" | ") : "number";
      case "boolean":
        return "boolean";
      case "array": {
        const item = this.typeOf(s.items, name);
        return /[|&]/.test(item) ? `(${item})[]` : `${item}[]`;
      }
      case "object": {
        if (s.properties && Object.keys(s.properties).length) return this.interfaceFor(s, name, false);
        if (s.additionalProperties && typeof s.additionalProperties === "object") return `Record<string, ${this.typeOf(s.additionalProperties, name)}>`;
        return "Record<string, unknown>";
      }
      default:
        // No type: only valid with preserve-unknown-fields (any JSON value).
        return "unknown";
    }
  }

  private interfaceFor(s: JSONSchemaProps, wanted: string, embedded: boolean): string {
    const name = this.claim(wanted);
    // Children are emitted while the properties are walked; the parent goes before them.
    const start = this.decls.length;
    const required = new Set(s.required ?? []);
    const lines: string[] = [...doc(s.description, ""), `export interface ${name} {`];
    if (embedded) {
      for (const k of ["apiVersion", "kind", "metadata"]) {
        if (!s.properties?.[k]) lines.push(`  ${k}?: ${k === "metadata" ? "metav1.ObjectMeta" : "string"};`);
      }
    }
    for (const [prop, ps] of Object.entries(s.properties ?? {})) {
      const t = embedded && prop === "metadata" ? "metav1.ObjectMeta" : this.typeOf(ps, `${wanted}${pascal(prop)}`);
      lines.push(...doc(ps.description, "  "), `  ${propKey(prop)}${required.has(prop) ? "" : "?"}: ${t};`);
    }
    if (s["x-kubernetes-preserve-unknown-fields"] || embedded) lines.push("  [key: string]: unknown;");
    lines.push("}");
    this.decls.splice(start, 0, lines.join("\n"));
    return name;
  }
}

function parseCRDs(text: string): CRDInput[] {
  const out: CRDInput[] = [];
  for (const d of parseAllDocuments(text)) {
    if (d.errors.length) throw new CRDTypesError(`invalid YAML: ${d.errors[0].message}`);
    const v = d.toJS() as unknown;
    if (v === null || v === undefined) continue;
    const obj = v as CRDInput;
    if (obj.kind !== "CustomResourceDefinition") continue;
    out.push(obj);
  }
  if (out.length === 0) throw new CRDTypesError("no CustomResourceDefinition in the file");
  return out;
}

function str(v: unknown, what: string, crd: string): string {
  if (typeof v !== "string" || v === "") throw new CRDTypesError(`${crd}: ${what} is missing`);
  return v;
}

/** TS source for every CRD in a YAML text (one or more documents). */
export function typesFromCRDYaml(text: string, opts: TypesOptions = {}): string {
  const crds = parseCRDs(text);
  const mod = opts.kubeloopModule ?? "kubeloop";
  const body: string[] = [];
  for (const crd of crds) {
    const crdName = typeof crd.metadata?.name === "string" ? crd.metadata.name : "(unnamed)";
    const spec = crd.spec ?? {};
    const group = str(spec.group, "spec.group", crdName);
    const kind = str(spec.names?.kind, "spec.names.kind", crdName);
    const plural = str(spec.names?.plural, "spec.names.plural", crdName);
    const namespaced = spec.scope !== "Cluster";
    const versions = (spec.versions ?? []).filter((v) => v.served !== false);
    if (versions.length === 0) throw new CRDTypesError(`${crdName}: no served version`);
    const storage = versions.find((v) => v.storage === true) ?? versions[0];
    for (const v of versions) {
      const vname = str(v.name, "a version's name", crdName);
      const suffix = v === storage ? "" : pascal(vname);
      const typeName = `${kind}${suffix}`;
      const em = new Emitter([typeName]);
      const root = v.schema?.openAPIV3Schema ?? { type: "object", "x-kubernetes-preserve-unknown-fields": true };
      const props = root.properties ?? {};
      const required = new Set(root.required ?? []);
      const fields: string[] = [];
      for (const [prop, ps] of Object.entries(props)) {
        if (prop === "apiVersion" || prop === "kind" || prop === "metadata") continue;
        fields.push(...doc(ps.description, "  "), `  ${propKey(prop)}${required.has(prop) ? "" : "?"}: ${em.typeOf(ps, `${typeName}${pascal(prop)}`)};`);
      }
      if (root["x-kubernetes-preserve-unknown-fields"]) fields.push("  [key: string]: unknown;");
      const descriptor = `${camel(plural)}${suffix}`;
      body.push(
        `// --- ${kind} ${group}/${vname}${v === storage ? " (storage version)" : ""} ---`,
        "",
        ...doc(root.description, ""),
        `export interface ${typeName} {`,
        `  apiVersion?: ${JSON.stringify(`${group}/${vname}`)};`,
        `  kind?: ${JSON.stringify(kind)};`,
        "  metadata?: metav1.ObjectMeta;",
        ...fields,
        "}",
        "",
        ...em.output().flatMap((d) => [d, ""]),
        `/** How clients, informers and the controller builder address ${kind} ${vname} objects. */`,
        `export const ${RESERVED.has(descriptor) ? `${descriptor}Resource` : descriptor} = defineResource<${typeName}>({`,
        `  group: ${JSON.stringify(group)},`,
        `  version: ${JSON.stringify(vname)},`,
        `  resource: ${JSON.stringify(plural)},`,
        `  kind: ${JSON.stringify(kind)},`,
        `  namespaced: ${namespaced},`,
        "});",
        "",
      );
    }
  }
  const header = [
    `// Generated by \`kubeloop crd types\`${opts.source ? ` from ${opts.source}` : ""}: do not edit; run the command again when the CRD changes.`,
    `import { defineResource, type metav1 } from ${JSON.stringify(mod)};`,
    "",
  ];
  return `${[...header, ...body].join("\n").trimEnd()}\n`;
}
