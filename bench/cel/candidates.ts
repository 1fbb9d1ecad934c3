/**
 * The CEL implementations compared when choosing kubeloop's CEL layer, behind one interface:
 * run the cel-spec conformance cases, and compile / evaluate a set of CRD-style rules.
 *
 *   kubeloop             src/apiserver/cel (what kubeloop ships)
 *   @marcbachmann/cel-js 8.0.0 (Environment with type checking)
 *   @bufbuild/cel        0.6.1 (run/plan; its checker types only literals and identifiers)
 *   cel-js               0.8.2 (chevrotain parser, evaluate)
 *
 * Each adapter converts the neutral conformance values to and from the library's own.
 */
import * as buf from "@bufbuild/cel";
import { strings as bufStrings } from "@bufbuild/cel/ext";
import { Environment } from "@marcbachmann/cel-js";
import * as celjs from "cel-js";
import type { ConformanceAdapter, ConformanceCase, Neutral, NeutralType } from "../../test/cel/conformance.js";
import { kubeloopAdapter } from "../../test/cel/kubeloop-adapter.js";
import { kubernetesEnv } from "../../src/apiserver/cel/kubernetes.js";
import { T } from "../../src/apiserver/cel/types.js";
import { LiteralMap, type Val } from "../../src/apiserver/cel/values.js";

export interface RuleRunner {
  /** Parses (and type-checks, where the library can) every rule; returns a handle per rule. */
  compile(rules: readonly string[]): unknown[];
  /** Evaluates a compiled rule against `self`. */
  eval(compiled: unknown, self: unknown): unknown;
  /** `self` in the library's representation (ints as the library expects them). */
  prepare(self: Record<string, unknown>): unknown;
}

export interface Candidate {
  name: string;
  conformance: ConformanceAdapter;
  rules: RuleRunner;
}

// ---- shared conversions ----------------------------------------------------------------------

function toJS(n: Neutral, opts: { uint: (v: bigint) => unknown; map: (entries: [unknown, unknown][]) => unknown; int: (v: bigint) => unknown }): unknown {
  switch (n.t) {
    case "int":
      return opts.int(n.v);
    case "uint":
      return opts.uint(n.v);
    case "double":
    case "string":
    case "bool":
    case "bytes":
      return n.v;
    case "null":
      return null;
    case "list":
      return n.v.map((x) => toJS(x, opts));
    case "map":
      return opts.map(n.v.map(([k, v]) => [toJS(k, opts), toJS(v, opts)]));
    default:
      throw new Error(`unsupported ${n.t}`);
  }
}

/** A library value as a neutral one; `numbersAreInts` for libraries without a distinct int (cel-js). */
function fromJS(v: unknown, isUint: (v: unknown) => bigint | undefined, typeName: (v: unknown) => string | undefined, numbersAreInts = false): Neutral {
  const from = (x: unknown) => fromJS(x, isUint, typeName, numbersAreInts);
  if (typeof v === "bigint") return { t: "int", v };
  if (typeof v === "number") return numbersAreInts && Number.isInteger(v) && !Object.is(v, -0) ? { t: "int", v: BigInt(v) } : { t: "double", v };
  if (typeof v === "string") return { t: "string", v };
  if (typeof v === "boolean") return { t: "bool", v };
  if (v === null || v === undefined) return { t: "null" };
  const u = isUint(v);
  if (u !== undefined) return { t: "uint", v: u };
  if (v instanceof Uint8Array) return { t: "bytes", v };
  const tn = typeName(v);
  if (tn !== undefined) return { t: "type", v: tn };
  if (Array.isArray(v)) return { t: "list", v: v.map(from) };
  if (v instanceof Map || buf.isCelMap(v)) return { t: "map", v: [...(v as Map<unknown, unknown>).entries()].map(([k, x]) => [from(k), from(x)] as [Neutral, Neutral]) };
  if (typeof v === "object" && Symbol.iterator in (v as object)) return { t: "list", v: [...(v as Iterable<unknown>)].map(from) };
  if (typeof v === "object") return { t: "map", v: Object.entries(v as object).map(([k, x]) => [{ t: "string", v: k }, from(x)] as [Neutral, Neutral]) };
  return { t: "unsupported", what: typeof v };
}

const marcType = (t: NeutralType): string => {
  switch (t.t) {
    case "list":
      return `list<${marcType(t.elem)}>`;
    case "map":
      return `map<${marcType(t.key)}, ${marcType(t.value)}>`;
    case "optional":
      return `optional<${marcType(t.elem)}>`;
    case "null":
      return "null_type";
    case "timestamp":
    case "duration":
    case "int":
    case "uint":
    case "double":
    case "string":
    case "bytes":
    case "bool":
    case "type":
      return t.t === "timestamp" ? "google.protobuf.Timestamp" : t.t === "duration" ? "google.protobuf.Duration" : t.t;
    default:
      return "dyn";
  }
};

// ---- @marcbachmann/cel-js --------------------------------------------------------------------

/** The library's uint class (its index does not export it): the constructor of a uint value. */
const UnsignedInt = (new Environment().evaluate("1u") as object).constructor as new (v: bigint) => { value: bigint };

const marcValue = (n: Neutral) => toJS(n, { int: (v) => v, uint: (v) => new UnsignedInt(v), map: (e) => new Map(e) });
const marcFrom = (v: unknown) =>
  fromJS(
    v,
    (x) => (x instanceof UnsignedInt ? BigInt(x.value) : undefined),
    (x) => (x && typeof x === "object" && x.constructor?.name === "Type" ? String((x as { name?: string }).name ?? x) : undefined),
  );

const marcbachmann: Candidate = {
  name: "@marcbachmann/cel-js",
  conformance: {
    name: "@marcbachmann/cel-js",
    run(c: ConformanceCase) {
      const env = new Environment({ unlistedVariablesAreDyn: c.disableCheck, enableOptionalTypes: true, homogeneousAggregateLiterals: false });
      for (const d of c.decls) env.registerVariable(d.name, marcType(d.type));
      for (const k of Object.keys(c.bindings)) if (!env.hasVariable(k)) env.registerVariable(k, "dyn");
      if (c.checkOnly) {
        const r = env.check(c.expr);
        if (!r.valid) return { error: String(r.error) };
        return { type: { t: "dyn" } };
      }
      const ctx: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(c.bindings)) ctx[k] = marcValue(v);
      return { value: marcFrom(env.evaluate(c.expr, ctx)) };
    },
  },
  rules: {
    compile(rules) {
      const env = new Environment({ enableOptionalTypes: true }).registerVariable("self", "dyn");
      return rules.map((r) => {
        const p = env.parse(r);
        p.check();
        return p;
      });
    },
    eval(compiled, self) {
      return (compiled as (ctx: Record<string, unknown>) => unknown)({ self });
    },
    prepare: (self) => intsAs(self, (n) => BigInt(n)),
  },
};

// ---- @bufbuild/cel ---------------------------------------------------------------------------

const bufValue = (n: Neutral) => toJS(n, { int: (v) => v, uint: (v) => buf.celUint(v), map: (e) => new Map(e) });
const bufFrom = (v: unknown) =>
  fromJS(
    v,
    (x) => (buf.isCelUint(x) ? (x as { value: bigint }).value : undefined),
    (x) => (buf.isCelType(x) ? (x as { name: string }).name : undefined),
  );

const bufbuild: Candidate = {
  name: "@bufbuild/cel",
  conformance: {
    name: "@bufbuild/cel",
    run(c: ConformanceCase) {
      if (c.checkOnly) return { error: "@bufbuild/cel has no type checker for these expressions" };
      const ctx: Record<string, buf.CelInput> = {};
      for (const [k, v] of Object.entries(c.bindings)) ctx[k] = bufValue(v) as buf.CelInput;
      const r = buf.run(c.expr, ctx, { funcs: bufStrings });
      if (buf.isCelError(r)) return { error: r.message };
      return { value: bufFrom(r) };
    },
  },
  rules: {
    compile(rules) {
      const env = buf.celEnv({ funcs: bufStrings });
      return rules.map((r) => buf.plan(env, buf.parse(r)));
    },
    eval(compiled, self) {
      return (compiled as (ctx: Record<string, unknown>) => unknown)({ self });
    },
    prepare: (self) => intsAs(self, (n) => BigInt(n)),
  },
};

// ---- cel-js ----------------------------------------------------------------------------------

const celjsCandidate: Candidate = {
  name: "cel-js",
  conformance: {
    name: "cel-js",
    run(c: ConformanceCase) {
      if (c.checkOnly) return { error: "cel-js has no type checker" };
      const ctx: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(c.bindings)) ctx[k] = toJS(v, { int: (x) => Number(x), uint: (x) => Number(x), map: (e) => Object.fromEntries(e as [string, unknown][]) });
      return { value: fromJS(celjs.evaluate(c.expr, ctx), () => undefined, () => undefined, true) };
    },
  },
  rules: {
    compile(rules) {
      return rules.map((r) => {
        const p = celjs.parse(r);
        if (!p.isSuccess) throw new Error(p.errors.join("; "));
        return p.cst;
      });
    },
    eval(compiled, self) {
      return celjs.evaluate(compiled as Parameters<typeof celjs.evaluate>[0], { self });
    },
    prepare: (self) => self,
  },
};

// ---- kubeloop --------------------------------------------------------------------------------

function jsonVal(v: unknown): Val {
  if (v === null || v === undefined) return null;
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(jsonVal);
  const m = new LiteralMap();
  for (const [k, x] of Object.entries(v as object)) m.set(k, jsonVal(x));
  return m;
}

const kubeloop: Candidate = {
  name: "kubeloop",
  conformance: kubeloopAdapter,
  rules: {
    compile(rules) {
      const env = kubernetesEnv().extend({ variables: { self: T.dyn } });
      return rules.map((r) => env.program(env.compile(r)));
    },
    eval(compiled, self) {
      const r = (compiled as ReturnType<ReturnType<typeof kubernetesEnv>["program"]>).eval({ self: self as Val });
      if (r.error) throw r.error;
      return r.value;
    },
    prepare: (self) => jsonVal(self),
  },
};

function intsAs(v: unknown, f: (n: number) => unknown): unknown {
  if (typeof v === "number") return Number.isInteger(v) ? f(v) : v;
  if (Array.isArray(v)) return v.map((x) => intsAs(x, f));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, intsAs(x, f)]));
  return v;
}

export const candidates: Candidate[] = [kubeloop, marcbachmann, bufbuild, celjsCandidate];
