/**
 * Runs conformance cases on kubeloop's CEL (src/apiserver/cel) with the libraries cel-spec's
 * files exercise: the standard library, strings, optional types and bindings.
 */
import { celConformanceEnv } from "../../src/apiserver/cel/kubernetes.js";
import type { Env } from "../../src/apiserver/cel/env.js";
import { T, type CelType } from "../../src/apiserver/cel/types.js";
import { CelMap, CelTypeValue, CelUint, LiteralMap, type Val } from "../../src/apiserver/cel/values.js";
import type { ConformanceAdapter, ConformanceCase, Neutral, NeutralType } from "./conformance.js";

function toType(t: NeutralType): CelType {
  switch (t.t) {
    case "list":
      return T.list(toType(t.elem));
    case "map":
      return T.map(toType(t.key), toType(t.value));
    case "optional":
      return T.optional(toType(t.elem));
    case "null":
      return T.null;
    case "type":
      return T.type();
    case "unsupported":
      return T.dyn;
    default:
      return (T as unknown as Record<string, CelType>)[t.t];
  }
}

function fromType(t: CelType): NeutralType {
  switch (t.kind) {
    case "list":
      return { t: "list", elem: fromType(t.elem) };
    case "map":
      return { t: "map", key: fromType(t.key), value: fromType(t.value) };
    case "opaque":
      return t.name === "optional_type" ? { t: "optional", elem: fromType(t.params[0]) } : { t: "unsupported", what: t.name };
    case "null_type":
      return { t: "null" };
    case "type":
      return { t: "type" };
    case "int":
    case "uint":
    case "double":
    case "string":
    case "bytes":
    case "bool":
    case "dyn":
    case "timestamp":
    case "duration":
      return { t: t.kind };
    default:
      return { t: "unsupported", what: t.kind };
  }
}

function toVal(n: Neutral, env: Env): Val {
  switch (n.t) {
    case "int":
      return n.v;
    case "uint":
      return new CelUint(n.v);
    case "double":
    case "string":
    case "bool":
    case "bytes":
      return n.v;
    case "null":
      return null;
    case "list":
      return n.v.map((x) => toVal(x, env));
    case "map": {
      const m = new LiteralMap();
      for (const [k, v] of n.v) m.set(toVal(k, env), toVal(v, env));
      return m;
    }
    case "type":
      return new CelTypeValue(env.typeName(n.v) ?? T.object(n.v));
    default:
      throw new Error(`unsupported binding ${n.what}`);
  }
}

function fromVal(v: Val): Neutral {
  if (typeof v === "bigint") return { t: "int", v };
  if (typeof v === "number") return { t: "double", v };
  if (typeof v === "string") return { t: "string", v };
  if (typeof v === "boolean") return { t: "bool", v };
  if (v === null) return { t: "null" };
  if (v instanceof CelUint) return { t: "uint", v: v.v };
  if (v instanceof Uint8Array) return { t: "bytes", v };
  if (Array.isArray(v)) return { t: "list", v: v.map(fromVal) };
  if (v instanceof CelMap) return { t: "map", v: v.keys().map((k) => [fromVal(k), fromVal(v.get(k)!)] as [Neutral, Neutral]) };
  if (v instanceof CelTypeValue) return { t: "type", v: v.name };
  return { t: "unsupported", what: String(v) };
}

export const kubeloopAdapter: ConformanceAdapter = {
  name: "kubeloop",
  run(c: ConformanceCase) {
    const vars: Record<string, CelType> = {};
    for (const d of c.decls) vars[d.name] = toType(d.type);
    for (const k of Object.keys(c.bindings)) vars[k] ??= T.dyn;
    const env = celConformanceEnv().extend({ variables: vars });
    const ast = env.compile(c.expr, { dynamic: c.disableCheck });
    if (c.checkOnly) return { type: fromType(ast.resultType) };
    const bindings: Record<string, Val> = {};
    for (const [k, v] of Object.entries(c.bindings)) bindings[k] = toVal(v, env);
    const r = env.program(ast).eval(bindings);
    if (r.error) return { error: r.error.message };
    return { value: fromVal(r.value!) };
  },
};
