/**
 * Server-side apply's checks of an applied configuration, as structured-merge-diff's typed
 * validation reports them when the field manager converts the configuration to a typed value:
 * `.spec.replicas: expected numeric (int or float), got string`, `.spec.foo: field not declared
 * in schema`, `.spec.ports: duplicate entries for key [containerPort=80,protocol="TCP"]`, several
 * as an `errors:` list. kube-apiserver wraps them as `failed to create typed patch object
 * (<ns>/<name>; <gvk>): ...` in a 500 Status with no reason (the field manager returns a plain error).
 *
 * Structure (struct fields, maps, list types and keys) comes from the SSA type nodes
 * (ssa/schema.ts), scalar kinds from the decoding schema table.
 */
import { StatusError } from "../../apimachinery/errors.js";
import { kindInfo, typeInfo, type ValueType } from "../generated/schema.js";
import { elementString } from "../ssa/fieldpath.js";
import { builtinTypeFor, type TypeNode } from "../ssa/schema.js";
import { itemElement } from "../ssa/typed.js";
import { goSyntax, goTypeName, goValue } from "./goformat.js";
import type { DecodeTarget } from "./request.js";

type Scalar = "numeric" | "string" | "boolean" | "untyped" | "deduced";

function scalarOf(t: ValueType | undefined): Scalar {
  if (!t) return "deduced";
  if (t.kind === "scalar") {
    if (t.scalar === "bool") return "boolean";
    if (t.scalar === "string" || t.scalar === "bytes") return "string";
    return "numeric";
  }
  if (t.kind === "special") {
    switch (t.special) {
      case "Quantity":
      case "IntOrString":
        return "untyped";
      case "Time":
      case "MicroTime":
      case "Duration":
        return "string";
      default:
        return "deduced";
    }
  }
  return "deduced";
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `%v` of structured-merge-diff's value wrapper (a pointer to a struct holding the value). */
const wrapped = (v: unknown) => `&{${goValue(v)}}`;

interface SmdError {
  path: string;
  message: string;
}

class Validator {
  readonly errors: SmdError[] = [];

  private add(path: string, message: string): void {
    this.errors.push({ path, message });
  }

  value(v: unknown, node: TypeNode, vt: ValueType | undefined, path: string): void {
    if (v === null || v === undefined) return;
    switch (node.kind) {
      case "deduced":
        return;
      case "scalar":
        return this.scalar(v, scalarOf(vt), path);
      case "struct":
      case "map": {
        if (!isObject(v)) {
          this.add(path, `expected map, got ${wrapped(v)}`);
          return;
        }
        const info = vt?.kind === "struct" ? typeInfo(vt.type) : undefined;
        for (const [k, x] of Object.entries(v)) {
          let child: TypeNode | undefined;
          let childVt: ValueType | undefined;
          if (node.kind === "struct") {
            child = node.field(k);
            childVt = info?.fields.get(k)?.type;
          } else {
            child = node.element;
            childVt = vt?.kind === "map" ? vt.value : undefined;
          }
          if (!child) {
            // One unknown field per map: structured-merge-diff stops iterating the map there.
            this.add(`${path}.${k}`, "field not declared in schema");
            return;
          }
          this.value(x, child, childVt, `${path}.${k}`);
        }
        return;
      }
      case "list": {
        if (!Array.isArray(v)) {
          this.add(path, `expected list, got ${wrapped(v)}`);
          return;
        }
        const elemVt = vt?.kind === "list" ? vt.element : undefined;
        const seen = new Set<string>();
        for (let i = 0; i < v.length; i++) {
          const item = v[i];
          let pe: string;
          if (node.listType === "map" && node.keys.length > 0) {
            if (item === null) {
              this.add(path, `element ${i}: associative list with keys may not have a null element`);
              return;
            }
            if (!isObject(item)) {
              this.add(path, `element ${i}: associative list with keys may not have non-map elements`);
              return;
            }
            if (!node.keys.some((k) => item[k] !== undefined || node.keyDefaults?.[k] !== undefined)) {
              this.add(
                path,
                `element ${i}: associative list with keys has an element that omits all key fields [${node.keys.map((k) => JSON.stringify(k)).join(" ")}] (and doesn't have default values for any key fields)`,
              );
              return;
            }
            pe = itemElement(node, item, i);
          } else if (node.listType === "set") {
            if (isObject(item)) {
              this.add(path, `element ${i}: associative list without keys has an element that's a map type`);
              return;
            }
            if (Array.isArray(item)) {
              this.add(path, `element ${i}: not supported: associative list with lists as elements`);
              return;
            }
            if (item === null) {
              this.add(path, `element ${i}: associative list without keys has an element that's an explicit null`);
              return;
            }
            pe = itemElement(node, item, i);
          } else pe = `i:${i}`;
          const text = elementString(pe);
          if (node.listType !== "atomic" && seen.has(pe)) this.add(path, `duplicate entries for key ${text}`);
          seen.add(pe);
          this.value(item, node.element, elemVt, path + text);
        }
        return;
      }
    }
  }

  private scalar(v: unknown, kind: Scalar, path: string): void {
    switch (kind) {
      case "numeric":
        if (typeof v !== "number") this.add(path, `expected numeric (int or float), got ${goTypeName(v)}`);
        return;
      case "string":
        if (typeof v !== "string") this.add(path, `expected string, got &value.valueUnstructured{Value:${goSyntax(v)}}`);
        return;
      case "boolean":
        if (typeof v !== "boolean") this.add(path, `expected boolean, got ${wrapped(v)}`);
        return;
      case "untyped":
        if (typeof v === "object") this.add(path, `expected any scalar, got ${wrapped(v)}`);
        return;
      default:
        return;
    }
  }
}

function gvkString(t: DecodeTarget): string {
  return `${t.group === "" ? "" : t.group}/${t.version}, Kind=${t.kind}`;
}

/** structured-merge-diff's ValidationErrors.Error(). */
function errorsText(errs: readonly SmdError[]): string {
  const one = (e: SmdError) => (e.path === "" ? e.message : `${e.path}: ${e.message}`);
  if (errs.length === 1) return one(errs[0]);
  return ["errors:", ...errs.map((e) => `  ${one(e)}`)].join("\n");
}

/** objectGVKNN: `<namespace>/<name>; <group>/<version>, Kind=<kind>` of the applied configuration. */
export function objectGVKNN(config: Record<string, unknown>, target: DecodeTarget): string {
  const meta = isObject(config.metadata) ? config.metadata : {};
  const ns = typeof meta.namespace === "string" ? meta.namespace : "";
  const name = typeof meta.name === "string" ? meta.name : "";
  return `${ns}/${name}; ${gvkString(target)}`;
}

/**
 * Validates an applied configuration of a built-in kind; throws the 500 Status kube-apiserver
 * answers. Kinds without a structured-merge-diff schema are not checked here.
 */
export function validateApplyConfiguration(config: Record<string, unknown>, target: DecodeTarget): void {
  const node = builtinTypeFor(target);
  const info = kindInfo(target.group, target.version, target.kind);
  if (!node || !info) return;
  const v = new Validator();
  v.value(config, node, { kind: "struct", type: info.key }, "");
  if (v.errors.length === 0) return;
  throw new StatusError({
    message: `failed to create typed patch object (${objectGVKNN(config, target)}): ${errorsText(v.errors)}`,
    reason: "" as never,
    code: 500,
  });
}
