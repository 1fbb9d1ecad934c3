/**
 * The OpenAPI v3 schema of a CustomResourceDefinition version (apiextensions JSONSchemaProps
 * with the Kubernetes vendor extensions), as it arrives in JSON, plus the small value helpers
 * the validator, pruner and defaulter share.
 *
 * Schemas come from user input: every accessor narrows (a `properties` that is not an object
 * is treated as absent); the CRD validation reports malformed nodes before a schema is used
 * to serve custom resources.
 */

export interface Schema {
  type?: string;
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  default?: unknown;
  example?: unknown;
  enum?: unknown[];
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  multipleOf?: number;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: Schema | Schema[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  patternProperties?: Record<string, Schema>;
  additionalItems?: Schema | boolean;
  definitions?: Record<string, Schema>;
  dependencies?: Record<string, Schema | string[]>;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  not?: Schema;
  $ref?: string;
  $schema?: string;
  id?: string;
  externalDocs?: { description?: string; url?: string };
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-list-type"?: string;
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: string;
  "x-kubernetes-validations"?: unknown[];
}

export type JSONObject = Record<string, unknown>;

export function isObject(v: unknown): v is JSONObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function asSchema(v: unknown): Schema | undefined {
  return isObject(v) ? (v as Schema) : undefined;
}

/** The properties map of a schema node (empty when absent or malformed). */
export function propertiesOf(s: Schema | undefined): Record<string, Schema> {
  const p = s?.properties;
  if (!isObject(p)) return {};
  const out: Record<string, Schema> = {};
  for (const [k, v] of Object.entries(p)) if (isObject(v)) out[k] = v as Schema;
  return out;
}

export function hasProperty(s: Schema | undefined, k: string): boolean {
  const p = s?.properties;
  return isObject(p) && Object.prototype.hasOwnProperty.call(p, k) && isObject(p[k]);
}

export function propertyOf(s: Schema | undefined, k: string): Schema | undefined {
  return hasProperty(s, k) ? (s!.properties![k] as Schema) : undefined;
}

/** `items` when it is a single schema (an array of schemas is rejected by CRD validation). */
export function itemsOf(s: Schema | undefined): Schema | undefined {
  return asSchema(s?.items);
}

/** `additionalProperties` when it is a schema. */
export function additionalPropertiesSchema(s: Schema | undefined): Schema | undefined {
  return asSchema(s?.additionalProperties);
}

export function schemaList(v: unknown): Schema[] {
  return Array.isArray(v) ? (v.filter(isObject) as Schema[]) : [];
}

export const preserveUnknown = (s: Schema | undefined): boolean => s?.["x-kubernetes-preserve-unknown-fields"] === true;
export const embeddedResource = (s: Schema | undefined): boolean => s?.["x-kubernetes-embedded-resource"] === true;
export const intOrString = (s: Schema | undefined): boolean => s?.["x-kubernetes-int-or-string"] === true;

/** Deep equality of JSON values (object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (typeof a === "object") {
    if (Array.isArray(b) || typeof b !== "object") return false;
    const ao = a as JSONObject;
    const bo = b as JSONObject;
    const ak = Object.keys(ao);
    if (ak.length !== Object.keys(bo).length) return false;
    return ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && jsonEqual(ao[k], bo[k]));
  }
  return false;
}

/** A deep copy of a JSON value. */
export function jsonCopy<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** The JSON type name kube-openapi infers for a decoded value ("integer" for whole numbers, as Go's int64). */
export function jsonTypeOf(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return "boolean";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  if (Array.isArray(v)) return "array";
  return "object";
}

/**
 * Go's `%v` for a float64: shortest representation, exponent form when the exponent is below
 * -4 or at least 21, with a two-digit exponent ("1e-05", "1e+21").
 */
export function goFloat(f: number): string {
  if (!Number.isFinite(f)) return f > 0 ? "+Inf" : f < 0 ? "-Inf" : "NaN";
  if (f === 0) return "0";
  const [mant, expStr] = f.toExponential().split("e");
  const exp = Number(expStr);
  if (exp < -4 || exp >= 21) {
    const sign = exp < 0 ? "-" : "+";
    const abs = Math.abs(exp);
    return `${mant}e${sign}${abs < 10 ? "0" : ""}${abs}`;
  }
  return String(f);
}

/** A bound printed as kube-openapi prints it: integer form for an integral bound checked against an integer. */
export function formatBound(bound: number, valueIsInteger: boolean): string {
  if (valueIsInteger && Number.isInteger(bound)) return String(bound);
  return goFloat(bound);
}

/** Go's `%q` for a string (close enough: JSON quoting). */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** Go's `%#v` for a decoded JSON value (how field errors print maps and slices). */
export function goSyntax(v: unknown): string {
  if (v === null || v === undefined) return "interface {}(nil)";
  if (typeof v === "string") return goQuote(v);
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : goFloat(v);
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(", ")}}`;
  const o = v as JSONObject;
  const keys = Object.keys(o).sort();
  return `map[string]interface {}{${keys.map((k) => `${goQuote(k)}:${goSyntax(o[k])}`).join(", ")}}`;
}

/**
 * Compiles a schema `pattern` (Go RE2 syntax) to a JavaScript RegExp, or returns the error text
 * Go's regexp.Compile would give for the constructs RE2 lacks (lookarounds, backreferences).
 */
export function compilePattern(pattern: string): RegExp | string {
  let flags = "u";
  // RE2 flag groups such as `(?i)` set flags for the rest of the enclosing group; JavaScript has
  // no inline flags, so top-level ones (`(?i)x`, `^(?i)x`) apply to the whole expression.
  let src = "";
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      src += c + (pattern[i + 1] ?? "");
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      src += c;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "(") {
      const m = depth === 0 ? /^\(\?([imsU]+)\)/.exec(pattern.slice(i)) : null;
      if (m) {
        if (m[1].includes("i") && !flags.includes("i")) flags += "i";
        if (m[1].includes("s") && !flags.includes("s")) flags += "s";
        if (m[1].includes("m") && !flags.includes("m")) flags += "m";
        i += m[0].length - 1;
        continue;
      }
      depth++;
    } else if (c === ")") depth--;
    src += c;
  }
  const perl = /\(\?(<?[=!])/.exec(src);
  if (perl) return `error parsing regexp: invalid or unsupported Perl syntax: \`(?${perl[1]}\``;
  const backref = /\\([1-9])/.exec(src);
  if (backref) return `error parsing regexp: invalid escape sequence: \`\\${backref[1]}\``;
  // RE2 character-class shorthands that JavaScript spells differently.
  src = src.replace(/\\z/g, "$").replace(/\\A/g, "^");
  try {
    return new RegExp(src, flags);
  } catch {
    try {
      return new RegExp(src, flags.replace("u", ""));
    } catch (err) {
      return `error parsing regexp: ${(err as Error).message}`;
    }
  }
}

const patternCache = new Map<string, RegExp | string>();

/** compilePattern, memoised (schemas are reused for every request). */
export function cachedPattern(pattern: string): RegExp | string {
  let r = patternCache.get(pattern);
  if (r === undefined) {
    r = compilePattern(pattern);
    if (patternCache.size > 1000) patternCache.clear();
    patternCache.set(pattern, r);
  }
  return r;
}
