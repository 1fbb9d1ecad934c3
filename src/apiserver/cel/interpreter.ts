/**
 * The CEL interpreter: a checked AST is planned once into a tree of closures, then evaluated
 * any number of times against different variables. Runtime cost is tracked as cel-go's cost
 * tracker does (1 per identifier and field selection, list/map construction 10/30, function
 * calls as the cost estimator prices them) and evaluation stops with
 * "operation cancelled: actual cost limit exceeded" once it passes the limit.
 *
 * Errors are CelError exceptions; `&&`, `||` and @not_strictly_false absorb them as CEL's
 * commutative logic requires, and comprehension accumulators hold them as values.
 */
import type { Expr } from "./ast.js";
import type { CheckedAst } from "./checker.js";
import type { Overload } from "./decls.js";
import { listIndex, mapIndex } from "./stdlib.js";
import { isDynOrError, type CelType } from "./types.js";
import {
  CelError,
  CelMap,
  CelObject,
  CelOptional,
  CelTypeValue,
  costLimitExceeded,
  LiteralMap,
  noSuchOverload,
  StructValue,
  typeNameOf,
  type Val,
} from "./values.js";

/** The runtime price of calls of one overload (cel-go's ActualCostEstimator plus its defaults). */
export type CallCoster = (fn: string, overloadId: string) => (args: readonly Val[], result: Val) => number;

/** The state of one evaluation: variables, comprehension slots, cost so far and its limit. */
export class Activation {
  cost = 0;
  readonly locals: (Val | CelError)[];
  constructor(
    readonly vars: Readonly<Record<string, Val | undefined>>,
    slots: number,
    readonly limit: number,
  ) {
    this.locals = new Array<Val | CelError>(slots);
  }
  charge(n: number): void {
    this.cost += n;
    if (this.cost > this.limit) throw costLimitExceeded();
  }
}

export type Evaluator = (a: Activation) => Val;

/** Evaluates, returning a CelError instead of throwing it (fatal errors still propagate). */
function capture(f: Evaluator, a: Activation): Val | CelError {
  try {
    return f(a);
  } catch (e) {
    if (e instanceof CelError && !e.fatal) return e;
    throw e;
  }
}

function isConcrete(t: CelType | undefined): boolean {
  if (!t) return false;
  if (isDynOrError(t) || t.kind === "param") return false;
  if (t.kind === "list") return true;
  if (t.kind === "map") return true;
  return true;
}

export function selectField(v: Val, field: string): Val {
  if (v instanceof CelObject) {
    const r = v.getField(field);
    if (r === undefined) throw new CelError(`no such key: ${field}`);
    return r;
  }
  if (v instanceof CelMap) {
    const r = v.get(field);
    if (r === undefined) throw new CelError(`no such key: ${field}`);
    return r;
  }
  if (v instanceof CelOptional) {
    // Selecting on an optional keeps it optional; a missing field is none.
    if (!v.hasValue()) return CelOptional.none;
    const inner = v.value!;
    const r = inner instanceof CelObject ? inner.getField(field) : inner instanceof CelMap ? inner.get(field) : selectField(inner, field);
    return r === undefined ? CelOptional.none : CelOptional.of(r);
  }
  throw new CelError(`type '${typeNameOf(v)}' does not support field selection`);
}

export function hasField(v: Val, field: string): boolean {
  if (v instanceof CelObject) return v.hasField(field);
  if (v instanceof CelOptional) return v.hasValue() ? hasField(v.value!, field) : false;
  if (v instanceof CelMap) return v.has(field);
  throw new CelError(`invalid type for field selection.`);
}

function dispatch(cands: readonly Overload[], args: readonly Val[]): Overload {
  outer: for (const o of cands) {
    for (let i = 0; i < o.dispatch.length; i++) {
      const want = o.dispatch[i];
      if (want !== undefined && typeNameOf(args[i]) !== want) continue outer;
    }
    return o;
  }
  throw noSuchOverload();
}

export class Planner {
  private slots = 0;
  private readonly scopes: Map<string, number>[] = [];

  constructor(
    private readonly ast: CheckedAst,
    private readonly coster: CallCoster,
  ) {}

  get slotCount(): number {
    return this.slots;
  }

  plan(e: Expr): Evaluator {
    switch (e.kind) {
      case "const": {
        const v = e.value;
        return () => v;
      }
      case "ident":
        return this.planIdent(e);
      case "select":
        return this.planSelect(e);
      case "call":
        return this.planCall(e);
      case "list":
        return this.planList(e);
      case "map":
        return this.planMap(e);
      case "struct": {
        // The checker only lets declared message types through (EnvOptions.structTypes).
        const typeName = e.typeName.startsWith(".") ? e.typeName.slice(1) : e.typeName;
        const fields = e.fields.map((f) => ({ name: f.name, optional: f.optional, value: this.plan(f.value) }));
        return (a) => {
          const out = new Map<string, Val>();
          for (const f of fields) {
            let v = f.value(a);
            if (f.optional) {
              if (!(v instanceof CelOptional)) throw noSuchOverload();
              if (!v.hasValue()) continue;
              v = v.value!;
            }
            out.set(f.name, v);
          }
          a.charge(40);
          return new StructValue(typeName, out);
        };
      }
      case "comprehension":
        return this.planComprehension(e);
    }
  }

  private local(name: string): number | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const s = this.scopes[i].get(name);
      if (s !== undefined) return s;
    }
    return undefined;
  }

  private planIdent(e: Extract<Expr, { kind: "ident" }>): Evaluator {
    const tn = this.ast.typeIdents.get(e.id);
    if (tn) {
      const v = new CelTypeValue(tn);
      return () => v;
    }
    const name = e.name.startsWith(".") ? e.name.slice(1) : e.name;
    const slot = e.name.startsWith(".") ? undefined : this.local(name);
    if (slot !== undefined) {
      return (a) => {
        a.charge(1);
        const v = a.locals[slot];
        if (v instanceof CelError) throw v;
        return v as Val;
      };
    }
    return (a) => {
      a.charge(1);
      const v = a.vars[name];
      if (v === undefined) throw new CelError(`no such attribute(s): ${name}`);
      return v;
    };
  }

  private planSelect(e: Extract<Expr, { kind: "select" }>): Evaluator {
    const tn = this.ast.typeIdents.get(e.id);
    if (tn) {
      const v = new CelTypeValue(tn);
      return () => v;
    }
    if (!e.testOnly && this.ast.references.has(`${qualified(e) ?? ""}`)) {
      const name = qualified(e)!;
      return (a) => {
        a.charge(1);
        const v = a.vars[name];
        if (v === undefined) throw new CelError(`no such attribute(s): ${name}`);
        return v;
      };
    }
    const op = this.plan(e.operand);
    const field = e.field;
    if (e.testOnly) return (a) => hasField(op(a), field);
    return (a) => {
      const v = op(a);
      a.charge(1);
      return selectField(v, field);
    };
  }

  private planCall(e: Extract<Expr, { kind: "call" }>): Evaluator {
    const args = e.args.map((x) => this.plan(x));
    switch (e.fn) {
      case "_&&_":
      case "_||_":
        return this.planLogic(e.fn === "_&&_", args[0], args[1]);
      case "_?_:_": {
        const [c, t, f] = args;
        return (a) => {
          const cv = c(a);
          if (cv === true) return t(a);
          if (cv === false) return f(a);
          throw noSuchOverload();
        };
      }
      case "@not_strictly_false": {
        const [x] = args;
        return (a) => {
          a.charge(1);
          const v = capture(x, a);
          return v instanceof CelError ? true : v === false ? false : true;
        };
      }
      default:
        break;
    }
    const cands = this.ast.overloads.get(e.id) ?? [];
    if (cands.length === 0 && e.fn !== "_[_]") {
      // Only in unchecked (dynamic) programs: an undeclared function fails when called.
      return () => {
        throw new CelError(`no such overload: ${e.fn}`);
      };
    }
    const target = e.target ? this.plan(e.target) : undefined;
    const all = target ? [target, ...args] : args;
    const fn = e.fn;
    const coster = this.coster;
    const argTypes = [...(e.target ? [e.target] : []), ...e.args].map((x) => this.ast.types.get(x.id));
    const direct = cands.length === 1 && cands[0].impl && argTypes.every(isConcrete) ? cands[0] : undefined;
    const directCost = direct ? coster(fn, direct.id) : undefined;
    const costOf = (o: Overload) => (o === direct ? directCost! : coster(fn, o.id));
    if (fn === "_[_]" && direct === undefined) {
      // Indexing dispatches on the container; the index itself may be dyn.
      const [l, i] = all;
      return (a) => {
        const lv = l(a);
        const iv = i(a);
        a.charge(1);
        if (Array.isArray(lv)) return listIndex(lv, iv);
        if (lv instanceof CelMap) return mapIndex(lv, iv);
        if (lv instanceof CelOptional) {
          if (!lv.hasValue()) return CelOptional.none;
          const inner = lv.value!;
          if (inner instanceof CelMap) {
            const r = inner.get(iv);
            return r === undefined ? CelOptional.none : CelOptional.of(r);
          }
          if (Array.isArray(inner)) {
            const i = typeof iv === "bigint" ? iv : -1n;
            return i >= 0n && i < BigInt(inner.length) ? CelOptional.of(inner[Number(i)]) : CelOptional.none;
          }
          throw noSuchOverload();
        }
        throw noSuchOverload();
      };
    }
    if (all.length === 1) {
      const [x] = all;
      return (a) => {
        const xv = x(a);
        const args = [xv];
        const o = direct ?? dispatch(cands, args);
        const r = o.impl!(args);
        a.charge(costOf(o)(args, r));
        return r;
      };
    }
    if (all.length === 2) {
      const [x, y] = all;
      return (a) => {
        const xv = x(a);
        const yv = y(a);
        const vals = [xv, yv];
        const o = direct ?? dispatch(cands, vals);
        const r = o.impl!(vals);
        a.charge(costOf(o)(vals, r));
        return r;
      };
    }
    return (a) => {
      const vals = all.map((f) => f(a));
      const o = direct ?? dispatch(cands, vals);
      if (!o.impl) throw noSuchOverload();
      const r = o.impl(vals);
      a.charge(costOf(o)(vals, r));
      return r;
    };
  }

  private planLogic(isAnd: boolean, l: Evaluator, r: Evaluator): Evaluator {
    const stop = !isAnd; // the value that decides the result
    return (a) => {
      const lv = capture(l, a);
      if (lv === stop) return stop;
      const rv = capture(r, a);
      if (rv === stop) return stop;
      if (lv === !stop && rv === !stop) return !stop;
      if (lv instanceof CelError) throw lv;
      if (rv instanceof CelError) throw rv;
      throw noSuchOverload();
    };
  }

  private planList(e: Extract<Expr, { kind: "list" }>): Evaluator {
    const elems = e.elems.map((x) => this.plan(x));
    const optional = new Set(e.optionalIndices);
    if (optional.size === 0) {
      return (a) => {
        const out = elems.map((f) => f(a));
        a.charge(10);
        return out;
      };
    }
    return (a) => {
      const out: Val[] = [];
      elems.forEach((f, i) => {
        const v = f(a);
        if (optional.has(i)) {
          if (!(v instanceof CelOptional)) throw noSuchOverload();
          if (v.hasValue()) out.push(v.value!);
        } else out.push(v);
      });
      a.charge(10);
      return out;
    };
  }

  private planMap(e: Extract<Expr, { kind: "map" }>): Evaluator {
    const entries = e.entries.map((en) => ({ k: this.plan(en.key), v: this.plan(en.value), optional: en.optional }));
    return (a) => {
      const m = new LiteralMap();
      for (const en of entries) {
        const k = en.k(a);
        let v = en.v(a);
        if (en.optional) {
          if (!(v instanceof CelOptional)) throw noSuchOverload();
          if (!v.hasValue()) continue;
          v = v.value!;
        }
        if (!m.set(k, v)) throw new CelError("Failed with repeated key");
      }
      a.charge(30);
      return m;
    };
  }

  private planComprehension(e: Extract<Expr, { kind: "comprehension" }>): Evaluator {
    const range = this.plan(e.iterRange);
    const init = this.plan(e.accuInit);
    const accuSlot = this.slots++;
    this.scopes.push(new Map([[e.accuVar, accuSlot]]));
    const iterSlot = this.slots++;
    const iter2Slot = e.iterVar2 !== undefined ? this.slots++ : -1;
    const iterScope = new Map([[e.iterVar, iterSlot]]);
    if (e.iterVar2 !== undefined) iterScope.set(e.iterVar2, iter2Slot);
    this.scopes.push(iterScope);
    const cond = this.plan(e.loopCondition);
    const step = this.plan(e.loopStep);
    this.scopes.pop();
    const result = this.plan(e.result);
    this.scopes.pop();
    const two = e.iterVar2 !== undefined;
    return (a) => {
      const rv = range(a);
      const locals = a.locals;
      locals[accuSlot] = capture(init, a);
      if (Array.isArray(rv)) {
        for (let i = 0; i < rv.length; i++) {
          if (two) {
            locals[iterSlot] = BigInt(i);
            locals[iter2Slot] = rv[i];
          } else locals[iterSlot] = rv[i];
          if (cond(a) !== true) break;
          locals[accuSlot] = capture(step, a);
        }
      } else if (rv instanceof CelMap) {
        for (const k of rv.keys()) {
          locals[iterSlot] = k;
          if (two) locals[iter2Slot] = rv.get(k)!;
          if (cond(a) !== true) break;
          locals[accuSlot] = capture(step, a);
        }
      } else throw noSuchOverload();
      return result(a);
    };
  }
}

function qualified(e: Expr): string | undefined {
  if (e.kind === "ident") return e.name;
  if (e.kind === "select" && !e.testOnly) {
    const q = qualified(e.operand);
    return q === undefined ? undefined : `${q}.${e.field}`;
  }
  return undefined;
}
