/**
 * The type information server-side apply needs (structured-merge-diff's schema): which nodes
 * are structs, granular or atomic maps, and lists with their list type and keys. Built-in kinds
 * take it from the generated structured-merge-diff table (builtinschema.ts); custom resources
 * from their OpenAPI schemas with the Kubernetes extensions (SchemaTypes, below).
 *
 * Rules (as kube-openapi's schemaconv):
 * - `x-kubernetes-list-type` decides a list's type (`map` uses `x-kubernetes-list-map-keys`).
 *   Without it, `x-kubernetes-patch-strategy: merge` makes the list associative by
 *   `x-kubernetes-patch-merge-key`, or a set without a merge key; any other list is atomic.
 * - An object with `properties` is a struct; with `additionalProperties` a granular map;
 *   `x-kubernetes-map-type: atomic` makes either atomic. An object with neither (and anything
 *   unknown) is "deduced": its shape comes from the value (maps granular, lists atomic).
 */
import { refName, type Definitions, type Schema } from "../openapi/schema.js";
import { builtinSchema } from "./builtinschema.js";

import { deducedType, scalarType, type TypeNode } from "./typenode.js";

export { deducedType, scalarType, type ListType, type TypeNode } from "./typenode.js";

/** Builds type nodes from OpenAPI schemas; definitions are converted lazily, once each. */
export class SchemaTypes {
  private readonly byName = new Map<string, TypeNode>();

  constructor(private readonly defs: Definitions) {}

  /** The type of a named definition. */
  named(name: string): TypeNode {
    let t = this.byName.get(name);
    if (!t) {
      const def = this.defs[name];
      if (!def) return deducedType;
      // Lazy fields allow recursive definitions (JSONSchemaProps).
      t = this.convert(def);
      this.byName.set(name, t);
    }
    return t;
  }

  convert(s: Schema): TypeNode {
    if (s.$ref) return this.named(refName(s.$ref));
    if (s.allOf && s.allOf.length === 1) return this.convert({ ...s.allOf[0], ...withoutAllOf(s) });
    if (s["x-kubernetes-int-or-string"]) return scalarType;
    if (s["x-kubernetes-preserve-unknown-fields"] && !s.properties) return deducedType;
    const atomicMap = s["x-kubernetes-map-type"] === "atomic";
    if (s.type === "array") {
      const element = s.items ? this.convert(s.items) : deducedType;
      const lt = s["x-kubernetes-list-type"];
      if (lt === "map") return { kind: "list", listType: "map", keys: s["x-kubernetes-list-map-keys"] ?? [], element };
      if (lt === "set" || lt === "atomic") return { kind: "list", listType: lt, keys: [], element };
      const strategy = (s["x-kubernetes-patch-strategy"] ?? "").split(",");
      if (strategy.includes("merge")) {
        const key = s["x-kubernetes-patch-merge-key"];
        return key ? { kind: "list", listType: "map", keys: [key], element } : { kind: "list", listType: "set", keys: [], element };
      }
      return { kind: "list", listType: "atomic", keys: [], element };
    }
    if (s.properties) {
      const props = s.properties;
      const cache = new Map<string, TypeNode>();
      const rest = typeof s.additionalProperties === "object" ? s.additionalProperties : undefined;
      return {
        kind: "struct",
        atomic: atomicMap,
        required: new Set(s.required ?? []),
        field: (name) => {
          let t = cache.get(name);
          if (t) return t;
          const p = Object.prototype.hasOwnProperty.call(props, name) ? props[name] : rest;
          if (!p) return undefined;
          t = this.convert(p);
          cache.set(name, t);
          return t;
        },
      };
    }
    if (typeof s.additionalProperties === "object") {
      return { kind: "map", atomic: atomicMap, element: this.convert(s.additionalProperties) };
    }
    if (s.type === "object" || s.type === undefined) return atomicMap ? { kind: "map", atomic: true, element: deducedType } : deducedType;
    return scalarType;
  }
}

function withoutAllOf(s: Schema): Schema {
  const { allOf: _allOf, ...rest } = s;
  return rest;
}

/** The type of a built-in kind (from the generated structured-merge-diff table), or undefined. */
export function builtinTypeFor(gvk: { group: string; version: string; kind: string }): TypeNode | undefined {
  return builtinSchema().typeFor(gvk);
}
