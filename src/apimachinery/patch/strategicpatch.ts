/**
 * Kubernetes strategic merge patch (application/strategic-merge-patch+json), after
 * k8s.io/apimachinery/pkg/util/strategicpatch.
 *
 * A strategic merge patch is a JSON merge patch whose lists can be merged element by element
 * instead of replaced, as directed by patch metadata (the `patchStrategy` / `patchMergeKey`
 * struct tags of the built-in types, see builtinpatchmeta.ts) and by directives in the patch:
 *
 * - `$patch: replace` in a map replaces the map with the rest of the patch map; `$patch: delete`
 *   deletes the map's contents. In an element of a merging list of maps, `$patch: delete`
 *   removes the first element with the same merge key value (one per directive, as upstream
 *   since it learned to de-duplicate lists), `$patch: replace` replaces the whole
 *   list with the other patch elements. `$patch: merge` is rejected as upstream does ("merging
 *   lists cannot yet be specified in the patch" in lists, "unknown patch type" in maps).
 * - `$deleteFromPrimitiveList/<field>: [values]` removes values from a merging list of scalars.
 * - `$setElementOrder/<field>: [...]` gives the final relative order of a merging list (scalars,
 *   or maps holding only the merge key); server-only elements keep their place relative to it.
 * - `$retainKeys: [names]` (fields with the retainKeys strategy) clears every key of the
 *   original map not named in the list.
 * - `null` deletes a map key. Lists without the merge strategy are replaced; merging lists of
 *   scalars are a set union keeping order; merging lists of maps merge elements by merge key.
 *
 * Semantics, list orders and error texts follow upstream's apply path
 * (StrategicMergeMapPatch: MergeParallelList and IgnoreUnmatchedNulls on), including its quirks:
 * nulls inside a newly added map are dropped, but nulls inside a newly appended list element are
 * kept; a `$patch: replace` map is taken verbatim.
 *
 * Metadata is plain data (`PatchMeta`); a field with no metadata has no strategy. Unlike
 * upstream's Go-struct lookup, an unknown field is never an error (upstream fails with "unable to
 * find api field" only when diffing a changed map under an unknown field).
 *
 * Inputs are never mutated: both documents are deep-copied first and the algorithm (which, like
 * upstream, works in place) runs on the copies. Every failure is a PatchError.
 */
import { PatchError, type PatchErrorCode } from "./errors.js";
import { goSliceStable } from "./gosort.js";
import {
  cloneJson,
  compareStrings,
  goEqual,
  goFormat,
  goFormatS,
  goKind,
  goTypeName,
  hasKey,
  isObject,
  jsonEqual,
  setKey,
  sortKeysDeep,
  type GoKind,
  type JsonObject,
} from "./jsonvalue.js";

/**
 * Patch metadata of one field (or of the root object). For a struct-valued field, `fields`
 * holds the metadata of its fields; for a list-valued field, `patchStrategy` / `patchMergeKey`
 * describe the list and `items` describes its elements.
 * `patchStrategy` is "merge", "replace", "retainKeys" or "merge,retainKeys".
 */
export interface PatchMeta {
  patchStrategy?: string;
  patchMergeKey?: string;
  fields?: { readonly [name: string]: PatchMeta };
  items?: PatchMeta;
}

const DIRECTIVE_MARKER = "$patch";
const DELETE_DIRECTIVE = "delete";
const REPLACE_DIRECTIVE = "replace";
const MERGE_DIRECTIVE = "merge";
const RETAIN_KEYS_STRATEGY = "retainKeys";
const DELETE_FROM_PRIMITIVE_LIST_PREFIX = "$deleteFromPrimitiveList";
const RETAIN_KEYS_DIRECTIVE = "$retainKeys";
const SET_ELEMENT_ORDER_PREFIX = "$setElementOrder";

// Upstream's mergepatch error texts.
export const ERR_BAD_JSON_DOC = "invalid JSON document";
export const ERR_NO_LIST_OF_LISTS = "lists of lists are not supported";
export const ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST = "invalid patch format of primitive list";
export const ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS = "invalid patch format of retainKeys";
export const ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST = "invalid patch format of setElementOrder list";

const EMPTY_META: PatchMeta = Object.freeze({});
const MAP_TYPE = "map[string]interface {}";
const SLICE_TYPE = "[]interface {}";

function fail(code: PatchErrorCode, message: string): never {
  throw new PatchError("strategic", code, message);
}

function errNoMergeKey(m: unknown, key: string): never {
  fail(500, `map: ${goFormat(m)} does not contain declared merge key: ${key}`);
}

function errBadArgType(expected: string, actual: unknown): never {
  fail(500, `expected a ${expected}, but received a ${goTypeName(actual)}`);
}

function errBadPatchType(t: unknown, m: unknown): never {
  fail(500, `unknown patch type: ${goFormatS(t)} in map: ${goFormat(m)}`);
}

function fieldMeta(meta: PatchMeta, key: string): PatchMeta {
  const fields = meta.fields;
  if (fields === undefined || !Object.prototype.hasOwnProperty.call(fields, key)) return EMPTY_META;
  return fields[key] ?? EMPTY_META;
}

/** Splits a patchStrategy into (retainKeys, other strategy), as extractRetainKeysPatchStrategy. */
function extractRetainKeysPatchStrategy(strategy: string | undefined): [boolean, string] {
  if (strategy === undefined || strategy === "") return [false, ""];
  const parts = strategy.split(",");
  if (parts.length === 1) return parts[0] === RETAIN_KEYS_STRATEGY ? [true, ""] : [false, parts[0]];
  if (parts.length === 2) {
    if (parts[0] === RETAIN_KEYS_STRATEGY) return [true, parts[1]];
    if (parts[1] === RETAIN_KEYS_STRATEGY) return [true, parts[0]];
  }
  fail(500, `unexpected patch strategy: [${parts.join(" ")}]`);
}

function toDocument(v: unknown): JsonObject {
  if (v === null || v === undefined) return {};
  if (!isObject(v)) fail(400, ERR_BAD_JSON_DOC);
  return cloneJson(v);
}

/** Runs `f`, turning anything that is not a PatchError into one (a bug, or a stack overflow). */
function guarded<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof PatchError) throw err;
    if (err instanceof RangeError) {
      throw new PatchError("strategic", 422, "strategic merge patch: document nesting is too deep", { cause: err });
    }
    throw new PatchError("strategic", 500, `internal error: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

// ---------------------------------------------------------------------------------------------
// Apply

/**
 * Applies a strategic merge patch to `original` (both JSON objects; null counts as `{}`) under
 * `meta`, returning the patched document as a new object.
 */
export function applyStrategicMergePatch(original: unknown, patch: unknown, meta: PatchMeta = EMPTY_META): JsonObject {
  return guarded(() => mergeMap(toDocument(original), toDocument(patch), meta));
}

/** Merges `patch` into `original` in place (both owned by the caller) and returns the result. */
function mergeMap(original: JsonObject, patch: JsonObject, schema: PatchMeta): JsonObject {
  if (hasKey(patch, DIRECTIVE_MARKER)) return handleDirectiveInMergeMap(patch[DIRECTIVE_MARKER], patch);

  applyRetainKeysDirective(original, patch);
  mergePatchIntoOriginal(original, patch, schema);

  for (const patchKey of Object.keys(patch)) {
    const patchV = patch[patchKey];
    let k = patchKey;
    let isDeleteList = false;
    if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      const originalKey = extractKey(patchKey, DELETE_FROM_PRIMITIVE_LIST_PREFIX);
      isDeleteList = true;
      if (originalKey.length > 0) k = originalKey;
    }

    // null deletes the key; an unmatched null is simply dropped.
    if (patchV === null) {
      delete original[k];
      continue;
    }

    if (!hasKey(original, k)) {
      if (!isDeleteList) {
        discardNullValuesFromPatch(patchV);
        setKey(original, k, patchV);
      }
      continue;
    }

    const originalV = original[k];
    const kind = goKind(originalV);
    if (kind !== goKind(patchV)) {
      if (!isDeleteList) {
        discardNullValuesFromPatch(patchV);
        setKey(original, k, patchV);
      }
      continue;
    }

    const sub = fieldMeta(schema, k);
    switch (kind) {
      case "map": {
        const [, strategy] = extractRetainKeysPatchStrategy(sub.patchStrategy);
        setKey(original, k, strategy !== REPLACE_DIRECTIVE ? mergeMap(originalV as JsonObject, patchV as JsonObject, sub) : patchV);
        break;
      }
      case "slice": {
        const [, strategy] = extractRetainKeysPatchStrategy(sub.patchStrategy);
        setKey(
          original,
          k,
          mergeSliceHandler(originalV as unknown[], patchV as unknown[], sub.items ?? EMPTY_META, strategy, sub.patchMergeKey ?? "", isDeleteList, k),
        );
        break;
      }
      default:
        setKey(original, k, patchV);
    }
  }
  return original;
}

function handleDirectiveInMergeMap(directive: unknown, patch: JsonObject): JsonObject {
  if (directive === REPLACE_DIRECTIVE) {
    delete patch[DIRECTIVE_MARKER];
    return patch;
  }
  if (directive === DELETE_DIRECTIVE) return {};
  errBadPatchType(directive, patch);
}

function discardNullValuesFromPatch(v: unknown): void {
  if (Array.isArray(v)) {
    for (const x of v) discardNullValuesFromPatch(x);
  } else if (isObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else discardNullValuesFromPatch(v[k]);
    }
  }
}

/** "$deleteFromPrimitiveList/containers" → "containers". */
function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf("/");
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    fail(400, prefix === DELETE_FROM_PRIMITIVE_LIST_PREFIX ? ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST : ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST);
  }
  return s.slice(slash + 1);
}

/** Clears keys of `original` missing from the patch's `$retainKeys` list, after validating it. */
function applyRetainKeysDirective(original: JsonObject, patch: JsonObject): void {
  if (!hasKey(patch, RETAIN_KEYS_DIRECTIVE)) return;
  const retainKeys = patch[RETAIN_KEYS_DIRECTIVE];
  delete patch[RETAIN_KEYS_DIRECTIVE];
  if (!Array.isArray(retainKeys)) fail(400, ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS);
  const retained = new Set(retainKeys.filter((x): x is string => typeof x === "string"));
  for (const k of Object.keys(patch)) {
    const v = patch[k];
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || k.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    if (!retained.has(k)) fail(400, ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS);
  }
  for (const k of Object.keys(original)) if (!retained.has(k)) delete original[k];
}

/**
 * Processes every `$setElementOrder/<field>` directive together with the patch list of the same
 * field: merges the list, then orders the result by $setElementOrder, the patch and the live
 * list (in that precedence). Both the directive and the patch list are removed from `patch`.
 */
function mergePatchIntoOriginal(original: JsonObject, patch: JsonObject, schema: PatchMeta): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    const setElementOrder = patch[key];
    delete patch[key];
    if (!Array.isArray(setElementOrder)) errBadArgType(SLICE_TYPE, setElementOrder);
    const originalKey = extractKey(key, SET_ELEMENT_ORDER_PREFIX);

    const foundOriginal = hasKey(original, originalKey);
    const foundPatch = hasKey(patch, originalKey);
    let originalList: unknown[] = [];
    let patchList: unknown[] = [];
    if (foundOriginal) {
      const v = original[originalKey];
      if (!Array.isArray(v)) errBadArgType(SLICE_TYPE, v);
      originalList = v;
    }
    if (foundPatch) {
      const v = patch[originalKey];
      if (!Array.isArray(v)) errBadArgType(SLICE_TYPE, v);
      patchList = v;
    }
    const sub = fieldMeta(schema, originalKey);
    const [, strategy] = extractRetainKeysPatchStrategy(sub.patchStrategy);
    const mergeKey = sub.patchMergeKey ?? "";
    validatePatchWithSetOrderList(patchList, setElementOrder, mergeKey);

    // Upstream merges the list in place, so the live list it later orders by is the original
    // slice as mergeSlice left it (see BackingArray). `liveView` models that slice.
    const liveView = [...originalList];
    let merged: unknown[];
    if (foundOriginal && !foundPatch) merged = originalList;
    else if (!foundOriginal && foundPatch) merged = patchList;
    else if (foundOriginal && foundPatch) {
      merged =
        strategy === MERGE_DIRECTIVE
          ? mergeSlice(originalList, patchList, sub.items ?? EMPTY_META, mergeKey, false, originalKey, liveView)
          : patchList;
    } else continue;

    const [patchItems, serverOnlyItems] =
      mergeKey.length === 0 ? partitionPrimitivesByPresentInList(merged, setElementOrder) : partitionMapsByPresentInList(merged, setElementOrder, mergeKey);
    const kind = sliceElementType(liveView, patchList);
    setKey(original, originalKey, normalizeElementOrder(patchItems, serverOnlyItems, setElementOrder, liveView, mergeKey, kind));
    delete patch[originalKey];
  }
}

/**
 * Checks that the patch list's elements (deletions and directive elements aside) appear in
 * $setElementOrder in the same relative order.
 */
function validatePatchWithSetOrderList(patchList: unknown[], setOrderList: unknown[], mergeKey: string): void {
  if (setOrderList.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey.length > 0 ? extractToDeleteItems(patchList)[0] : patchList;
  let patchIndex = 0;
  let setOrderIndex = 0;
  while (patchIndex < nonDelete.length && setOrderIndex < setOrderList.length) {
    if (containsDirectiveMarker(nonDelete[patchIndex])) {
      patchIndex++;
      continue;
    }
    if (mergeKeyValueEqual(nonDelete[patchIndex], setOrderList[setOrderIndex], mergeKey)) patchIndex++;
    setOrderIndex++;
  }
  if (patchIndex < nonDelete.length && setOrderIndex >= setOrderList.length) {
    fail(500, `The order in patch list:\n${goFormat(patchList)}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX} list:\n${goFormat(setOrderList)}\n`);
  }
}

function containsDirectiveMarker(item: unknown): boolean {
  return isObject(item) && hasKey(item, DIRECTIVE_MARKER);
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey.length === 0) return goEqual(left, right);
  if (!isObject(left)) errBadArgType(MAP_TYPE, left);
  if (!isObject(right)) errBadArgType(MAP_TYPE, right);
  if (!hasKey(left, mergeKey)) errNoMergeKey(left, mergeKey);
  if (!hasKey(right, mergeKey)) errNoMergeKey(right, mergeKey);
  return goEqual(left[mergeKey], right[mergeKey]);
}

function mergeSliceHandler(
  original: unknown[],
  patch: unknown[],
  itemsMeta: PatchMeta,
  strategy: string,
  mergeKey: string,
  isDeleteList: boolean,
  fieldName: string,
): unknown[] {
  if (strategy === MERGE_DIRECTIVE) return mergeSlice(original, patch, itemsMeta, mergeKey, isDeleteList, fieldName);
  return patch;
}

/**
 * The array behind a Go slice that upstream modifies in place. Deleting an element from a merging
 * list (`append(s[:i], s[i+1:]...)`) shifts the rest left inside the same array, and appending
 * new patch elements then refills the freed slots; upstream later reads the caller's view of the
 * original slice (length n) to order the result. Only the first n slots are modelled: writes
 * beyond them are invisible to that view whatever the capacity.
 */
class BackingArray {
  private readonly slots: unknown[];
  private length: number;
  /** False once an append outgrew the modelled slots (Go reallocated; later writes go elsewhere). */
  private aliased = true;

  constructor(slots: unknown[]) {
    this.slots = slots;
    this.length = slots.length;
  }

  current(): unknown[] {
    return this.slots.slice(0, this.length);
  }

  deleteAt(i: number): void {
    for (let j = i; j < this.length - 1; j++) this.slots[j] = this.slots[j + 1];
    this.length--;
  }

  set(i: number, v: unknown): void {
    if (this.aliased) this.slots[i] = v;
  }

  append(v: unknown): void {
    if (this.aliased && this.length < this.slots.length) this.slots[this.length] = v;
    else this.aliased = false;
    this.length++;
  }

  /** Go's deduplicateScalars run on the slice itself (each duplicate replaced by the last element). */
  deduplicate(): unknown[] {
    const s = this.slots;
    let last = this.length - 1;
    for (let i = 0; i < last; i++) {
      for (let j = i + 1; j <= last; j++) {
        if (goEqual(s[i], s[j])) {
          s[j] = s[last];
          last--;
          j--;
        }
      }
    }
    this.length = last + 1;
    return this.current();
  }
}

/**
 * Merges a merging list. `liveView`, when given, is the caller's view of `original`, updated as
 * upstream's in-place slice operations would update it.
 */
function mergeSlice(
  original: unknown[],
  patch: unknown[],
  itemsMeta: PatchMeta,
  mergeKey: string,
  isDeleteList: boolean,
  fieldName: string,
  liveView: unknown[] = [...original],
): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementType(original, patch);
  const backing = new BackingArray(liveView);

  let merged: unknown[];
  if (kind !== "map") {
    if (isDeleteList) return deleteFromSlice(original, patch);
    // append(original, patch...) shares the array only when there is nothing to append.
    if (patch.length === 0) {
      merged = backing.deduplicate();
      original = liveView; // the slice header still spans all n slots, now deduplicated in place
    } else {
      merged = deduplicateScalars([...original, ...patch]);
    }
  } else {
    if (mergeKey === "") fail(500, `cannot merge lists without merge key for ${fieldName}`);
    let replaced: boolean;
    [original, patch, replaced] = mergeSliceWithSpecialElements(backing, patch, mergeKey);
    merged = mergeSliceWithoutSpecialElements(original, patch, mergeKey, itemsMeta, replaced ? undefined : backing);
  }

  const [patchItems, serverOnlyItems] =
    mergeKey.length === 0 ? partitionPrimitivesByPresentInList(merged, patch) : partitionMapsByPresentInList(merged, patch, mergeKey);
  return normalizeElementOrder(patchItems, serverOnlyItems, patch, original, mergeKey, kind);
}

/**
 * Applies the `$patch` elements of a merging list of maps: each deletion removes the first
 * matching element from the original, a replace makes the other patch elements the whole list.
 * Returns the list to merge into, the patch without directive elements, and whether a replace
 * directive was found.
 */
function mergeSliceWithSpecialElements(original: BackingArray, patch: unknown[], mergeKey: string): [unknown[], unknown[], boolean] {
  const withoutSpecial: unknown[] = [];
  let replace = false;
  for (const v of patch) {
    const m = v as JsonObject;
    if (!hasKey(m, DIRECTIVE_MARKER)) {
      withoutSpecial.push(v);
      continue;
    }
    const directive = m[DIRECTIVE_MARKER];
    if (directive === DELETE_DIRECTIVE) {
      if (!hasKey(m, mergeKey)) errNoMergeKey(m, mergeKey);
      const i = findMapInSliceBasedOnKeyValue(original.current(), mergeKey, m[mergeKey]);
      if (i >= 0) original.deleteAt(i);
    } else if (directive === REPLACE_DIRECTIVE) {
      replace = true;
    } else if (directive === MERGE_DIRECTIVE) {
      fail(500, "merging lists cannot yet be specified in the patch");
    } else {
      errBadPatchType(directive, m);
    }
  }
  if (replace) return [withoutSpecial, [], true];
  return [original.current(), withoutSpecial, false];
}

/** Merges patch elements into `original` by merge key; new elements are appended. */
function mergeSliceWithoutSpecialElements(
  original: unknown[],
  patch: unknown[],
  mergeKey: string,
  itemsMeta: PatchMeta,
  backing: BackingArray | undefined,
): unknown[] {
  const merged = [...original];
  for (const v of patch) {
    const m = v as JsonObject;
    if (!hasKey(m, mergeKey)) errNoMergeKey(m, mergeKey);
    const i = findMapInSliceBasedOnKeyValue(merged, mergeKey, m[mergeKey]);
    if (i >= 0) {
      merged[i] = mergeMap(merged[i] as JsonObject, m, itemsMeta);
      backing?.set(i, merged[i]);
    } else {
      merged.push(v);
      backing?.append(v);
    }
  }
  return merged;
}

/** Index of the first map in `list` whose `key` equals `value`, or -1. */
function findMapInSliceBasedOnKeyValue(list: unknown[], key: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!isObject(v)) fail(500, `value for key ${i} is not a map`);
    if (hasKey(v, key) && goEqual(v[key], value)) return i;
  }
  return -1;
}

function deleteFromSlice(current: unknown[], toDelete: unknown[]): unknown[] {
  return current.filter((v) => !toDelete.some((d) => goEqual(d, v)));
}

/** Go's deduplicateScalars, which replaces each duplicate with the last element. */
function deduplicateScalars(s: unknown[]): unknown[] {
  s = [...s];
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (goEqual(s[i], s[j])) {
        s[j] = s[length];
        s = s.slice(0, length);
        length--;
        j--;
      }
    }
  }
  return s;
}

function partitionPrimitivesByPresentInList(list: unknown[], partitionBy: unknown[]): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) {
    if (partitionBy.some((p) => goEqual(p, v))) inPatch.push(v);
    else serverOnly.push(v);
  }
  return [inPatch, serverOnly];
}

function partitionMapsByPresentInList(list: unknown[], partitionBy: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) {
    if (!isObject(v)) errBadArgType(MAP_TYPE, v);
    if (!hasKey(v, mergeKey)) errNoMergeKey(v, mergeKey);
    if (findMapInSliceBasedOnKeyValue(partitionBy, mergeKey, v[mergeKey]) >= 0) inPatch.push(v);
    else serverOnly.push(v);
  }
  return [inPatch, serverOnly];
}

/** The common element kind of the given lists; lists of lists and mixed kinds are errors. */
function sliceElementType(...lists: unknown[][]): GoKind {
  let prev: GoKind | undefined;
  for (const list of lists) {
    for (const v of list) {
      const cur = goKind(v);
      if (prev === undefined) {
        prev = cur;
        if (cur === "slice") fail(422, ERR_NO_LIST_OF_LISTS);
      } else if (prev !== cur) {
        fail(500, `list element types are not identical: ${goFormat(lists)}`);
      }
    }
  }
  if (prev === undefined) fail(500, "no elements in any of the given slices");
  return prev;
}

/**
 * Orders `patch` by `patchOrder` and `serverOnly` by `serverOrder`, then interleaves them,
 * keeping each list's relative order (upstream's normalizeElementOrder).
 */
function normalizeElementOrder(
  patch: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: GoKind,
): unknown[] {
  const sortedPatch = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const sortedServerOnly = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(sortedServerOnly, sortedPatch, serverOrder, mergeKey, kind);
}

function mergeKeyOf(item: unknown, mergeKey: string, kind: GoKind): unknown {
  if (kind !== "map") return item;
  if (!isObject(item)) return null;
  return hasKey(item, mergeKey) ? item[mergeKey] : null;
}

function indexOf(list: unknown[], value: unknown, mergeKey: string, kind: GoKind): number {
  const want = mergeKeyOf(value, mergeKey, kind);
  for (let i = 0; i < list.length; i++) if (goEqual(want, mergeKeyOf(list[i], mergeKey, kind))) return i;
  return -1;
}

/** Inserts each server-only (`left`) item into the patch (`right`) items by live-list order. */
function mergeSortedSlice(left: unknown[], right: unknown[], serverOrder: unknown[], mergeKey: string, kind: GoKind): unknown[] {
  const size = left.length + right.length;
  const out = new Array<unknown>(size);
  let i = 0;
  let j = 0;
  for (let k = 0; k < size; k++) {
    if (i >= left.length && j < right.length) out[k] = right[j++];
    else if (j >= right.length && i < left.length) out[k] = left[i++];
    else {
      const li = indexOf(serverOrder, left[i], mergeKey, kind);
      const ri = indexOf(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out[k] = left[i++];
      else out[k] = right[j++];
    }
  }
  return out;
}

/** Sorts `toSort` by the order of `order` (deletion directives last), as upstream. */
function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string, kind: GoKind): unknown[] {
  let items = [...toSort];
  let toDelete: unknown[] = [];
  if (kind === "map") {
    validateMergeKeyInLists(mergeKey, items, order);
    [items, toDelete] = extractToDeleteItems(items);
  }
  goSliceStable(items, (i, j) => {
    const ii = indexOf(order, items[i], mergeKey, kind);
    if (ii >= 0) {
      const ij = indexOf(order, items[j], mergeKey, kind);
      if (ij >= 0) return ii < ij;
    }
    return true;
  });
  return items.concat(toDelete);
}

function validateMergeKeyInLists(mergeKey: string, ...lists: unknown[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isObject(item)) errBadArgType(MAP_TYPE, item);
      if (!hasKey(item, mergeKey)) errNoMergeKey(item, mergeKey);
    }
  }
}

/** Splits a list of maps into (elements to keep, elements carrying `$patch: delete`). */
function extractToDeleteItems(list: unknown[]): [unknown[], unknown[]] {
  const keep: unknown[] = [];
  const toDelete: unknown[] = [];
  for (const v of list) {
    if (!isObject(v)) errBadArgType(MAP_TYPE, v);
    if (hasKey(v, DIRECTIVE_MARKER) && v[DIRECTIVE_MARKER] === DELETE_DIRECTIVE) toDelete.push(v);
    else keep.push(v);
  }
  return [keep, toDelete];
}

// ---------------------------------------------------------------------------------------------
// Two-way patch creation (what kubectl computes client-side)

/**
 * Computes the strategic merge patch that turns `original` into `modified` under `meta`
 * (upstream's CreateTwoWayMergePatch, with $setElementOrder directives). Keys are sorted as Go's
 * JSON encoder writes them.
 */
export function createTwoWayMergePatch(original: unknown, modified: unknown, meta: PatchMeta = EMPTY_META): JsonObject {
  return guarded(() => sortKeysDeep(diffMaps(toDocument(original), toDocument(modified), meta, false)));
}

function diffMaps(original: JsonObject, modified: JsonObject, schema: PatchMeta, buildRetainKeys: boolean): JsonObject {
  const patch: JsonObject = {};
  const retainKeysList: string[] = [];

  for (const key of Object.keys(modified)) {
    const modifiedValue = modified[key];
    if (buildRetainKeys && modifiedValue !== null) retainKeysList.push(key);

    if (!hasKey(original, key)) {
      setKey(patch, key, modifiedValue);
      continue;
    }
    const originalValue = original[key];

    if (key === DIRECTIVE_MARKER) {
      if (typeof originalValue !== "string" || typeof modifiedValue !== "string") fail(500, `invalid value for special key: ${DIRECTIVE_MARKER}`);
      if (originalValue !== modifiedValue) setKey(patch, key, modifiedValue);
      continue;
    }

    const kind = goKind(originalValue);
    if (kind !== goKind(modifiedValue)) {
      setKey(patch, key, modifiedValue);
      continue;
    }
    if (kind === "map") handleMapDiff(key, originalValue as JsonObject, modifiedValue as JsonObject, patch, schema);
    else if (kind === "slice") handleSliceDiff(key, originalValue as unknown[], modifiedValue as unknown[], patch, schema);
    else if (!jsonEqual(originalValue, modifiedValue)) setKey(patch, key, modifiedValue);
  }

  // Keys removed in modified are deleted with null.
  for (const key of Object.keys(original)) if (!hasKey(modified, key)) setKey(patch, key, null);

  if (retainKeysList.length > 0 && (Object.keys(patch).length > 0 || hasAdditionalNewField(original, modified))) {
    patch[RETAIN_KEYS_DIRECTIVE] = sortScalars(retainKeysList);
  }
  return patch;
}

function hasAdditionalNewField(original: JsonObject, modified: JsonObject): boolean {
  for (const k of Object.keys(original)) if (original[k] !== null && !hasKey(modified, k)) return true;
  return false;
}

function handleMapDiff(key: string, originalValue: JsonObject, modifiedValue: JsonObject, patch: JsonObject, schema: PatchMeta): void {
  const sub = fieldMeta(schema, key);
  const [retainKeys, strategy] = extractRetainKeysPatchStrategy(sub.patchStrategy);
  if (strategy === REPLACE_DIRECTIVE) {
    setKey(patch, key, modifiedValue);
    return;
  }
  const patchValue = diffMaps(originalValue, modifiedValue, sub, retainKeys);
  if (Object.keys(patchValue).length > 0) setKey(patch, key, patchValue);
}

function handleSliceDiff(key: string, originalValue: unknown[], modifiedValue: unknown[], patch: JsonObject, schema: PatchMeta): void {
  const sub = fieldMeta(schema, key);
  const [retainKeys, strategy] = extractRetainKeysPatchStrategy(sub.patchStrategy);
  if (strategy !== MERGE_DIRECTIVE) {
    if (!jsonEqual(originalValue, modifiedValue)) setKey(patch, key, modifiedValue);
    return;
  }
  const [addList, deletionList, setOrderList] = diffLists(originalValue, modifiedValue, sub.items ?? EMPTY_META, sub.patchMergeKey ?? "", retainKeys);
  if (addList.length > 0) setKey(patch, key, addList);
  if (deletionList.length > 0) setKey(patch, `${DELETE_FROM_PRIMITIVE_LIST_PREFIX}/${key}`, deletionList);
  if (setOrderList.length > 0) setKey(patch, `${SET_ELEMENT_ORDER_PREFIX}/${key}`, setOrderList);
}

/** Returns (patch list, parallel deletion list, $setElementOrder list) for a merging list. */
function diffLists(original: unknown[], modified: unknown[], itemsMeta: PatchMeta, mergeKey: string, buildRetainKeys: boolean): [unknown[], unknown[], unknown[]] {
  if (original.length === 0) return [modified.length === 0 ? [] : modified, [], []];
  const kind = sliceElementType(original, modified);
  if (kind === "map") {
    const [changes, deletions] = diffListsOfMaps(original, modified, itemsMeta, mergeKey, buildRetainKeys);
    const patchList = normalizeSliceOrder(changes, modified, mergeKey, kind).concat(deletions);
    const orderSame = isOrderSame(original, modified, mergeKey);
    const setOrderList =
      patchList.length > 0 || !orderSame ? modified.map((v) => ({ [mergeKey]: (v as JsonObject)[mergeKey] }) as JsonObject) : [];
    return [patchList, [], setOrderList];
  }
  const [additions, deletions] = diffListsOfScalars(original, modified);
  const patchList = normalizeSliceOrder(additions, modified, mergeKey, kind);
  const setOrderList = deletions.length > 0 || !jsonEqual(original, modified) ? modified : [];
  return [patchList, deletions, setOrderList];
}

function isOrderSame(original: unknown[], modified: unknown[], mergeKey: string): boolean {
  if (original.length !== modified.length) return false;
  for (let i = 0; i < modified.length; i++) if (!mergeKeyValueEqual(original[i], modified[i], mergeKey)) return false;
  return true;
}

/** Go's sort of scalars by their %v rendering. */
function sortScalars<T>(s: T[]): T[] {
  return [...s].sort((a, b) => compareStrings(goFormat(a), goFormat(b)));
}

function diffListsOfScalars(original: unknown[], modified: unknown[]): [unknown[], unknown[]] {
  const o = sortScalars(original);
  const m = sortScalars(modified);
  const additions: unknown[] = [];
  const deletions: unknown[] = [];
  let oi = 0;
  let mi = 0;
  while (oi < o.length || mi < m.length) {
    const oIn = oi < o.length;
    const mIn = mi < m.length;
    const os = oIn ? goFormat(o[oi]) : "";
    const ms = mIn ? goFormat(m[mi]) : "";
    if (oIn && mIn && os === ms) {
      oi++;
      mi++;
    } else if (!oIn || (mIn && os > ms)) {
      additions.push(m[mi++]);
    } else {
      deletions.push(o[oi++]);
    }
  }
  return [additions, deduplicateScalars(deletions)];
}

function mergeKeyValueOf(list: unknown[], i: number, mergeKey: string): [JsonObject, unknown] {
  const m = list[i];
  if (!isObject(m)) errBadArgType(MAP_TYPE, m);
  if (!hasKey(m, mergeKey)) errNoMergeKey(m, mergeKey);
  return [m, m[mergeKey]];
}

function sortMapsByMergeKey(list: unknown[], mergeKey: string): unknown[] {
  for (let i = 0; i < list.length; i++) mergeKeyValueOf(list, i, mergeKey);
  return [...list].sort((a, b) => compareStrings(goFormat((a as JsonObject)[mergeKey]), goFormat((b as JsonObject)[mergeKey])));
}

function diffListsOfMaps(original: unknown[], modified: unknown[], itemsMeta: PatchMeta, mergeKey: string, buildRetainKeys: boolean): [unknown[], unknown[]] {
  const patch: unknown[] = [];
  const deletions: unknown[] = [];
  const o = sortMapsByMergeKey(original, mergeKey);
  const m = sortMapsByMergeKey(modified, mergeKey);
  let oi = 0;
  let mi = 0;
  while (oi < o.length || mi < m.length) {
    const oIn = oi < o.length;
    const mIn = mi < m.length;
    const [oe, ov] = oIn ? mergeKeyValueOf(o, oi, mergeKey) : [{}, undefined];
    const [me, mv] = mIn ? mergeKeyValueOf(m, mi, mergeKey) : [{}, undefined];
    const os = oIn ? goFormat(ov) : "";
    const ms = mIn ? goFormat(mv) : "";
    if (oIn && mIn && os === ms) {
      const patchValue = diffMaps(oe, me, itemsMeta, buildRetainKeys);
      if (Object.keys(patchValue).length > 0) {
        setKey(patchValue, mergeKey, mv);
        patch.push(patchValue);
      }
      oi++;
      mi++;
    } else if (!oIn || (mIn && os > ms)) {
      patch.push(me);
      mi++;
    } else {
      deletions.push({ [mergeKey]: ov, [DIRECTIVE_MARKER]: DELETE_DIRECTIVE });
      oi++;
    }
  }
  return [patch, deletions];
}
