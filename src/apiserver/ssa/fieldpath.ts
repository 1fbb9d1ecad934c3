/**
 * Field paths and field sets (structured-merge-diff's fieldpath package), in the FieldsV1
 * form managedFields carry.
 *
 * A path element is one of: a field name (`f:spec`), the key of an associative-list item
 * (`k:{"name":"web"}`, key fields sorted by name), the value of a set item (`v:"foo"`), or a
 * list index (`i:3`). The FieldsV1 string of an element is its canonical identity: two
 * elements are the same iff their strings are equal.
 *
 * A FieldSet is a trie over those strings. Invariant: every node other than the root is either
 * a member (the path itself is in the set) or has at least one child — empty non-members are
 * pruned by every operation. In FieldsV1, a member with children is written `".": {}` beside
 * its children; a member without children is `{}`.
 */

export type PathElement =
  | { readonly field: string }
  | { readonly key: Readonly<Record<string, unknown>> }
  | { readonly value: unknown }
  | { readonly index: number };

/** JSON with object keys sorted, as Go's encoder writes map keys. */
export function canonicalJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJSON(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/** The FieldsV1 string of a path element. */
export function elementKey(pe: PathElement): string {
  if ("field" in pe) return `f:${pe.field}`;
  if ("key" in pe) return `k:${canonicalJSON(pe.key)}`;
  if ("value" in pe) return `v:${canonicalJSON(pe.value)}`;
  return `i:${pe.index}`;
}

/** Parses a FieldsV1 element string. Throws on anything else. */
export function parseElementKey(s: string): PathElement {
  const body = s.slice(2);
  switch (s.slice(0, 2)) {
    case "f:":
      return { field: body };
    case "k:": {
      const key = JSON.parse(body) as unknown;
      if (key === null || typeof key !== "object" || Array.isArray(key)) throw new Error(`invalid key element ${s}`);
      return { key: key as Record<string, unknown> };
    }
    case "v:":
      return { value: JSON.parse(body) as unknown };
    case "i:": {
      const n = Number(body);
      if (!Number.isInteger(n) || n < 0) throw new Error(`invalid index element ${s}`);
      return { index: n };
    }
    default:
      throw new Error(`invalid path element ${JSON.stringify(s)}`);
  }
}

/** The human form used in conflict messages: `.spec.replicas`, `[name="web"]`, `[="a"]`, `[0]`. */
export function elementString(key: string): string {
  const pe = parseElementKey(key);
  if ("field" in pe) return `.${pe.field}`;
  if ("key" in pe) {
    const k = pe.key;
    return `[${Object.keys(k)
      .sort()
      .map((f) => `${f}=${canonicalJSON(k[f])}`)
      .join(",")}]`;
  }
  if ("value" in pe) return `[=${canonicalJSON(pe.value)}]`;
  return `[${pe.index}]`;
}

export function pathString(path: readonly string[]): string {
  return path.map(elementString).join("");
}

/** The rank of an element's kind: f: 0, k: 1, v: 2, i: 3, anything else 9 (read without slicing). */
function kindRank(s: string): number {
  if (s.length < 2 || s.charCodeAt(1) !== 0x3a /* : */) return 9;
  switch (s.charCodeAt(0)) {
    case 0x66 /* f */:
      return 0;
    case 0x6b /* k */:
      return 1;
    case 0x76 /* v */:
      return 2;
    case 0x69 /* i */:
      return 3;
    default:
      return 9;
  }
}

/** Element order for iteration: fields, then keys, values, indexes; then by text (indexes numerically). */
export function compareElementKeys(a: string, b: string): number {
  const ra = kindRank(a);
  const rb = kindRank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 3) return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

export class FieldSet {
  /** Whether the path leading to this node is itself in the set (ignored at the root). */
  member = false;
  readonly children = new Map<string, FieldSet>();

  /** The node for `key`, created if absent. */
  child(key: string): FieldSet {
    let c = this.children.get(key);
    if (!c) this.children.set(key, (c = new FieldSet()));
    return c;
  }

  static of(...paths: ReadonlyArray<readonly string[]>): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: readonly string[]): void {
    if (path.length === 0) return;
    // A loop, not recursion on the rest of the path: this runs for every leaf of every write.
    let n = this.child(path[0]);
    for (let i = 1; i < path.length; i++) n = n.child(path[i]);
    n.member = true;
  }

  has(path: readonly string[]): boolean {
    const n = this.at(path);
    return path.length > 0 && n !== undefined && n.member;
  }

  /** The node at a path (undefined when nothing at or below it is in the set). */
  at(path: readonly string[]): FieldSet | undefined {
    if (path.length === 0) return this;
    let n = this.children.get(path[0]);
    for (let i = 1; i < path.length && n; i++) n = n.children.get(path[i]);
    return n;
  }

  empty(): boolean {
    return this.children.size === 0;
  }

  clone(): FieldSet {
    const c = new FieldSet();
    c.member = this.member;
    for (const [k, v] of this.children) c.children.set(k, v.clone());
    return c;
  }

  union(other: FieldSet): FieldSet {
    const out = this.clone();
    const merge = (into: FieldSet, from: FieldSet) => {
      into.member ||= from.member;
      for (const [k, v] of from.children) merge(into.child(k), v);
    };
    for (const [k, v] of other.children) merge(out.child(k), v);
    return out;
  }

  /** Members of this set that are not members of `other` (children are compared recursively). */
  difference(other: FieldSet): FieldSet {
    const walk = (a: FieldSet, b: FieldSet | undefined): FieldSet | undefined => {
      const out = new FieldSet();
      out.member = a.member && !b?.member;
      for (const [k, v] of a.children) {
        const c = walk(v, b?.children.get(k));
        if (c) out.children.set(k, c);
      }
      return out.member || out.children.size > 0 ? out : undefined;
    };
    const out = new FieldSet();
    for (const [k, v] of this.children) {
      const c = walk(v, other.children.get(k));
      if (c) out.children.set(k, c);
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const walk = (a: FieldSet, b: FieldSet): FieldSet | undefined => {
      const out = new FieldSet();
      out.member = a.member && b.member;
      for (const [k, v] of a.children) {
        const w = b.children.get(k);
        if (!w) continue;
        const c = walk(v, w);
        if (c) out.children.set(k, c);
      }
      return out.member || out.children.size > 0 ? out : undefined;
    };
    const out = new FieldSet();
    for (const [k, v] of this.children) {
      const w = other.children.get(k);
      if (!w) continue;
      const c = walk(v, w);
      if (c) out.children.set(k, c);
    }
    return out;
  }

  /** Removes every path under the top-level element `key` (e.g. "f:status"). */
  without(key: string): FieldSet {
    const out = this.clone();
    out.children.delete(key);
    return out;
  }

  equals(other: FieldSet): boolean {
    if (this.member !== other.member || this.children.size !== other.children.size) return false;
    for (const [k, v] of this.children) {
      const w = other.children.get(k);
      if (!w || !v.equals(w)) return false;
    }
    return true;
  }

  /** Every member path: at each level the members first, then the subtrees, each in element order. */
  paths(): string[][] {
    const out: string[][] = [];
    const walk = (n: FieldSet, prefix: string[]) => {
      const keys = [...n.children.keys()].sort(compareElementKeys);
      for (const k of keys) if (n.children.get(k)!.member) out.push([...prefix, k]);
      for (const k of keys) {
        const c = n.children.get(k)!;
        if (c.children.size > 0) walk(c, [...prefix, k]);
      }
    };
    walk(this, []);
    return out;
  }

  /** The FieldsV1 object. */
  toFieldsV1(): Record<string, unknown> {
    const enc = (n: FieldSet): Record<string, unknown> => {
      const o: Record<string, unknown> = {};
      if (n.member && n.children.size > 0) o["."] = {};
      for (const k of [...n.children.keys()].sort(compareElementKeys)) o[k] = enc(n.children.get(k)!);
      return o;
    };
    const root: Record<string, unknown> = {};
    for (const k of [...this.children.keys()].sort(compareElementKeys)) root[k] = enc(this.children.get(k)!);
    return root;
  }

  /** Parses a FieldsV1 object; throws on malformed input. */
  static fromFieldsV1(v: unknown): FieldSet {
    const dec = (o: unknown, n: FieldSet, root: boolean) => {
      if (o === null || typeof o !== "object" || Array.isArray(o)) throw new Error("FieldsV1 nodes must be objects");
      const entries = Object.entries(o as Record<string, unknown>);
      if (!root && entries.length === 0) n.member = true;
      for (const [k, child] of entries) {
        if (k === ".") {
          if (root) throw new Error(`"." at the root of FieldsV1`);
          n.member = true;
          continue;
        }
        // A field element is already canonical (parsing and re-encoding it gives it back).
        dec(child, n.child(k.startsWith("f:") ? k : elementKey(parseElementKey(k))), false);
      }
    };
    const s = new FieldSet();
    dec(v, s, true);
    return s;
  }
}
