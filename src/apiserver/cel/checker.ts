/**
 * The CEL type checker (cel-go checker/checker.go): resolves identifiers, field selections and
 * overloads, infers a type for every node (type parameters unified and, at the end, unbound
 * ones turned into dyn) and records the overloads each call may dispatch to. Its messages are
 * cel-go's: "undeclared reference to 'x' (in container '')", "undefined field 'x'",
 * "found no matching overload for '_+_' applied to '(int, string)'",
 * "expected type 'bool' but found 'int'".
 */
import type { Expr } from "./ast.js";
import type { Overload } from "./decls.js";
import type { Issue } from "./source.js";
import {
  allAssignable,
  formatType,
  isAssignable,
  isDynOrError,
  isOptionalType,
  joinTypes,
  lessSpecific,
  substitute,
  T,
  typeEquals,
  type CelType,
  type Substitutions,
} from "./types.js";
import { CelDuration, CelTimestamp, CelUint, CelTypeValue, type Val } from "./values.js";

export interface CheckerEnv {
  variable(name: string): CelType | undefined;
  functions(name: string): readonly Overload[] | undefined;
  typeName(name: string): CelType | undefined;
  /** Whether list and map literals must be homogeneous (cel.HomogeneousAggregateLiterals). */
  readonly homogeneousLiterals: boolean;
  /** Type every literal and variable as dyn, deferring all type errors to runtime (disable_check). */
  readonly dynamic?: boolean;
  /** The type of a message construction `Name{...}` (MutatingAdmissionPolicy's Object{...}); undefined: unknown type. */
  structType?(name: string): CelType | undefined;
}

export interface CheckedAst {
  readonly expr: Expr;
  readonly types: ReadonlyMap<number, CelType>;
  /** The overload ids each call node may dispatch to, in declaration order. */
  readonly overloads: ReadonlyMap<number, readonly Overload[]>;
  /** Global variables the expression references. */
  readonly references: ReadonlySet<string>;
  /** Identifier nodes that resolve to a type name, with the type they denote. */
  readonly typeIdents: ReadonlyMap<number, CelType>;
  readonly resultType: CelType;
}

function literalType(v: Val): CelType {
  switch (typeof v) {
    case "bigint":
      return T.int;
    case "number":
      return T.double;
    case "boolean":
      return T.bool;
    case "string":
      return T.string;
  }
  if (v === null) return T.null;
  if (v instanceof CelUint) return T.uint;
  if (v instanceof Uint8Array) return T.bytes;
  if (v instanceof CelTimestamp) return T.timestamp;
  if (v instanceof CelDuration) return T.duration;
  if (v instanceof CelTypeValue) return T.type(v.type);
  return T.dyn;
}

/** The dotted name an ident/select chain spells, or undefined. */
export function qualifiedName(e: Expr): string | undefined {
  if (e.kind === "ident") return e.name;
  if (e.kind === "select" && !e.testOnly) {
    const q = qualifiedName(e.operand);
    return q === undefined ? undefined : `${q}.${e.field}`;
  }
  return undefined;
}

const paramCache = new WeakMap<Overload, boolean>();

function mentionsParam(t: CelType): boolean {
  switch (t.kind) {
    case "param":
      return true;
    case "list":
      return mentionsParam(t.elem);
    case "map":
      return mentionsParam(t.key) || mentionsParam(t.value);
    case "type":
      return t.param ? mentionsParam(t.param) : false;
    case "opaque":
      return t.params.some(mentionsParam);
    default:
      return false;
  }
}

/** Whether an overload's signature has type parameters (which need fresh names per use). */
function hasParams(o: Overload): boolean {
  let r = paramCache.get(o);
  if (r === undefined) {
    r = o.params.some(mentionsParam) || mentionsParam(o.result);
    paramCache.set(o, r);
  }
  return r;
}

export class Checker {
  readonly issues: Issue[] = [];
  private readonly types = new Map<number, CelType>();
  private readonly overloads = new Map<number, readonly Overload[]>();
  private readonly references = new Set<string>();
  private readonly typeIdents = new Map<number, CelType>();
  private readonly subs: Substitutions = new Map();
  private readonly scopes: Map<string, CelType>[] = [];
  private fresh = 0;
  /** Inside the arguments of a function exempt from homogeneous literals (strings' format). */
  private exempt = 0;

  constructor(private readonly env: CheckerEnv) {}

  check(expr: Expr): CheckedAst {
    this.visit(expr);
    const types = new Map<number, CelType>();
    for (const [id, t] of this.types) types.set(id, substitute(t, this.subs, true));
    return {
      expr,
      types,
      overloads: this.overloads,
      references: this.references,
      typeIdents: this.typeIdents,
      resultType: types.get(expr.id) ?? T.dyn,
    };
  }

  private error(e: { offset: number }, message: string): void {
    this.issues.push({ offset: e.offset, message });
  }

  private set(e: Expr, t: CelType): CelType {
    this.types.set(e.id, t);
    return t;
  }

  private typeOf(e: Expr): CelType {
    return substitute(this.types.get(e.id) ?? T.dyn, this.subs, false);
  }

  private lookupLocal(name: string): CelType | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const t = this.scopes[i].get(name);
      if (t) return t;
    }
    return undefined;
  }

  private freshParams(o: Overload): { params: readonly CelType[]; result: CelType } {
    if (!hasParams(o)) return { params: o.params, result: o.result };
    const names = new Map<string, CelType>();
    const n = this.fresh++;
    const rename = (t: CelType): CelType => {
      switch (t.kind) {
        case "param": {
          let r = names.get(t.name);
          if (!r) {
            r = T.param(`_${t.name}${n}`);
            names.set(t.name, r);
          }
          return r;
        }
        case "list":
          return T.list(rename(t.elem));
        case "map":
          return T.map(rename(t.key), rename(t.value));
        case "type":
          return t.param ? T.type(rename(t.param)) : t;
        case "opaque":
          return t.params.length ? { kind: "opaque", name: t.name, params: t.params.map(rename) } : t;
        default:
          return t;
      }
    };
    return { params: o.params.map(rename), result: rename(o.result) };
  }

  private visit(e: Expr): CelType {
    switch (e.kind) {
      case "const":
        return this.set(e, this.env.dynamic ? T.dyn : literalType(e.value));
      case "ident":
        return this.visitIdent(e);
      case "select":
        return this.visitSelect(e);
      case "call":
        return this.visitCall(e);
      case "list":
        return this.visitList(e);
      case "map":
        return this.visitMap(e);
      case "struct": {
        for (const f of e.fields) this.visit(f.value);
        const st = this.env.structType?.(e.typeName.startsWith(".") ? e.typeName.slice(1) : e.typeName);
        if (st) return this.set(e, st);
        this.error(e, `undeclared reference to '${e.typeName}' (in container '')`);
        return this.set(e, T.error);
      }
      case "comprehension":
        return this.visitComprehension(e);
    }
  }

  private visitIdent(e: Extract<Expr, { kind: "ident" }>): CelType {
    const name = e.name.startsWith(".") ? e.name.slice(1) : e.name;
    if (!e.name.startsWith(".")) {
      const local = this.lookupLocal(name);
      if (local) return this.set(e, local);
    }
    const v = this.env.variable(name);
    if (v) {
      this.references.add(name);
      return this.set(e, this.env.dynamic ? T.dyn : v);
    }
    const tn = this.env.typeName(name);
    if (tn) {
      this.typeIdents.set(e.id, tn);
      return this.set(e, T.type(tn));
    }
    if (this.env.dynamic) return this.set(e, T.dyn);
    this.error(e, `undeclared reference to '${name}' (in container '')`);
    return this.set(e, T.error);
  }

  /** A select chain that names a global variable or type (`a.b.c` declared as one name). */
  private resolveQualified(e: Extract<Expr, { kind: "select" }>): CelType | undefined {
    const q = qualifiedName(e);
    if (q === undefined) return undefined;
    const root = q.split(".")[0];
    if (this.lookupLocal(root) || this.env.variable(root)) return undefined;
    const v = this.env.variable(q);
    if (v) {
      this.references.add(q);
      return v;
    }
    const tn = this.env.typeName(q);
    if (tn) {
      this.typeIdents.set(e.id, tn);
      return T.type(tn);
    }
    return undefined;
  }

  private visitSelect(e: Extract<Expr, { kind: "select" }>): CelType {
    if (!e.testOnly) {
      const q = this.resolveQualified(e);
      if (q) return this.set(e, q);
    }
    const operand = this.visit(e.operand);
    let target = substitute(operand, this.subs, false);
    let isOpt = false;
    if (isOptionalType(target)) {
      isOpt = true;
      target = target.params[0];
    }
    const result = this.fieldType(e, target, e.field);
    if (e.testOnly) return this.set(e, T.bool);
    return this.set(e, isOpt ? T.optional(result) : result);
  }

  /** The type of `field` selected from a value of type `target` (reporting unknown fields). */
  private fieldType(at: Expr, target: CelType, field: string): CelType {
    switch (target.kind) {
      case "map":
        return target.value;
      case "object": {
        const f = target.fields?.field(field);
        if (!f) {
          this.error(at, `undefined field '${field}'`);
          return T.error;
        }
        return f;
      }
      case "param":
      case "dyn":
      case "error":
        return T.dyn;
      default:
        this.error(at, `type '${formatType(target)}' does not support field selection`);
        return T.error;
    }
  }

  /** `x.?f`: an optional of the field's type; an optional operand is unwrapped first. */
  private visitOptionalSelect(e: Extract<Expr, { kind: "call" }>): CelType {
    let target = substitute(this.visit(e.args[0]), this.subs, false);
    this.visit(e.args[1]);
    if (isOptionalType(target)) target = target.params[0];
    const f = e.args[1];
    const field = f.kind === "const" && typeof f.value === "string" ? f.value : "";
    const ft = this.fieldType(e, target, field);
    this.overloads.set(e.id, this.env.functions("_?._") ?? []);
    return this.set(e, T.optional(ft));
  }

  private visitCall(e: Extract<Expr, { kind: "call" }>): CelType {
    if (e.fn === "_?._" && e.args.length === 2 && !e.target) return this.visitOptionalSelect(e);
    // A member call on a qualified name that is not a variable may be a namespaced function.
    if (e.target) {
      const q = qualifiedName(e.target);
      if (q !== undefined && !this.lookupLocal(q.split(".")[0]) && !this.env.variable(q.split(".")[0])) {
        const full = `${q}.${e.fn}`;
        if (this.env.functions(full)) {
          e.fn = full;
          e.target = undefined;
        }
      }
    }
    const fns = this.env.functions(e.fn);
    const targetType = e.target ? this.visit(e.target) : undefined;
    const exempt = e.fn === "format";
    if (exempt) this.exempt++;
    const argTypes = e.args.map((a) => this.visit(a));
    if (exempt) this.exempt--;
    if (!fns) {
      if (this.env.dynamic) return this.set(e, T.dyn);
      this.error(e, `undeclared reference to '${e.fn}' (in container '')`);
      return this.set(e, T.error);
    }
    const actual = targetType ? [targetType, ...argTypes] : argTypes;
    const member = e.target !== undefined;
    let result: CelType | undefined;
    const matched: Overload[] = [];
    for (const o of fns) {
      if (o.member !== member || o.params.length !== actual.length) continue;
      const { params, result: r } = this.freshParams(o);
      if (!allAssignable(params, actual, this.subs)) continue;
      matched.push(o);
      const rt = substitute(r, this.subs, false);
      result = result === undefined ? rt : typeEquals(result, rt) ? result : T.dyn;
    }
    if (matched.length === 0) {
      const shown = actual.map((t) => formatType(substitute(t, this.subs, true)));
      const applied = member ? `${shown[0]}.(${shown.slice(1).join(", ")})` : `(${shown.join(", ")})`;
      if (!actual.some((t) => t.kind === "error")) this.error(e, `found no matching overload for '${e.fn}' applied to '${applied}'`);
      return this.set(e, T.error);
    }
    this.overloads.set(e.id, matched);
    return this.set(e, result ?? T.dyn);
  }

  private joinElement(e: Expr, prev: CelType | undefined, cur: CelType): CelType {
    if (prev === undefined) return cur;
    if (isAssignable(prev, cur, this.subs)) {
      const p = substitute(prev, this.subs, false);
      const c = substitute(cur, this.subs, false);
      return lessSpecific(p, c) ? prev : cur;
    }
    if (!this.env.homogeneousLiterals || this.exempt > 0) return joinTypes(prev, cur);
    this.error(e, `expected type '${formatType(substitute(prev, this.subs, true))}' but found '${formatType(substitute(cur, this.subs, true))}'`);
    return prev;
  }

  private visitList(e: Extract<Expr, { kind: "list" }>): CelType {
    let elem: CelType | undefined;
    e.elems.forEach((x, i) => {
      let t = this.visit(x);
      if (e.optionalIndices.includes(i)) {
        const st = substitute(t, this.subs, false);
        if (isOptionalType(st)) t = st.params[0];
        else if (!isDynOrError(st)) this.error(x, `expected type 'optional_type' but found '${formatType(st)}'`);
        else t = T.dyn;
      }
      elem = this.joinElement(x, elem, t);
    });
    return this.set(e, T.list(elem ?? T.param(`_list${this.fresh++}`)));
  }

  private visitMap(e: Extract<Expr, { kind: "map" }>): CelType {
    let kt: CelType | undefined;
    let vt: CelType | undefined;
    for (const en of e.entries) {
      const k = this.visit(en.key);
      let v = this.visit(en.value);
      if (en.optional) {
        const sv = substitute(v, this.subs, false);
        if (isOptionalType(sv)) v = sv.params[0];
        else if (!isDynOrError(sv)) this.error(en.value, `expected type 'optional_type' but found '${formatType(sv)}'`);
        else v = T.dyn;
      }
      kt = this.joinElement(en.key, kt, k);
      vt = this.joinElement(en.value, vt, v);
    }
    const n = this.fresh++;
    return this.set(e, T.map(kt ?? T.param(`_key${n}`), vt ?? T.param(`_val${n}`)));
  }

  private visitComprehension(e: Extract<Expr, { kind: "comprehension" }>): CelType {
    const rangeType = substitute(this.visit(e.iterRange), this.subs, false);
    const accuType = this.visit(e.accuInit);
    let varType: CelType = T.dyn;
    let var2Type: CelType | undefined;
    switch (rangeType.kind) {
      case "list":
        if (e.iterVar2 !== undefined) {
          varType = T.int;
          var2Type = rangeType.elem;
        } else varType = rangeType.elem;
        break;
      case "map":
        varType = rangeType.key;
        if (e.iterVar2 !== undefined) var2Type = rangeType.value;
        break;
      case "dyn":
      case "error":
      case "param":
        varType = T.dyn;
        var2Type = T.dyn;
        break;
      default:
        this.error(e.iterRange, `expression of type '${formatType(rangeType)}' cannot be range of a comprehension (must be list, map, or dynamic)`);
        varType = T.dyn;
        var2Type = T.dyn;
    }
    const accuScope = new Map<string, CelType>([[e.accuVar, accuType]]);
    this.scopes.push(accuScope);
    const iterScope = new Map<string, CelType>([[e.iterVar, varType]]);
    if (e.iterVar2 !== undefined) iterScope.set(e.iterVar2, var2Type ?? T.dyn);
    this.scopes.push(iterScope);
    const cond = this.visit(e.loopCondition);
    if (!isAssignable(T.bool, cond, this.subs)) this.error(e.loopCondition, `expected type 'bool' but found '${formatType(substitute(cond, this.subs, true))}'`);
    const step = this.visit(e.loopStep);
    if (!isAssignable(accuType, step, this.subs)) {
      this.error(e.loopStep, `expected type '${formatType(substitute(accuType, this.subs, true))}' but found '${formatType(substitute(step, this.subs, true))}'`);
    }
    this.scopes.pop();
    const result = this.visit(e.result);
    this.scopes.pop();
    return this.set(e, result);
  }
}
