/**
 * Schema-aware operations on JSON values (structured-merge-diff's typed package): the field set
 * of a value, the comparison of two values, the apply merge, and removal of fields.
 *
 * Leaves: scalars, atomic lists and maps, and — so that empty and null stay distinct — lists
 * and maps that are empty or null on both sides. Lists of type set/map are walked item by item,
 * identified by their path element (the value, or the key fields); structs and granular maps
 * field by field. Values never are mutated: merge and removal copy what they change.
 */
import { semanticEqual } from "../../apimachinery/deepcopy.js";
import { compareElementKeys, elementKey, FieldSet, type PathElement } from "./fieldpath.js";
import { deducedType, type TypeNode } from "./schema.js";

type JSONObject = Record<string, unknown>;

function isObject(v: unknown): v is JSONObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v !== "object") return false;
  // No own enumerable key (Object.keys(v).length === 0 without building the array).
  for (const k in v) if (Object.hasOwn(v, k)) return false;
  return true;
}

/**
 * Key fields upstream's schemas default when an item omits them, for list types that carry no
 * defaults of their own (those built from OpenAPI schemas; the built-in table has them per list).
 */
const keyDefaults: Readonly<Record<string, unknown>> = { protocol: "TCP" };

type Shape = "leaf" | "fields" | "items";

/**
 * How a node is walked, given its type and the values present on each side (undefined =
 * absent; `b` is absent for one-sided walks). Written for exactly two values, without
 * collecting them in arrays: it runs for every node of every write.
 */
function shapeOf(t: TypeNode, a: unknown, b?: unknown): Shape {
  switch (t.kind) {
    case "scalar":
      return "leaf";
    case "deduced": {
      const anyPresent = a !== undefined || b !== undefined;
      const objects = (a === undefined || isObject(a)) && (b === undefined || isObject(b));
      return anyPresent && objects && !(isEmpty(a) && isEmpty(b)) ? "fields" : "leaf";
    }
    case "struct":
    case "map": {
      const objects = (a === undefined || isObject(a)) && (b === undefined || isObject(b));
      if (t.atomic || !objects || (isEmpty(a) && isEmpty(b))) return "leaf";
      return "fields";
    }
    case "list": {
      const arrays = (a === undefined || Array.isArray(a)) && (b === undefined || Array.isArray(b));
      if (t.listType === "atomic" || !arrays || (isEmpty(a) && isEmpty(b))) return "leaf";
      return "items";
    }
  }
}

function fieldType(t: TypeNode, name: string): { type: TypeNode; declared: boolean } {
  if (t.kind === "struct") {
    const f = t.field(name);
    return f ? { type: f, declared: true } : { type: deducedType, declared: false };
  }
  if (t.kind === "map") return { type: t.element, declared: false };
  return { type: deducedType, declared: false };
}

/** The path element of a list item (its FieldsV1 string). */
export function itemElement(t: TypeNode, item: unknown, index: number): string {
  if (t.kind !== "list") return elementKey({ index });
  if (t.listType === "set") return elementKey({ value: item });
  if (t.listType === "map" && isObject(item) && t.keys.length > 0) {
    const key: JSONObject = {};
    const defaults = t.keyDefaults ?? keyDefaults;
    for (const k of t.keys) {
      const v = item[k] ?? defaults[k];
      if (v !== undefined) key[k] = v;
    }
    return elementKey({ key } as PathElement);
  }
  return elementKey({ index });
}

/** Items by path element, first occurrence wins, in list order. */
function indexItems(t: TypeNode & { kind: "list" }, list: unknown): { order: string[]; items: Map<string, unknown> } {
  const items = new Map<string, unknown>();
  const order: string[] = [];
  if (Array.isArray(list)) {
    list.forEach((item, i) => {
      const pe = itemElement(t, item, i);
      if (items.has(pe)) return;
      items.set(pe, item);
      order.push(pe);
    });
  }
  return { order, items };
}

// ---- field sets ----------------------------------------------------------------------------

/** The set of fields a value sets (an applied configuration's ownership). */
export function toFieldSet(value: unknown, t: TypeNode): FieldSet {
  const root = new FieldSet();
  const walk = (v: unknown, ty: TypeNode, node: FieldSet) => {
    const shape = ty.kind === "list" && ty.listType !== "atomic" && Array.isArray(v) ? "items" : shapeOf(ty, v);
    if (shape === "leaf") {
      node.member = true;
      return;
    }
    if (shape === "items" && ty.kind === "list") {
      (v as unknown[]).forEach((item, i) => {
        const child = node.child(itemElement(ty, item, i));
        walk(item, ty.element, child);
        child.member = true;
      });
      return;
    }
    for (const [k, val] of Object.entries(v as JSONObject)) {
      if (val === undefined) continue;
      const f = fieldType(ty, k);
      const child = node.child(`f:${k}`);
      walk(val, f.type, child);
      if (val === null || (isObject(val) && Object.keys(val).length === 0) || !f.declared) child.member = true;
      else if (!child.member && child.children.size === 0) node.children.delete(`f:${k}`);
    }
  };
  walk(value, t, root);
  root.member = false;
  return root;
}

// ---- comparison ----------------------------------------------------------------------------

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * What changed from `lhs` to `rhs`: leaves added, removed or changed, plus containers that
 * appeared or disappeared (granular maps, lists and list items). Struct-typed fields and
 * required fields count as always present, as Go's zero values (non-pointer structs, fields
 * without omitempty) make them upstream, so they are never added or removed as containers.
 */
export function compare(lhs: unknown, rhs: unknown, t: TypeNode): Comparison {
  const out: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  // The path of the node being walked: one stack for the whole walk, an element pushed on the
  // way down and popped on the way back (FieldSet.insert copies what it keeps).
  const path: string[] = [];
  const walk = (l: unknown, r: unknown, ty: TypeNode, alwaysPresent = false) => {
    const shape = shapeOf(ty, l, r);
    if (shape === "leaf") {
      if (path.length === 0) return;
      if (l === undefined) out.added.insert(path);
      else if (r === undefined) out.removed.insert(path);
      else if (!semanticEqual(l, r)) out.modified.insert(path);
      return;
    }
    if (shape === "items" && ty.kind === "list") {
      const li = indexItems(ty, l);
      const ri = indexItems(ty, r);
      for (const pe of li.order) {
        path.push(pe);
        walk(li.items.get(pe), ri.items.get(pe), ty.element);
        path.pop();
      }
      for (const pe of ri.order) {
        if (li.items.has(pe)) continue;
        path.push(pe);
        walk(undefined, ri.items.get(pe), ty.element);
        path.pop();
      }
    } else {
      const lo = isObject(l) ? l : {};
      const ro = isObject(r) ? r : {};
      const required = (k: string) => ty.kind === "struct" && ty.required.has(k);
      // Own properties only: a key such as "constructor" or "toString" (legal in a ConfigMap's
      // data, say) must not read through to Object.prototype.
      const own = (o: Record<string, unknown>, k: string): unknown => (Object.hasOwn(o, k) ? o[k] : undefined);
      for (const k of Object.keys(lo)) {
        if (own(lo, k) === undefined) continue;
        path.push(`f:${k}`);
        walk(own(lo, k), own(ro, k), fieldType(ty, k).type, required(k));
        path.pop();
      }
      for (const k of Object.keys(ro)) {
        if (own(lo, k) !== undefined || own(ro, k) === undefined) continue;
        path.push(`f:${k}`);
        walk(undefined, own(ro, k), fieldType(ty, k).type, required(k));
        path.pop();
      }
    }
    const structField = ty.kind === "struct" && path.length > 0 && path[path.length - 1].startsWith("f:");
    if (path.length > 0 && !structField && !alwaysPresent) {
      if (l === undefined) out.added.insert(path);
      else if (r === undefined) out.removed.insert(path);
    }
  };
  walk(lhs, rhs, t);
  return out;
}

/**
 * `compare({}, rhs, t).added.toFieldsV1()` — the field set of a created object, as the first
 * manager of a create owns it — built directly as FieldsV1, without a trie and without the
 * (always empty) modified and removed sets: a create runs this on every object it stores.
 * The walk is compare's with the left side absent; undefined when the set is empty.
 */
export function addedFieldsV1(rhs: unknown, t: TypeNode): Record<string, unknown> | undefined {
  const shape = shapeOf(t, undefined, rhs);
  if (shape === "leaf") return undefined;
  return addedChildren(rhs, t, shape, false);
}

/** The FieldsV1 node of an added value below the root; undefined when nothing in it is in the set. */
function addedNode(r: unknown, ty: TypeNode, alwaysPresent: boolean, fieldElement: boolean): Record<string, unknown> | undefined {
  const shape = shapeOf(ty, undefined, r);
  if (shape === "leaf") return {};
  // As in compare: a container is itself added unless it is a struct-typed field or required.
  const member = !(ty.kind === "struct" && fieldElement) && !alwaysPresent;
  return addedChildren(r, ty, shape, member);
}

function addedChildren(r: unknown, ty: TypeNode, shape: Shape, member: boolean): Record<string, unknown> | undefined {
  const children: Array<[string, Record<string, unknown>]> = [];
  if (shape === "items" && ty.kind === "list") {
    const ri = indexItems(ty, r);
    for (const pe of ri.order) {
      const c = addedNode(ri.items.get(pe), ty.element, false, false);
      if (c) children.push([pe, c]);
    }
  } else {
    const ro = isObject(r) ? r : {};
    for (const k of Object.keys(ro)) {
      if (ro[k] === undefined) continue;
      const c = addedNode(ro[k], fieldType(ty, k).type, ty.kind === "struct" && ty.required.has(k), true);
      if (c) children.push([`f:${k}`, c]);
    }
  }
  if (!member && children.length === 0) return undefined;
  // FieldSet.toFieldsV1's layout: "." first for a member with children, then children in element order.
  if (children.length > 1) children.sort((a, b) => compareElementKeys(a[0], b[0]));
  const out: Record<string, unknown> = {};
  if (member && children.length > 0) out["."] = {};
  for (const [k, c] of children) out[k] = c;
  return out;
}

// ---- merge ---------------------------------------------------------------------------------

/**
 * The apply merge: `rhs` (the configuration) over `lhs` (the live object). Leaves take the
 * configuration's value; structs and maps merge field by field; set and map lists merge item by
 * item, keeping the live order for items the configuration does not mention and the
 * configuration's order among the items it does.
 */
export function merge(lhs: unknown, rhs: unknown, t: TypeNode): unknown {
  if (rhs === undefined) return lhs;
  if (lhs === undefined) return rhs;
  const shape = shapeOf(t, lhs, rhs);
  if (shape === "leaf") return rhs;
  if (shape === "items" && t.kind === "list") return mergeItems(t, lhs, rhs);
  const lo = lhs as JSONObject;
  const ro = rhs as JSONObject;
  const out: JSONObject = {};
  for (const k of Object.keys(lo)) out[k] = k in ro ? merge(lo[k], ro[k], fieldType(t, k).type) : lo[k];
  for (const k of Object.keys(ro)) if (!(k in lo)) out[k] = ro[k];
  return out;
}

function mergeItems(t: TypeNode & { kind: "list" }, lhs: unknown, rhs: unknown): unknown[] {
  const L = indexItems(t, lhs);
  const R = indexItems(t, rhs);
  const out: unknown[] = [];
  const shared = R.order.filter((pe) => L.items.has(pe));
  let next = shared.shift();
  let lI = 0;
  let rI = 0;
  while (lI < L.order.length || rI < R.order.length) {
    if (lI < L.order.length && rI < R.order.length) {
      const pe = L.order[lI];
      if (pe === R.order[rI]) {
        out.push(merge(L.items.get(pe), R.items.get(pe), t.element));
        lI++;
        rI++;
        next = shared.shift();
        continue;
      }
      // A shared item that is not the next shared one in the configuration's order: it is emitted when the configuration reaches it.
      if (R.items.has(pe) && next !== undefined && next !== pe) {
        lI++;
        continue;
      }
    }
    if (lI < L.order.length && !R.items.has(L.order[lI])) {
      out.push(L.items.get(L.order[lI]));
      lI++;
      continue;
    }
    if (rI < R.order.length) {
      const pe = R.order[rI];
      out.push(merge(L.items.get(pe), R.items.get(pe), t.element));
      rI++;
      if (next === pe) next = shared.shift();
    } else {
      // Only shared items remain on the live side, all of them already emitted.
      lI++;
    }
  }
  return out;
}

// ---- removal -------------------------------------------------------------------------------

/** The value without the members of `set` (a member removes its whole subtree). */
export function removeItems(value: unknown, set: FieldSet, t: TypeNode): unknown {
  if (set.empty()) return value;
  if (t.kind === "list" && t.listType !== "atomic" && Array.isArray(value)) {
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const node = set.children.get(itemElement(t, item, i));
      if (!node) out.push(item);
      else if (!node.member) out.push(removeItems(item, node, t.element));
    });
    return out;
  }
  if (!isObject(value) || (t.kind !== "struct" && t.kind !== "map" && t.kind !== "deduced")) return value;
  const out: JSONObject = {};
  for (const [k, v] of Object.entries(value)) {
    const node = set.children.get(`f:${k}`);
    if (!node) out[k] = v;
    else if (!node.member) out[k] = removeItems(v, node, fieldType(t, k).type);
  }
  return out;
}
