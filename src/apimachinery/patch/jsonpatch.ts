/**
 * RFC 6902 JSON Patch (application/json-patch+json), applied with fast-json-patch.
 *
 * `applyJsonPatch` never mutates its inputs and never shares structure with them: the document
 * and the operations are deep-copied before fast-json-patch (which works in place and inserts
 * operation values by reference) sees them. Every failure is a PatchError:
 * - the body is not an array of operations → 400 (kube-apiserver's DecodePatch failure);
 * - more than `maxOperations` operations → 413 (kube-apiserver caps JSON patches at 10000);
 * - `copy` operations that together copy more than `maxCopyBytes` of JSON → 422 (upstream's
 *   JSONPatchMaxCopyBytes, 3 MiB: without it each copy of a value into itself doubles the
 *   document);
 * - an operation that is malformed or does not apply, including a failed `test` → 422.
 * Messages follow evanphx/json-patch (the library kube-apiserver uses) where the failure has a
 * counterpart there, and name the operation index and path.
 *
 * `createJsonPatch` is the other direction (gomodules.xyz/jsonpatch CreatePatch, what
 * controller-runtime's defaulting webhooks answer with): the operations that turn one JSON
 * document into another.
 */
import jsonpatch from "fast-json-patch";
import type { Operation } from "fast-json-patch";
import { PatchError } from "./errors.js";
import { cloneJson, isObject } from "./jsonvalue.js";

export type JsonPatchOperation = Operation;

/** kube-apiserver's maxJSONPatchOperations. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/** kube-apiserver's JSONPatchMaxCopyBytes (the accumulated size of copied values). */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

export interface JsonPatchOptions {
  /** Reject patches with more operations than this (default 10000, as kube-apiserver). */
  maxOperations?: number;
  /** Reject patches whose copy operations copy more JSON than this in total (default 3 MiB). */
  maxCopyBytes?: number;
}

const VALID_OPS = new Set(["add", "remove", "replace", "move", "copy", "test"]);

/** Applies an RFC 6902 patch to `doc` and returns the patched document as a new value. */
export function applyJsonPatch(doc: unknown, ops: unknown, options: JsonPatchOptions = {}): unknown {
  if (!Array.isArray(ops)) {
    throw new PatchError("json", 400, `json: cannot unmarshal ${jsonTypeName(ops)} into Go value of type jsonpatch.Patch`);
  }
  const max = options.maxOperations ?? MAX_JSON_PATCH_OPERATIONS;
  if (ops.length > max) {
    throw new PatchError("json", 413, `The allowed maximum operations in a JSON patch is ${max}, got ${ops.length}`);
  }
  ops.forEach(validateShape);
  let document: unknown;
  let operations: Operation[];
  try {
    document = cloneJson(doc);
    operations = cloneJson(ops) as Operation[];
  } catch (err) {
    throw new PatchError("json", 422, "json patch: document nesting is too deep", { cause: err });
  }
  const maxCopy = options.maxCopyBytes ?? MAX_JSON_PATCH_COPY_BYTES;
  let copied = 0;
  for (let i = 0; i < operations.length; i++) {
    const op = operations[i];
    if (op.op === "copy") {
      // evanphx/json-patch's AccumulatedCopySizeLimit, measured before the copy is made.
      let from: unknown;
      try {
        from = jsonpatch.getValueByPointer(document, op.from);
      } catch {
        from = undefined;
      }
      copied += jsonSizeAtMost(from, maxCopy - copied + 1);
      if (copied > maxCopy) {
        throw new PatchError(
          "json",
          422,
          `Unable to complete the copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${maxCopy}`,
          { operationIndex: i },
        );
      }
    }
    try {
      document = jsonpatch.applyOperation(document, op, true, true, true, i).newDocument;
    } catch (err) {
      throw translate(err, operations[i], i);
    }
  }
  return document;
}

/** The JSON Patch from `original` to `modified` (both JSON values; neither is changed). */
export function createJsonPatch(original: unknown, modified: unknown): JsonPatchOperation[] {
  const a = JSON.parse(JSON.stringify(original ?? null)) as object;
  const b = JSON.parse(JSON.stringify(modified ?? null)) as object;
  return jsonpatch.compare(a, b);
}

/**
 * The length of `JSON.stringify(v)` in bytes (strings as UTF-16 code units, close enough for a
 * limit), computed iteratively and given up once past `budget` (the result is then > budget).
 */
export function jsonSizeAtMost(v: unknown, budget: number): number {
  let size = 0;
  const stack: unknown[] = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (x === null || x === undefined) size += 4;
    else if (typeof x === "string") size += x.length + 2;
    else if (typeof x === "number" || typeof x === "boolean") size += String(x).length;
    else if (Array.isArray(x)) {
      size += 2 + Math.max(0, x.length - 1);
      for (const e of x) stack.push(e);
    } else if (typeof x === "object") {
      const entries = Object.entries(x as Record<string, unknown>);
      size += 2 + Math.max(0, entries.length - 1);
      for (const [k, e] of entries) {
        size += k.length + 3;
        stack.push(e);
      }
    }
    if (size > budget) return size;
  }
  return size;
}

function jsonTypeName(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v === "object" ? "object" : typeof v;
}

/** Structural checks fast-json-patch would otherwise report vaguely (or not at all). */
function validateShape(op: unknown, i: number): void {
  if (!isObject(op)) throw new PatchError("json", 422, `operation ${i} is not an object`, { operationIndex: i });
  const kind = op.op;
  if (typeof kind !== "string" || !VALID_OPS.has(kind)) {
    throw new PatchError("json", 422, `Unexpected kind: ${typeof kind === "string" ? kind : "unknown"}`, { operationIndex: i });
  }
  if (typeof op.path !== "string") {
    throw new PatchError("json", 422, `${kind} operation ${i} is missing the "path" field`, { operationIndex: i });
  }
  if (op.path !== "" && !op.path.startsWith("/")) {
    throw new PatchError("json", 422, `${kind} operation ${i}: path ${JSON.stringify(op.path)} must be empty or start with "/"`, { operationIndex: i });
  }
  if ((kind === "move" || kind === "copy") && typeof op.from !== "string") {
    throw new PatchError("json", 422, `${kind} operation ${i} is missing the "from" field`, { operationIndex: i });
  }
  if ((kind === "add" || kind === "replace" || kind === "test") && !("value" in op)) {
    throw new PatchError("json", 422, `${kind} operation ${i} is missing the "value" field`, { operationIndex: i });
  }
}

function translate(err: unknown, op: Operation, i: number): PatchError {
  const path = op.path;
  const from = "from" in op ? op.from : "";
  const name = err instanceof Error ? err.name : "";
  let message: string;
  switch (name) {
    case "TEST_OPERATION_FAILED":
      message = `testing value ${path} failed: test failed`;
      break;
    case "OPERATION_PATH_UNRESOLVABLE":
      message =
        op.op === "remove"
          ? `Unable to remove nonexistent key: ${lastSegment(path)}: missing value`
          : `${op.op} operation does not apply: doc is missing key: ${path}: missing value`;
      break;
    case "OPERATION_PATH_CANNOT_ADD":
      message = `add operation does not apply: doc is missing path: "${path}": missing value`;
      break;
    case "OPERATION_FROM_UNRESOLVABLE":
      message = `${op.op} operation does not apply: doc is missing from path: ${from}: missing value`;
      break;
    case "OPERATION_PATH_ILLEGAL_ARRAY_INDEX":
    case "OPERATION_VALUE_OUT_OF_BOUNDS":
      message = `${op.op} operation does not apply: index out of range in ${path}`;
      break;
    default:
      message = `${op.op} operation ${i} on ${JSON.stringify(path)} failed: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`;
  }
  return new PatchError("json", 422, message, { operationIndex: i, cause: err });
}

function lastSegment(path: string): string {
  const i = path.lastIndexOf("/");
  return path.slice(i + 1).replace(/~1/g, "/").replace(/~0/g, "~");
}
