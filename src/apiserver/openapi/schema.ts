/**
 * The subset of JSON Schema / OpenAPI schema objects the generated Kubernetes definitions use,
 * with the Kubernetes vendor extensions.
 */

export interface GroupVersionKindExt {
  group: string;
  kind: string;
  version: string;
}

export interface Schema {
  $ref?: string;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  type?: string;
  format?: string;
  description?: string;
  default?: unknown;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  "x-kubernetes-group-version-kind"?: GroupVersionKindExt[];
  "x-kubernetes-patch-strategy"?: string;
  "x-kubernetes-patch-merge-key"?: string;
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: "atomic" | "granular";
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  [extension: `x-${string}`]: unknown;
}

/** Definition name → schema, with references of the form "#/definitions/<name>". */
export type Definitions = Readonly<Record<string, Schema>>;

export const V2_REF_PREFIX = "#/definitions/";
export const V3_REF_PREFIX = "#/components/schemas/";

/** The definition name a "#/definitions/..." or "#/components/schemas/..." reference points to. */
export function refName(ref: string): string {
  if (ref.startsWith(V2_REF_PREFIX)) return ref.slice(V2_REF_PREFIX.length);
  if (ref.startsWith(V3_REF_PREFIX)) return ref.slice(V3_REF_PREFIX.length);
  throw new Error(`unsupported schema reference ${ref}`);
}

/** Every definition name referenced (directly) from a schema. */
export function directRefs(schema: Schema, out: Set<string> = new Set()): Set<string> {
  if (schema.$ref) out.add(refName(schema.$ref));
  for (const s of schema.allOf ?? []) directRefs(s, out);
  for (const s of schema.oneOf ?? []) directRefs(s, out);
  for (const s of schema.anyOf ?? []) directRefs(s, out);
  for (const s of Object.values(schema.properties ?? {})) directRefs(s, out);
  if (schema.items) directRefs(schema.items, out);
  if (typeof schema.additionalProperties === "object") directRefs(schema.additionalProperties, out);
  return out;
}

/** The definitions reachable from `roots` (roots included), in sorted order. */
export function closure(defs: Definitions, roots: Iterable<string>): string[] {
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (seen.has(name)) continue;
    const def = defs[name];
    if (!def) throw new Error(`OpenAPI definition ${name} is not known`);
    seen.add(name);
    for (const r of directRefs(def)) if (!seen.has(r)) stack.push(r);
  }
  return [...seen].sort();
}
