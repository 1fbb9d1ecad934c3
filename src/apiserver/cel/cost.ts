/**
 * CEL cost: the static estimate (cel-go checker/cost.go, with Kubernetes' library
 * CostEstimator from k8s.io/apiserver/pkg/cel/library/cost.go layered on top) and the runtime
 * price of a function call (cel-go interpreter/runtimecost.go's defaults under the same
 * Kubernetes estimator). The estimate walks the macro-expanded tree the way upstream does, so
 * a CRD rule accepted by kube-apiserver gets the same worst case here; the sizes of `self`'s
 * lists, maps and strings come from a SizeEstimator (maxItems/maxProperties/maxLength).
 *
 * Costs are unsigned 64-bit in cel-go and saturate; here they are doubles saturating at
 * 2^64-1 (MAX), exact for every figure below 2^53.
 */
import { ACCUMULATOR, type Expr } from "./ast.js";
import type { CheckedAst } from "./checker.js";
import { isOptionalType, T, type CelType } from "./types.js";
import { CelObject, ExtensionValue, sizeOf, type Val } from "./values.js";

/** 2^64 - 1 as a double (which rounds it to 2^64). */
export const MAX = 2 ** 64;
export const STRING_TRAVERSAL_COST_FACTOR = 0.1;
export const REGEX_STRING_LENGTH_COST_FACTOR = 0.25;
export const SELECT_AND_IDENT_COST = 1;
export const CONST_COST = 0;
export const LIST_CREATE_BASE_COST = 10;
export const MAP_CREATE_BASE_COST = 30;
export const STRUCT_CREATE_BASE_COST = 40;
/** k8s.io/apiserver/pkg/cel MaxNameFormatRegexSize. */
export const MAX_NAME_FORMAT_REGEX_SIZE = 128;
/** k8s.io/apiserver/pkg/cel MaxFormatSize. */
export const MAX_FORMAT_SIZE = 64;

export interface Range {
  min: number;
  max: number;
}

const sat = (x: number) => (x >= MAX ? MAX : x);
const add = (a: Range, b: Range): Range => ({ min: sat(a.min + b.min), max: sat(a.max + b.max) });
const mul = (a: Range, b: Range): Range => ({ min: mulU(a.min, b.min), max: mulU(a.max, b.max) });
function mulU(x: number, y: number): number {
  if (y !== 0 && x > MAX / y) return MAX;
  return sat(x * y);
}
function factorU(x: number, f: number): number {
  if (x > 0 && f > 0 && x > MAX / f) return MAX;
  const c = Math.ceil(x * f);
  return c >= MAX ? MAX : c;
}
const byFactor = (a: Range, f: number): Range => ({ min: factorU(a.min, f), max: factorU(a.max, f) });
const union = (a: Range, b: Range): Range => ({ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) });
const fixed = (n: number): Range => ({ min: n, max: n });
const UNKNOWN: Range = { min: 0, max: MAX };

/** A node as size estimators see it: its path from a variable (self.spec.items.@items) and type. */
export interface AstNode {
  path: readonly string[] | undefined;
  type: CelType;
  expr?: Expr;
  computedSize?: Range;
}

/** Supplies worst-case sizes of variables' parts (checker.CostEstimator.EstimateSize). */
export interface SizeEstimator {
  estimateSize(node: AstNode): Range | undefined;
}

interface EntrySize {
  container: "list" | "map" | "unknown";
  key: Range;
  val: Range;
}

interface LocalVar {
  path: readonly string[];
  size?: Range;
  entry?: EntrySize;
}

/** cel-go checker.Cost with presence tests free (PresenceTestHasCost(false), as Kubernetes sets). */
export function estimateCost(ast: CheckedAst, sizes: SizeEstimator | undefined): Range {
  return new Coster(ast, sizes).cost(ast.expr);
}

class Coster {
  private readonly paths = new Map<number, readonly string[]>();
  private readonly sizes = new Map<number, Range>();
  private readonly entrySizes = new Map<number, EntrySize>();
  private readonly locals = new Map<string, LocalVar[]>();

  constructor(
    private readonly ast: CheckedAst,
    private readonly estimator: SizeEstimator | undefined,
  ) {}

  private type(e: Expr): CelType {
    return this.ast.types.get(e.id) ?? T.dyn;
  }

  private peek(name: string): LocalVar | undefined {
    const s = this.locals.get(name);
    return s && s.length ? s[s.length - 1] : undefined;
  }

  private push(name: string, v: LocalVar): void {
    const s = this.locals.get(name) ?? [];
    s.push(v);
    this.locals.set(name, s);
  }

  private pop(name: string): void {
    this.locals.get(name)?.pop();
  }

  private path(e: Expr): readonly string[] {
    if (e.kind === "ident") {
      const v = this.peek(e.name);
      if (v) return v.path;
    }
    return this.paths.get(e.id) ?? [];
  }

  node(e: Expr): AstNode {
    let path: readonly string[] | undefined = this.path(e);
    if (path.length > 0 && (path[0] === ACCUMULATOR || path[0] === "@__result__")) path = undefined;
    return { path, type: this.type(e), expr: e, computedSize: this.computeSize(e) };
  }

  private exprSize(e: Expr): Range | undefined {
    if (e.kind === "const") {
      const v = e.value;
      if (typeof v === "string") return fixed([...v].length);
      if (v instanceof Uint8Array) return fixed(v.length);
      if (v === null || typeof v === "boolean" || typeof v === "number" || typeof v === "bigint" || typeof v === "object") return fixed(1);
      return undefined;
    }
    if (e.kind === "list") return fixed(e.elems.length);
    if (e.kind === "map") return fixed(e.entries.length);
    return undefined;
  }

  computeSize(e: Expr): Range | undefined {
    const known = this.sizes.get(e.id);
    if (known) return known;
    const es = this.exprSize(e);
    if (es) return es;
    if (this.estimator) {
      const s = this.estimator.estimateSize({ path: this.path(e), type: this.type(e), expr: e });
      if (s) {
        this.sizes.set(e.id, s);
        return s;
      }
    }
    const ts = typeSize(this.type(e));
    if (ts) return ts;
    if (e.kind === "ident") {
      const v = this.peek(e.name);
      if (v?.size) return v.size;
    }
    return undefined;
  }

  private sizeOrUnknown(e: Expr | AstNode): Range {
    if ("kind" in e) return this.computeSize(e) ?? UNKNOWN;
    return e.computedSize ?? UNKNOWN;
  }

  private entrySize(e: Expr): EntrySize | undefined {
    const s = this.entrySizes.get(e.id);
    if (s) return s;
    if (e.kind === "ident") return this.peek(e.name)?.entry;
    return undefined;
  }

  cost(e: Expr): Range {
    switch (e.kind) {
      case "const":
        return fixed(0);
      case "ident":
        this.paths.set(e.id, this.peek(e.name)?.path ?? [e.name]);
        return fixed(SELECT_AND_IDENT_COST);
      case "select":
        return this.costSelect(e);
      case "call":
        return this.costCall(e);
      case "list": {
        let sum = fixed(0);
        let item: Range = { min: e.elems.length === 0 ? 0 : MAX, max: 0 };
        for (const x of e.elems) {
          sum = add(sum, this.cost(x));
          item = union(item, this.sizeOrUnknown(x));
        }
        this.entrySizes.set(e.id, { container: "list", key: fixed(1), val: item });
        return add(sum, fixed(LIST_CREATE_BASE_COST));
      }
      case "map": {
        let sum = fixed(0);
        let k: Range = { min: e.entries.length === 0 ? 0 : MAX, max: 0 };
        let v: Range = { min: e.entries.length === 0 ? 0 : MAX, max: 0 };
        for (const en of e.entries) {
          sum = add(sum, this.cost(en.key));
          sum = add(sum, this.cost(en.value));
          k = union(k, this.sizeOrUnknown(en.key));
          v = union(v, this.sizeOrUnknown(en.value));
        }
        this.entrySizes.set(e.id, { container: "map", key: k, val: v });
        return add(sum, fixed(MAP_CREATE_BASE_COST));
      }
      case "struct": {
        let sum = fixed(0);
        for (const f of e.fields) sum = add(sum, this.cost(f.value));
        return add(sum, fixed(STRUCT_CREATE_BASE_COST));
      }
      case "comprehension":
        return this.isBind(e) ? this.costBind(e) : this.costComprehension(e);
    }
  }

  private costSelect(e: Extract<Expr, { kind: "select" }>): Range {
    if (this.ast.typeIdents.has(e.id)) return fixed(0);
    if (e.testOnly) return this.cost(e.operand);
    let sum = this.cost(e.operand);
    const t = this.type(e.operand);
    if (t.kind === "map" || t.kind === "object" || t.kind === "param") sum = add(sum, fixed(SELECT_AND_IDENT_COST));
    this.paths.set(e.id, [...this.path(e.operand), e.field]);
    return sum;
  }

  private costCall(e: Extract<Expr, { kind: "call" }>): Range {
    if (e.fn === "dyn" && e.args.length === 1) {
      const c = this.cost(e.args[0]);
      const s = this.computeSize(e.args[0]);
      if (s) this.sizes.set(e.id, s);
      const en = this.entrySize(e.args[0]);
      if (en) this.entrySizes.set(e.id, en);
      return add(fixed(1), c);
    }
    const argCosts = e.args.map((a) => this.cost(a));
    const argNodes = e.args.map((a) => this.node(a));
    const overloads = this.ast.overloads.get(e.id) ?? [];
    if (overloads.length === 0) return fixed(0);
    let sum = fixed(0);
    let target: AstNode | undefined;
    if (e.target) {
      sum = add(sum, this.cost(e.target));
      target = this.node(e.target);
    }
    let fnCost: Range = { min: MAX, max: 0 };
    let resultSize: Range | undefined;
    for (const o of overloads) {
      const est = this.functionCost(e, e.fn, o.id, target, argNodes, argCosts);
      fnCost = union(fnCost, est.cost);
      if (est.resultSize) resultSize = resultSize ? union(resultSize, est.resultSize) : est.resultSize;
      if (o.id === "index_list" && e.args.length > 0) {
        resultSize = this.entrySize(e.args[0])?.val;
        this.paths.set(e.id, [...this.path(e.args[0]), "@items"]);
      } else if (o.id === "index_map" && e.args.length > 0) {
        resultSize = this.entrySize(e.args[0])?.val;
        this.paths.set(e.id, [...this.path(e.args[0]), "@values"]);
      }
      if (!resultSize) resultSize = this.computeSize(e);
    }
    if (resultSize) this.sizes.set(e.id, resultSize);
    return add(sum, fnCost);
  }

  private isBind(e: Extract<Expr, { kind: "comprehension" }>): boolean {
    return (
      e.iterRange.kind === "list" &&
      e.iterRange.elems.length === 0 &&
      e.loopCondition.kind === "const" &&
      e.loopCondition.value === false &&
      e.accuVar !== ACCUMULATOR
    );
  }

  private costBind(e: Extract<Expr, { kind: "comprehension" }>): Range {
    let sum = this.cost(e.iterRange);
    sum = add(sum, this.cost(e.accuInit));
    this.push(e.accuVar, { path: this.path(e.accuInit), size: this.computeSize(e.accuInit), entry: this.entrySize(e.accuInit) });
    sum = add(sum, this.cost(e.result));
    this.pop(e.accuVar);
    const s = this.computeSize(e.result);
    if (s) this.sizes.set(e.id, s);
    const en = this.entrySize(e.result);
    if (en) this.entrySizes.set(e.id, en);
    return sum;
  }

  private rangeContainer(range: Expr): "list" | "map" | "unknown" {
    const en = this.entrySize(range);
    if (en && en.container !== "unknown") return en.container;
    const t = this.type(range);
    return t.kind === "list" ? "list" : t.kind === "map" ? "map" : "unknown";
  }

  private costComprehension(e: Extract<Expr, { kind: "comprehension" }>): Range {
    let sum = this.cost(e.iterRange);
    sum = add(sum, this.cost(e.accuInit));
    this.push(e.accuVar, { path: this.path(e.accuInit), size: this.computeSize(e.accuInit), entry: this.entrySize(e.accuInit) });
    const en = this.entrySize(e.iterRange);
    const rpath = this.path(e.iterRange);
    const container = this.rangeContainer(e.iterRange);
    if (e.iterVar2 !== undefined) {
      this.push(e.iterVar, { path: [...rpath, container === "list" ? "@indices" : "@keys"], size: en?.key });
      this.push(e.iterVar2, { path: [...rpath, container === "list" ? "@items" : "@values"], size: en?.val });
    } else if (container === "list") {
      this.push(e.iterVar, { path: [...rpath, "@items"], size: en?.val });
    } else {
      this.push(e.iterVar, { path: [...rpath, "@keys"], size: en?.key });
    }
    const loop = this.cost(e.loopCondition);
    const step = this.cost(e.loopStep);
    this.pop(e.iterVar);
    if (e.iterVar2 !== undefined) this.pop(e.iterVar2);
    sum = add(sum, this.cost(e.result));
    this.pop(e.accuVar);
    const count = this.sizeOrUnknown(e.iterRange);
    sum = add(sum, mul(count, add(step, loop)));
    switch (e.accuInit.kind) {
      case "const": {
        const s = this.computeSize(e.accuInit);
        if (s) this.sizes.set(e.id, s);
        break;
      }
      case "list":
      case "map": {
        this.sizes.set(e.id, count);
        const se = this.entrySize(e.loopStep);
        if (se) this.entrySizes.set(e.id, se);
        break;
      }
      default:
        break;
    }
    return sum;
  }

  private functionCost(
    e: Extract<Expr, { kind: "call" }>,
    fn: string,
    overloadId: string,
    target: AstNode | undefined,
    args: AstNode[],
    argCosts: Range[],
  ): { cost: Range; resultSize?: Range } {
    const argSum = () => argCosts.reduce((s, c) => add(s, c), fixed(0));
    const k8s = kubernetesEstimate(fn, overloadId, target, args, this.estimator);
    if (k8s) return { cost: add(k8s.cost, argSum()), resultSize: k8s.resultSize };
    switch (overloadId) {
      case "string_format":
        if (target) return { cost: add(byFactor(this.sizeOrUnknown(target), STRING_TRAVERSAL_COST_FACTOR), argSum()) };
        break;
      case "string_to_bytes":
        if (args.length === 1) {
          const sz = this.sizeOrUnknown(args[0]);
          return { cost: add(byFactor(sz, STRING_TRAVERSAL_COST_FACTOR), argSum()), resultSize: { min: sz.min, max: mulU(sz.max, 4) } };
        }
        break;
      case "bytes_to_string":
        if (args.length === 1) {
          const sz = this.sizeOrUnknown(args[0]);
          return { cost: add(byFactor(sz, STRING_TRAVERSAL_COST_FACTOR), argSum()), resultSize: { min: Math.floor(sz.min / 4), max: sz.max } };
        }
        break;
      case "strings_quote":
        if (args.length === 1) {
          const sz = this.sizeOrUnknown(args[0]);
          return { cost: add(byFactor(sz, STRING_TRAVERSAL_COST_FACTOR), argSum()), resultSize: { min: sat(sz.min + 2), max: sat(mulU(sz.max, 2) + 2) } };
        }
        break;
      case "starts_with_string":
      case "ends_with_string":
        if (args.length === 1) return { cost: add(byFactor(this.sizeOrUnknown(args[0]), STRING_TRAVERSAL_COST_FACTOR), argSum()) };
        break;
      case "in_list":
        if (args.length === 2) return { cost: add(byFactor(this.sizeOrUnknown(args[1]), 1), argSum()) };
        break;
      case "matches_string":
        if (target && args.length === 1) {
          const strCost = byFactor(add(this.sizeOrUnknown(target), fixed(1)), STRING_TRAVERSAL_COST_FACTOR);
          const reCost = byFactor(this.sizeOrUnknown(args[0]), REGEX_STRING_LENGTH_COST_FACTOR);
          return { cost: add(mul(strCost, reCost), argSum()) };
        }
        break;
      case "contains_string":
        if (target && args.length === 1) {
          const strCost = byFactor(this.sizeOrUnknown(target), STRING_TRAVERSAL_COST_FACTOR);
          const subCost = byFactor(this.sizeOrUnknown(args[0]), STRING_TRAVERSAL_COST_FACTOR);
          return { cost: add(mul(strCost, subCost), argSum()) };
        }
        break;
      case "logical_or":
      case "logical_and": {
        const [l, r] = argCosts;
        return { cost: { min: l.min, max: add(l, r).max } };
      }
      case "conditional": {
        const size = union(this.sizeOrUnknown(args[1]), this.sizeOrUnknown(args[2]));
        const a = this.entrySize(e.args[1]);
        const b = this.entrySize(e.args[2]);
        if (a && b) this.entrySizes.set(e.id, { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) });
        return { cost: add(argCosts[0], union(argCosts[1], argCosts[2])), resultSize: size };
      }
      case "add_string":
      case "add_bytes":
      case "add_list":
        if (args.length === 2) {
          const resultSize = add(this.sizeOrUnknown(args[0]), this.sizeOrUnknown(args[1]));
          const a = this.entrySize(e.args[0]);
          const b = this.entrySize(e.args[1]);
          if (a && b) this.entrySizes.set(e.id, { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) });
          if (overloadId === "add_list") return { cost: add(fixed(1), argSum()), resultSize };
          return { cost: add(byFactor(resultSize, STRING_TRAVERSAL_COST_FACTOR), argSum()), resultSize };
        }
        break;
      case "less_string":
      case "greater_string":
      case "less_equals_string":
      case "greater_equals_string":
      case "less_bytes":
      case "greater_bytes":
      case "less_equals_bytes":
      case "greater_equals_bytes":
      case "equals":
      case "not_equals": {
        const l = this.sizeOrUnknown(args[0]);
        const r = this.sizeOrUnknown(args[1]);
        const smallestMax = Math.min(l.max, r.max);
        return { cost: add(byFactor({ min: smallestMax > 0 ? 1 : 0, max: smallestMax }, STRING_TRAVERSAL_COST_FACTOR), argSum()) };
      }
      default:
        break;
    }
    return { cost: add(fixed(1), argSum()) };
  }
}

function typeSize(t: CelType): Range | undefined {
  return isScalar(t) ? fixed(1) : undefined;
}

function isScalar(t: CelType): boolean {
  switch (t.kind) {
    case "bool":
    case "double":
    case "duration":
    case "int":
    case "timestamp":
    case "uint":
      return true;
    case "opaque":
      return isOptionalType(t) ? isScalar(t.params[0]) : false;
    default:
      return false;
  }
}

function sizeEstimateOf(n: AstNode, est: SizeEstimator | undefined): Range {
  if (n.computedSize) return n.computedSize;
  return est?.estimateSize(n) ?? UNKNOWN;
}

function listElementNode(list: AstNode): AstNode | undefined {
  const t = list.type;
  const elem = t.kind === "list" ? t.elem : t.kind === "map" ? t.key : undefined;
  if (!elem) return undefined;
  return { path: list.path ? [...list.path, "@items"] : undefined, type: elem };
}

const nominal = new Set([
  "sign",
  "asInteger",
  "isInteger",
  "asApproximateFloat",
  "isGreaterThan",
  "isLessThan",
  "compareTo",
  "add",
  "sub",
  "major",
  "minor",
  "patch",
  "getScheme",
  "getHostname",
  "getHost",
  "getPort",
  "getEscapedPath",
  "getQuery",
  "masked",
  "prefixLength",
  "family",
  "isUnspecified",
  "isLoopback",
  "isLinkLocalMulticast",
  "isLinkLocalUnicast",
  "isGlobalUnicast",
  "format.named",
  "serviceAccount",
  "path",
  "group",
  "resource",
  "subresource",
  "namespace",
  "name",
  "allowed",
  "reason",
  "error",
  "errored",
]);

/** Kubernetes' library.CostEstimator.EstimateCallCost. */
function kubernetesEstimate(
  fn: string,
  overloadId: string,
  target: AstNode | undefined,
  args: AstNode[],
  est: SizeEstimator | undefined,
): { cost: Range; resultSize?: Range } | undefined {
  const size = (n: AstNode) => sizeEstimateOf(n, est);
  if (fn === "check") return { cost: fixed(350000) };
  if (nominal.has(fn)) return { cost: fixed(1) };
  switch (fn) {
    case "isSorted":
    case "sum":
    case "max":
    case "min":
    case "indexOf":
    case "lastIndexOf":
      if (target) {
        let elCost = fixed(1);
        const el = target.type.kind === "list" ? listElementNode(target) : undefined;
        if (el) {
          if (el.type.kind === "string" || el.type.kind === "bytes") elCost = add(elCost, byFactor(size(el), STRING_TRAVERSAL_COST_FACTOR));
          const s = size(target);
          return { cost: { min: mulU(s.min, elCost.min), max: mulU(s.max, elCost.max) } };
        }
        return { cost: byFactor(size(target), STRING_TRAVERSAL_COST_FACTOR) };
      }
      break;
    case "url":
    case "jsonpatch.escapeKey":
      if (args.length === 1) {
        const sz = size(args[0]);
        return { cost: byFactor(sz, STRING_TRAVERSAL_COST_FACTOR), resultSize: sz };
      }
      break;
    case "lowerAscii":
    case "upperAscii":
    case "substring":
    case "trim":
      if (target) {
        const sz = size(target);
        return { cost: byFactor(sz, STRING_TRAVERSAL_COST_FACTOR), resultSize: sz };
      }
      break;
    case "replace":
      if (target && args.length >= 2) return replaceEstimate(size(target), size(args[0]), size(args[1]));
      break;
    case "split":
      if (target) {
        const sz = size(target);
        let max = sz.max;
        const lim = args[1]?.expr;
        if (lim && lim.kind === "const" && typeof lim.value === "bigint") max = Number(lim.value);
        return { cost: byFactor(sz, 2 * STRING_TRAVERSAL_COST_FACTOR), resultSize: { min: 0, max } };
      }
      break;
    case "join":
      if (target) {
        let sz: Range = fixed(0);
        const listSize = size(target);
        const el = listElementNode(target);
        if (el) sz = mul(listSize, size(el));
        if (args.length > 0) {
          const sep = size(args[0]);
          sz = add(sz, mul(sep, { min: listSize.min > 0 ? listSize.min - 1 : 0, max: listSize.max > 0 ? listSize.max - 1 : 0 }));
        }
        return { cost: byFactor(sz, STRING_TRAVERSAL_COST_FACTOR), resultSize: sz };
      }
      break;
    case "find":
    case "findAll":
      if (target && args.length >= 1) {
        const sz = size(target);
        const strCost = byFactor(add(sz, fixed(1)), STRING_TRAVERSAL_COST_FACTOR);
        const reCost = byFactor(size(args[0]), REGEX_STRING_LENGTH_COST_FACTOR);
        return { cost: mul(strCost, reCost), resultSize: { min: 0, max: sz.max } };
      }
      break;
    case "cidr":
    case "isIP":
    case "isCIDR":
      if (target) return { cost: byFactor(size(args[0]), STRING_TRAVERSAL_COST_FACTOR) };
      break;
    case "ip":
      if (target && args.length >= 1) {
        if (overloadId === "cidr_ip") return { cost: fixed(1) };
        return { cost: byFactor(size(args[0]), STRING_TRAVERSAL_COST_FACTOR) };
      }
      if (target) return { cost: fixed(1) };
      break;
    case "ip.isCanonical":
      if (target && args.length >= 1) return { cost: byFactor(size(args[0]), 2 * STRING_TRAVERSAL_COST_FACTOR) };
      break;
    case "containsIP":
    case "containsCIDR":
      if (target && args.length >= 1) {
        const sz: Range = { min: 4, max: 16 };
        let c = byFactor(add(sz, sz), STRING_TRAVERSAL_COST_FACTOR);
        if (fn === "containsCIDR") {
          c = add(c, byFactor(sz, STRING_TRAVERSAL_COST_FACTOR));
          c = add(c, fixed(1));
        }
        if (overloadId === "cidr_contains_ip_string" || overloadId === "cidr_contains_cidr_string") {
          c = add(c, byFactor(size(args[0]), STRING_TRAVERSAL_COST_FACTOR));
        }
        return { cost: c };
      }
      break;
    case "quantity":
    case "isQuantity":
    case "semver":
    case "isSemver":
      if (target) return { cost: byFactor(size(args[0]), STRING_TRAVERSAL_COST_FACTOR) };
      break;
    case "validate":
      if (target) return { cost: byFactor(byFactor(size(args[0]), STRING_TRAVERSAL_COST_FACTOR), MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH_COST_FACTOR) };
      break;
    case "_==_":
      if (args.length === 2) {
        const l = args[0].type;
        const r = args[1].type;
        if ((l.kind === "opaque" || l.kind === "object") && r.kind === l.kind && (l as { name: string }).name === (r as { name: string }).name) {
          const name = (l as { name: string }).name;
          if (name === "net.IP" || name === "net.CIDR" || name === "kubernetes.Quantity" || name === "kubernetes.Semver" || name.startsWith("kubernetes.authorization.")) {
            return { cost: fixed(1) };
          }
          if (name === "kubernetes.NamedFormat") return { cost: byFactor({ min: 1, max: MAX_FORMAT_SIZE }, STRING_TRAVERSAL_COST_FACTOR) };
          if (name === "kubernetes.URL") {
            let sz: Range = fixed(1);
            const rs = args[1].computedSize;
            if (rs) sz = union(rs, rs);
            return { cost: byFactor({ min: 1, max: sz.max }, STRING_TRAVERSAL_COST_FACTOR) };
          }
        }
      }
      break;
    default:
      break;
  }
  return undefined;
}

function replaceEstimate(sz: Range, toReplace: Range, replaceWith: Range): { cost: Range; resultSize: Range } {
  const count: Range = { min: 0, max: 0 };
  const retained: Range = { min: 0, max: 0 };
  if (toReplace.min === 0) {
    count.max = sz.max < MAX ? sz.max + 1 : sz.max;
    retained.max = sz.max;
  } else if (replaceWith.max <= toReplace.min) {
    count.max = 0;
    retained.max = sz.max;
  } else count.max = Math.ceil(sz.max / toReplace.min);
  if (toReplace.max === 0) {
    count.min = sz.min < MAX ? sz.min + 1 : sz.min;
    retained.min = sz.min;
  } else if (toReplace.max <= replaceWith.min) {
    count.min = 0;
    retained.min = sz.min;
  } else count.min = Math.ceil(sz.min / toReplace.max);
  return { cost: byFactor(sz, 2 * STRING_TRAVERSAL_COST_FACTOR), resultSize: add(mul(count, replaceWith), retained) };
}

// ---- runtime --------------------------------------------------------------------------------

function actualSize(v: Val | undefined): number {
  if (v === undefined) return 1;
  const s = sizeOf(v);
  return s === undefined ? 1 : s;
}

function traversalCost(v: Val): number {
  if (typeof v === "string") return Math.floor(Buffer.byteLength(v) * STRING_TRAVERSAL_COST_FACTOR);
  if (v instanceof Uint8Array) return Math.floor(v.length * STRING_TRAVERSAL_COST_FACTOR);
  if (Array.isArray(v)) return v.reduce((s: number, x: Val) => s + traversalCost(x), 0);
  if (v && typeof v === "object" && "keys" in v && typeof (v as { keys: unknown }).keys === "function" && !(v instanceof CelObject)) {
    const m = v as unknown as { keys(): Val[]; get(k: Val): Val | undefined };
    let c = 0;
    for (const k of m.keys()) c += traversalCost(k) + traversalCost(m.get(k)!);
    return c;
  }
  return 1;
}

const ceilF = (n: number, f: number) => Math.ceil(n * f);

export type CallCostFn = (args: readonly Val[], result: Val) => number;

const one: CallCostFn = () => 1;
const coster = new Map<string, CallCostFn>();

/**
 * The runtime price of calls of one overload (library.CostEstimator.CallCost, then cel-go's
 * costCall), resolved once per call site or overload rather than per call.
 */
export function runtimeCallCoster(fn: string, overloadId: string): CallCostFn {
  const key = `${fn}\u0000${overloadId}`;
  let c = coster.get(key);
  if (!c) {
    c = makeCoster(fn, overloadId);
    coster.set(key, c);
  }
  return c;
}

/** The runtime price of one call (as runtimeCallCoster, for one-off use). */
export function runtimeCallCost(fn: string, overloadId: string, args: readonly Val[], result: Val): number {
  return runtimeCallCoster(fn, overloadId)(args, result);
}

const size1 = (f: number): CallCostFn => (args) => ceilF(actualSize(args[0]), f);

function makeCoster(fn: string, overloadId: string): CallCostFn {
  if (fn === "check") return () => 350000;
  if (nominal.has(fn)) return one;
  switch (fn) {
    case "isSorted":
    case "sum":
    case "max":
    case "min":
    case "indexOf":
    case "lastIndexOf":
      return (args) => (args.length > 0 ? traversalCost(args[0]) : 0);
    case "url":
    case "lowerAscii":
    case "upperAscii":
    case "substring":
    case "trim":
    case "jsonpatch.escapeKey":
    case "cidr":
    case "isIP":
    case "isCIDR":
    case "quantity":
    case "isQuantity":
    case "semver":
    case "isSemver":
      return size1(STRING_TRAVERSAL_COST_FACTOR);
    case "replace":
    case "split":
      return size1(2 * STRING_TRAVERSAL_COST_FACTOR);
    case "join":
      return (_args, result) => ceilF(actualSize(result), 2 * STRING_TRAVERSAL_COST_FACTOR);
    case "find":
    case "findAll":
      return (args) => ceilF(1 + actualSize(args[0]), STRING_TRAVERSAL_COST_FACTOR) * ceilF(actualSize(args[1]), REGEX_STRING_LENGTH_COST_FACTOR);
    case "ip":
      return overloadId === "cidr_ip" ? one : size1(STRING_TRAVERSAL_COST_FACTOR);
    case "ip.isCanonical":
      return size1(2 * STRING_TRAVERSAL_COST_FACTOR);
    case "containsIP":
    case "containsCIDR":
      return (args) => {
        const cidr = actualSize(args[0]);
        let c = ceilF(cidr + cidr, STRING_TRAVERSAL_COST_FACTOR);
        if (fn === "containsCIDR") c += ceilF(cidr, STRING_TRAVERSAL_COST_FACTOR) + 1;
        if (overloadId === "cidr_contains_ip_string" || overloadId === "cidr_contains_cidr_string") c += ceilF(actualSize(args[1]), STRING_TRAVERSAL_COST_FACTOR);
        return c;
      };
    case "validate":
      return (args) => ceilF(1 + actualSize(args[1]), STRING_TRAVERSAL_COST_FACTOR) * ceilF(MAX_NAME_FORMAT_REGEX_SIZE, REGEX_STRING_LENGTH_COST_FACTOR);
    default:
      break;
  }
  const base = defaultCoster(overloadId);
  if (fn === "_==_") return (args, result) => (args[0] instanceof ExtensionValue ? 1 : base(args, result));
  return base;
}

function defaultCoster(overloadId: string): CallCostFn {
  switch (overloadId) {
    case "starts_with_string":
    case "ends_with_string":
    case "string_to_bytes":
    case "bytes_to_string":
    case "strings_quote":
    case "string_format":
      return size1(STRING_TRAVERSAL_COST_FACTOR);
    case "in_list":
      return (args) => actualSize(args[1]);
    case "less_string":
    case "greater_string":
    case "less_equals_string":
    case "greater_equals_string":
    case "less_bytes":
    case "greater_bytes":
    case "less_equals_bytes":
    case "greater_equals_bytes":
    case "equals":
    case "not_equals":
      return (args) => ceilF(Math.min(actualSize(args[0]), actualSize(args[1])), STRING_TRAVERSAL_COST_FACTOR);
    case "add_string":
    case "add_bytes":
      return (args) => ceilF(actualSize(args[0]) + actualSize(args[1]), STRING_TRAVERSAL_COST_FACTOR);
    case "matches_string":
    case "matches":
      return (args) => ceilF(1 + actualSize(args[0]), STRING_TRAVERSAL_COST_FACTOR) * ceilF(actualSize(args[1]), REGEX_STRING_LENGTH_COST_FACTOR);
    case "contains_string":
      return (args) => ceilF(actualSize(args[0]), STRING_TRAVERSAL_COST_FACTOR) * ceilF(actualSize(args[1]), STRING_TRAVERSAL_COST_FACTOR);
    default:
      return one;
  }
}
