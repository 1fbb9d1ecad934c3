/**
 * Where request bodies become objects, as kube-apiserver's handlers decode them:
 *
 * - decodeRequestBody: a create / update / subresource body (JSON, YAML or protobuf) of a
 *   built-in kind, decoded like the Go struct (walk.ts) with the strict decoder under
 *   fieldValidation Strict and Warn. Errors are 400 `<Kind> in version "<v>" cannot be handled
 *   as a <Kind>: <Go's error>` (transformDecodeError), strict errors too under Strict; under Warn
 *   they become warnings. Custom resources: only their metadata is decoded here (ObjectMeta),
 *   the rest is their structural schema's business (crd/).
 * - decodePatchedObject: the object a JSON, merge or strategic merge patch produced; failures are
 *   422 `"" is invalid: patch: Invalid value: ...` as upstream's patchers answer.
 * - validateApplyConfiguration / decodeAppliedObject: server-side apply (smd.ts).
 */
import { parseDocument, LineCounter, isMap, isScalar, isSeq, type Node } from "yaml";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { kindInfo, typeInfo, type TypeInfo } from "../generated/schema.js";
import type { FieldValidationMode } from "../rest/options.js";
import { decodeObjectBody, type ProtobufDecoder } from "../server/body.js";
import { checkJSONDepth, checkValueBounds, maxNestingDepth, NestingTooDeepError, yamlNesting } from "../server/decodelimits.js";
import { bodyFormat } from "../server/negotiate.js";
import { goValue } from "./goformat.js";
import { countKeys, goSyntaxError, JsonSyntaxError, parseJsonExact, scanJson } from "./jsontext.js";
import { duplicateErrors, strictErrors } from "./strict.js";
import { GoDecodeError, walkObject, type Dialect } from "./walk.js";

export interface DecodeTarget {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface DecodedRequest {
  object: KubeObject;
  /** Warning texts (fieldValidation=Warn, protobuf decoder notes). */
  warnings: string[];
  /**
   * Decoded as the endpoint's built-in kind's Go struct (TypeMeta and ObjectMeta included): the
   * field types hold, so the store's own TypeMeta/ObjectMeta type check (rest/metatypes, for
   * objects from anywhere else) has nothing to find and may be skipped. False for custom
   * resources (only their metadata is decoded here) and bodies of another kind.
   */
  typed: boolean;
}

const objectMetaInfo = (): TypeInfo => typeInfo("meta/v1.ObjectMeta")!;


/** The schema of a built-in kind, or undefined (custom resources, unknown kinds). */
export function builtinKind(t: DecodeTarget): TypeInfo | undefined {
  return kindInfo(t.group, t.version, t.kind);
}

/** Go's summarizeData: the first 30 bytes of a body, for "the object provided is unrecognized". */
function summarize(buf: Buffer): string {
  if (buf.length === 0) return "<empty>";
  if (buf[0] === 0x7b) return buf.length > 30 ? `${buf.subarray(0, 30).toString("latin1")} ...` : buf.toString("utf8");
  return buf.length > 30 ? `${buf.subarray(0, 30).toString("hex")} ...` : buf.toString("hex");
}

function unrecognized(target: DecodeTarget, message: string, buf: Buffer): StatusError {
  return StatusError.badRequest(`the object provided is unrecognized (must be of type ${target.kind}): ${message} (${summarize(buf)})`);
}

/** The group/version/kind the body names, defaulted from the endpoint (gvkWithDefaults). */
function bodyGVK(obj: Record<string, unknown>, target: DecodeTarget): { version: string; kind: string } {
  const kind = typeof obj.kind === "string" && obj.kind !== "" ? obj.kind : target.kind;
  const av = typeof obj.apiVersion === "string" ? obj.apiVersion : "";
  const version = av === "" ? target.version : av.includes("/") ? av.slice(av.indexOf("/") + 1) : av;
  return { version, kind };
}

function cannotBeHandled(obj: Record<string, unknown>, target: DecodeTarget, message: string): StatusError {
  const g = bodyGVK(obj, target);
  return StatusError.badRequest(`${g.kind} in version ${JSON.stringify(g.version)} cannot be handled as a ${target.kind}: ${message}`);
}

/** meta.Interpret's check of apiVersion and kind (decoded into a struct of two strings). */
function interpretTypeMeta(obj: Record<string, unknown>): string | undefined {
  for (const f of ["apiVersion", "kind"]) {
    const v = obj[f];
    if (v === undefined || v === null || typeof v === "string") continue;
    const what = typeof v === "number" ? "number" : typeof v === "boolean" ? "bool" : Array.isArray(v) ? "array" : "object";
    return `couldn't get version/kind; json parse error: json: cannot unmarshal ${what} into Go struct field .${f} of type string`;
  }
  const av = obj.apiVersion;
  if (typeof av === "string") {
    // More than one "/" (no split: this runs for every body).
    const slash = av.indexOf("/");
    if (slash >= 0 && av.indexOf("/", slash + 1) >= 0) return `unexpected GroupVersion string: ${av}`;
  }
  return undefined;
}

/** Whether the body is (or may be) of the endpoint's kind: otherwise the store refuses it. */
export function sameKind(obj: Record<string, unknown>, target: DecodeTarget): boolean {
  if (typeof obj.kind === "string" && obj.kind !== "" && obj.kind !== target.kind) return false;
  const av = typeof obj.apiVersion === "string" ? obj.apiVersion : "";
  const want = target.group === "" ? target.version : `${target.group}/${target.version}`;
  return av === "" || av === want;
}

/** Applies fieldValidation to strict errors: Strict → error text, Warn → warnings. */
function strictOutcome(errors: string[], mode: FieldValidationMode, warnings: string[]): string | undefined {
  if (errors.length === 0 || mode === "Ignore") return undefined;
  if (mode === "Strict") return `strict decoding error: ${errors.join(", ")}`;
  for (const e of errors) if (!warnings.includes(e)) warnings.push(e);
  return undefined;
}

interface ParsedJSON {
  value: unknown;
  keys: number;
}

/** Parses JSON text: JSON.parse when every number literal survives it, the exact parser otherwise. */
function parseBodyJSON(text: string): ParsedJSON {
  let scan;
  try {
    const value = JSON.parse(text) as unknown;
    scan = scanJson(text);
    if (!scan.inexactNumbers) return { value, keys: scan.keys };
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    throw new JsonSyntaxError(goSyntaxError(text));
  }
  return { value: parseJsonExact(text), keys: scan.keys };
}

/**
 * YAML with goyaml's duplicate-key errors (reported only under Strict / Warn), bounded as
 * decodelimits' parseYAMLBounded is: the nesting of the text is checked before the (recursive)
 * composer runs, the value after it (aliases), and a document with aliases is copied so that no
 * two places share an object. Throws NestingTooDeepError, a 413 StatusError, or Error.
 */
function parseBodyYAML(text: string): { value: unknown; duplicates: string[] } {
  const shape = yamlNesting(text, maxNestingDepth);
  if (shape.depth > maxNestingDepth) throw new NestingTooDeepError(maxNestingDepth);
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter });
  if (doc.errors.length > 0) throw new Error(`error converting YAML to JSON: yaml: ${doc.errors[0].message}`);
  const duplicates: string[] = [];
  const visit = (n: Node | null | undefined) => {
    if (!n) return;
    if (isMap(n)) {
      const seen = new Set<string>();
      for (const pair of n.items) {
        const key = pair.key as Node | null;
        const name = isScalar(key) ? String(key.value) : "";
        if (seen.has(name) && key?.range) {
          duplicates.push(`line ${lineCounter.linePos(key.range[0]).line}: key ${JSON.stringify(name)} already set in map`);
        }
        seen.add(name);
        visit(pair.value as Node | null);
      }
    } else if (isSeq(n)) for (const item of n.items) visit(item as Node | null);
  };
  visit(doc.contents as Node | null);
  const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
  checkValueBounds(value, maxNestingDepth);
  return { value: shape.aliases ? (JSON.parse(JSON.stringify(value)) as unknown) : value, duplicates };
}

/**
 * Decodes a request body for a create, an update or a subresource write of `target`'s kind.
 * Throws a StatusError (400) as kube-apiserver answers; nothing has been stored.
 */
export function decodeRequestBody(
  buf: Buffer,
  contentType: string | undefined,
  target: DecodeTarget,
  mode: FieldValidationMode,
  protobuf: ProtobufDecoder | undefined,
): DecodedRequest {
  const info = builtinKind(target);
  const format = bodyFormat(contentType);
  if (!info || format === "protobuf") {
    const body = decodeObjectBody(buf, contentType, protobuf);
    if (!info) {
      // A custom resource is decoded into map[string]interface{}: only duplicate keys are strict errors of the JSON.
      if (format === "json" && mode !== "Ignore") {
        const text = buf.toString("utf8");
        if (scanJson(text).keys !== countKeys(body.object)) {
          const failure = strictOutcome(duplicateErrors(parseJsonExact(text, true)), mode, body.warnings);
          if (failure) throw cannotBeHandled(body.object, target, failure);
        }
      }
      decodeCustomResourceMetadata(body.object, target, mode, body.warnings);
    }
    // Protobuf bodies are typed already: the walk only normalises (no strict decoding for protobuf).
    else if (sameKind(body.object, target)) {
      try {
        body.object = walkObject(body.object, info, { dialect: "json", reportUnknown: false, countKeys: false }).value as KubeObject;
        return { ...body, typed: true };
      } catch (err) {
        if (err instanceof GoDecodeError) throw cannotBeHandled(body.object, target, err.message);
        throw err;
      }
    }
    return { ...body, typed: false };
  }

  const warnings: string[] = [];
  const strict = mode !== "Ignore";
  let value: unknown;
  let textKeys = -1;
  let yamlDuplicates: string[] = [];
  const text = buf.toString("utf8");
  if (format === "yaml") {
    try {
      const y = parseBodyYAML(text);
      value = y.value;
      yamlDuplicates = y.duplicates;
    } catch (err) {
      if (err instanceof StatusError) throw err;
      if (err instanceof NestingTooDeepError) throw StatusError.badRequest(`error converting YAML to JSON: yaml: ${err.message}`);
      throw unrecognized(target, err instanceof Error ? err.message : String(err), buf);
    }
  } else {
    if (buf.length === 0) throw unrecognized(target, "couldn't get version/kind; json parse error: unexpected end of JSON input", buf);
    // Nothing recursive (the exact parser, the walk) runs on a text nested past the limit.
    try {
      checkJSONDepth(buf);
    } catch (err) {
      if (err instanceof NestingTooDeepError) throw StatusError.badRequest(`couldn't get version/kind; json parse error: ${err.message}`);
      throw err;
    }
    try {
      const p = parseBodyJSON(text);
      value = p.value;
      textKeys = p.keys;
    } catch (err) {
      if (err instanceof JsonSyntaxError) throw unrecognized(target, `couldn't get version/kind; json parse error: ${err.message}`, buf);
      throw err;
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const what = Array.isArray(value) ? "array" : value === null ? "null" : typeof value === "number" ? "number" : typeof value === "boolean" ? "bool" : "string";
    if (value === null) value = {};
    else {
      throw unrecognized(
        target,
        `couldn't get version/kind; json parse error: json: cannot unmarshal ${what} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
        buf,
      );
    }
  }
  const obj = value as Record<string, unknown>;
  const interpretError = interpretTypeMeta(obj);
  if (interpretError) throw unrecognized(target, interpretError, buf);
  if (!sameKind(obj, target)) return { object: obj as KubeObject, warnings, typed: false };

  let unknown: string[];
  let keys: number;
  try {
    const r = walkObject(obj, info, { dialect: "json", reportUnknown: strict, countKeys: strict && textKeys >= 0 });
    unknown = r.unknown;
    keys = r.keys;
    value = r.value;
  } catch (err) {
    if (err instanceof GoDecodeError) throw cannotBeHandled(obj, target, err.message);
    throw err;
  }
  if (strict) {
    // Fewer keys in the tree than in the text: duplicate keys, which JSON.parse collapsed.
    if (textKeys >= 0 && keys !== textKeys) unknown = strictErrors(parseJsonExact(text, true), info);
    if (mode === "Warn") {
      // addStrictDecodingWarnings splits goyaml's multi-line error into one warning per line.
      for (const w of [...yamlDuplicates, ...unknown]) if (!warnings.includes(w)) warnings.push(w);
    } else {
      const errors = yamlDuplicates.length > 0 ? [`yaml: unmarshal errors:\n  ${yamlDuplicates.join("\n  ")}`, ...unknown] : unknown;
      if (errors.length > 0) throw cannotBeHandled(obj, target, `strict decoding error: ${errors.join(", ")}`);
    }
  }
  return { object: value as KubeObject, warnings, typed: true };
}

/**
 * A custom resource's metadata, as apiextensions-apiserver reads it (GetObjectMetaWithOptions):
 * decoded on its own as an ObjectMeta (errors name `ObjectMeta.name`), unknown fields reported
 * as `metadata.<path>`. Returns the strict errors; throws GoDecodeError.
 */
function customResourceMetadata(obj: Record<string, unknown>, mode: FieldValidationMode): string[] {
  const meta = obj.metadata;
  if (meta === undefined || meta === null) return [];
  if (typeof meta !== "object" || Array.isArray(meta)) {
    const what = Array.isArray(meta) ? "array" : typeof meta === "number" ? "number" : typeof meta === "boolean" ? "bool" : "string";
    throw new GoDecodeError(`json: cannot unmarshal ${what} into Go value of type v1.ObjectMeta`);
  }
  const r = walkObject(meta as Record<string, unknown>, objectMetaInfo(), { dialect: "json", reportUnknown: mode !== "Ignore", countKeys: false });
  obj.metadata = r.value;
  return r.unknown.map((u) => u.replace(/^unknown field "/, 'unknown field "metadata.'));
}

/** A custom resource body's metadata (create, update, apply): 400 as the CR decoder answers. */
export function decodeCustomResourceMetadata(obj: KubeObject, target: DecodeTarget, mode: FieldValidationMode, warnings: string[]): void {
  const o = obj as Record<string, unknown>;
  try {
    const failure = strictOutcome(customResourceMetadata(o, mode), mode, warnings);
    if (failure) throw cannotBeHandled(o, target, failure);
  } catch (err) {
    if (err instanceof GoDecodeError) throw cannotBeHandled(o, target, err.message);
    throw err;
  }
}

/** The 422 upstream's patchers answer when the patched object does not decode. */
function patchInvalid(value: string, detail: string): StatusError {
  const body = `Invalid value: ${JSON.stringify(value)}: ${detail}`;
  return new StatusError({
    message: ` "" is invalid: patch: ${body}`,
    reason: "Invalid",
    details: { causes: [{ reason: "FieldValueInvalid", message: body, field: "patch" }] },
    code: 422,
  });
}

export type DecodedPatchType = "json" | "merge" | "strategic";

export interface PatchDecodeInput {
  type: DecodedPatchType;
  /** The object the patch produced (not yet stored). */
  patched: KubeObject;
  /** The parsed patch document (printed in strategic merge patch errors). */
  patch: unknown;
  /** The patch body's text: its duplicate keys are strict errors too (merge patches). */
  patchText?: string;
  mode: FieldValidationMode;
  /** Warnings are appended here. */
  warnings: string[];
}

/** Strict errors of a patch body itself (jsonPatcher / strategicPatchObject's UnmarshalStrict). */
function patchBodyStrictErrors(input: PatchDecodeInput): string[] {
  if (input.mode === "Ignore" || input.patchText === undefined) return [];
  let scan;
  try {
    scan = scanJson(input.patchText);
  } catch {
    return [];
  }
  if (scan.keys === countAll(input.patch)) {
    if (input.type !== "json") return [];
  }
  if (input.type === "json") {
    // []jsonPatchOp: op, path, from, value; anything else is unknown.
    const errs: string[] = [];
    const doc = parseJsonExact(input.patchText, true);
    if (Array.isArray(doc)) {
      doc.forEach((op, i) => {
        if (!(op && typeof op === "object" && "entries" in op)) return;
        const seen = new Set<string>();
        for (const [k, v] of (op as { entries: Array<[string, unknown]> }).entries) {
          if (!["op", "path", "from", "value"].includes(k)) errs.push(`json patch unknown field "[${i}].${k}"`);
          else if (seen.has(k)) errs.push(`json patch duplicate field "[${i}].${k}"`);
          else if (k === "value") for (const d of duplicateErrors(v)) errs.push(`json patch ${d.replace(/field "/, `field "[${i}].value.`)}`);
          seen.add(k);
        }
      });
    }
    return errs;
  }
  return duplicateErrors(parseJsonExact(input.patchText, true));
}

function countAll(v: unknown): number {
  if (typeof v !== "object" || v === null) return 0;
  let n = 0;
  if (Array.isArray(v)) {
    for (const x of v) n += countAll(x);
    return n;
  }
  for (const k in v) n += 1 + countAll((v as Record<string, unknown>)[k]);
  return n;
}

/**
 * Decodes the object a patch produced, as upstream's patchers turn it back into the Go struct;
 * returns it normalised. JSON and merge patches decode the patched JSON (json dialect), strategic
 * merge patches go through the unstructured converter.
 */
export function decodePatchedObject(input: PatchDecodeInput, target: DecodeTarget): KubeObject {
  const info = builtinKind(target);
  if (!sameKind(input.patched, target)) return input.patched;
  const dialect: Dialect = input.type === "strategic" ? "unstructured" : "json";
  const strict = input.mode !== "Ignore";
  // Upstream prints the patched JSON as the patch produced it (before decoding).
  const before = input.type === "strategic" ? "" : JSON.stringify(input.patched);
  const valueText = () => (input.type === "strategic" ? goValue(input.patch) : before);
  let value: KubeObject;
  let unknown: string[];
  try {
    if (info) {
      const r = walkObject(input.patched as Record<string, unknown>, info, { dialect, reportUnknown: strict, countKeys: false });
      value = r.value as KubeObject;
      unknown = r.unknown;
    } else {
      value = Object.isFrozen(input.patched) ? { ...input.patched } : input.patched;
      unknown = customResourceMetadata(value as Record<string, unknown>, input.mode);
    }
  } catch (err) {
    if (err instanceof GoDecodeError) throw patchInvalid(valueText(), err.message);
    throw err;
  }
  const errors = [...patchBodyStrictErrors(input), ...unknown];
  if (errors.length > 0 && strict) {
    if (input.mode === "Warn") {
      for (const e of errors) if (!input.warnings.includes(e)) input.warnings.push(e);
    } else throw patchInvalid(valueText(), `strict decoding error: ${errors.join(", ")}`);
  }
  return value;
}

/**
 * The object server-side apply produced, turned back into the Go struct as the field manager
 * does (typed value → unstructured → versioned object, the unstructured converter). Failures
 * are the plain errors kube-apiserver answers with a 500.
 */
export function decodeAppliedObject(obj: KubeObject, target: DecodeTarget, gvknn: string): KubeObject {
  const info = builtinKind(target);
  if (!info) return obj;
  try {
    return walkObject(obj as Record<string, unknown>, info, { dialect: "unstructured", reportUnknown: false, countKeys: false }).value as KubeObject;
  } catch (err) {
    if (!(err instanceof GoDecodeError)) throw err;
    const gvk = `${target.group}/${target.version}, Kind=${target.kind}`;
    throw new StatusError({
      message: `failed to convert new object (${gvknn}) to proper version: unable to convert unstructured object to ${gvk}: ${err.message}`,
      reason: "" as never,
      code: 500,
    });
  }
}

export interface ParsedApply {
  config: KubeObject;
  /** goyaml's duplicate-key errors (`line 4: key "replicas" already set in map`). */
  duplicates: string[];
}

/** An apply body: YAML (JSON is YAML), duplicate keys kept aside for fieldValidation. */
export function parseApplyBody(body: Buffer): ParsedApply {
  let y;
  try {
    y = parseBodyYAML(body.toString("utf8"));
  } catch (err) {
    if (err instanceof StatusError) throw err;
    if (err instanceof NestingTooDeepError) throw StatusError.badRequest(`error decoding YAML: yaml: ${err.message}`);
    throw StatusError.badRequest(`error decoding YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof y.value !== "object" || y.value === null || Array.isArray(y.value)) {
    throw StatusError.badRequest("error decoding patch: the apply configuration must be an object");
  }
  return { config: y.value as KubeObject, duplicates: y.duplicates };
}

/** The apply patcher's strict check (after the apply): Strict → 400, Warn → one warning per line. */
export function applyStrictCheck(duplicates: readonly string[], mode: FieldValidationMode, warnings: string[]): void {
  if (duplicates.length === 0 || mode === "Ignore") return;
  if (mode === "Strict") {
    throw StatusError.badRequest(`error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${duplicates.join("\n  ")}`);
  }
  for (const d of duplicates) if (!warnings.includes(d)) warnings.push(d);
}
