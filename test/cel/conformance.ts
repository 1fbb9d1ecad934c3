/**
 * The cel-spec conformance tests (google/cel-spec tests/simple/testdata, the subset committed
 * in test/cel/conformance with its LICENSE) as plain cases any CEL implementation can run:
 * an expression, declared variables, bindings and the expected value or error. Cases that need
 * protocol-buffer messages (TestAllTypes, google.protobuf.* wrappers, enums) are marked, since
 * Kubernetes has no protobuf types in CEL; the candidates are compared on the rest.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseTextProto, TextMessage, type TextValue } from "./textproto.js";

export type Neutral =
  | { t: "int"; v: bigint }
  | { t: "uint"; v: bigint }
  | { t: "double"; v: number }
  | { t: "string"; v: string }
  | { t: "bytes"; v: Uint8Array }
  | { t: "bool"; v: boolean }
  | { t: "null" }
  | { t: "list"; v: Neutral[] }
  | { t: "map"; v: [Neutral, Neutral][] }
  | { t: "type"; v: string }
  | { t: "unsupported"; what: string };

export type NeutralType =
  | { t: "int" | "uint" | "double" | "string" | "bytes" | "bool" | "null" | "dyn" | "timestamp" | "duration" | "type" }
  | { t: "list"; elem: NeutralType }
  | { t: "map"; key: NeutralType; value: NeutralType }
  | { t: "optional"; elem: NeutralType }
  | { t: "unsupported"; what: string };

export interface ConformanceCase {
  file: string;
  section: string;
  name: string;
  expr: string;
  disableMacros: boolean;
  disableCheck: boolean;
  checkOnly: boolean;
  container: string;
  decls: { name: string; type: NeutralType }[];
  bindings: Record<string, Neutral>;
  expect: { kind: "value"; value: Neutral } | { kind: "error" } | { kind: "type"; type: NeutralType } | { kind: "other"; what: string };
  /** Needs protobuf messages, enums or wrappers (not part of Kubernetes' CEL). */
  needsProto: boolean;
}

/** test/cel/conformance, found from this module's place (also when compiled into dist-bench). */
function findConformanceDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    for (const candidate of [join(dir, "conformance"), join(dir, "test", "cel", "conformance")]) {
      if (existsSync(join(candidate, "basic.textproto"))) return candidate;
    }
    dir = dirname(dir);
  }
  throw new Error("test/cel/conformance not found");
}

export const conformanceDir = findConformanceDir();

function num(v: TextValue | undefined): string {
  if (!v || v instanceof TextMessage || v.kind === "string") return "0";
  return v.text;
}

function toBigInt(text: string): bigint {
  const t = text.replace(/[uU]$/, "");
  return BigInt(t);
}

function toDouble(text: string): number {
  const t = text.toLowerCase().replace(/([0-9.])f$/, "$1");
  if (t === "inf" || t === "infinity") return Infinity;
  if (t === "-inf" || t === "-infinity") return -Infinity;
  if (t === "nan" || t === "-nan") return NaN;
  return Number(t);
}

function neutralValue(m: TextMessage | undefined): Neutral {
  if (!m) return { t: "unsupported", what: "absent" };
  const [k, v] = m.fields[0] ?? ["", undefined];
  switch (k) {
    case "int64_value":
      return { t: "int", v: toBigInt(num(v)) };
    case "uint64_value":
      return { t: "uint", v: toBigInt(num(v)) };
    case "double_value":
      return { t: "double", v: toDouble(num(v)) };
    case "string_value":
      return { t: "string", v: v && !(v instanceof TextMessage) && v.kind === "string" ? new TextDecoder().decode(v.bytes) : "" };
    case "bytes_value":
      return { t: "bytes", v: v && !(v instanceof TextMessage) && v.kind === "string" ? v.bytes : new Uint8Array() };
    case "bool_value":
      return { t: "bool", v: !(v instanceof TextMessage) && v?.kind === "ident" && v.text === "true" };
    case "null_value":
      return { t: "null" };
    case "list_value":
      return { t: "list", v: (v as TextMessage).all("values").map((x) => neutralValue(x as TextMessage)) };
    case "map_value":
      return {
        t: "map",
        v: (v as TextMessage).all("entries").map((e) => {
          const em = e as TextMessage;
          return [neutralValue(em.msg("key")), neutralValue(em.msg("value"))] as [Neutral, Neutral];
        }),
      };
    case "type_value":
      return { t: "type", v: !(v instanceof TextMessage) && v?.kind === "string" ? new TextDecoder().decode(v.bytes) : "" };
    default:
      return { t: "unsupported", what: k || "empty" };
  }
}

function neutralType(m: TextMessage | undefined): NeutralType {
  if (!m) return { t: "dyn" };
  const [k, v] = m.fields[0] ?? ["", undefined];
  const ident = !(v instanceof TextMessage) && v?.kind === "ident" ? v.text : "";
  switch (k) {
    case "primitive":
      return (
        ({ INT64: { t: "int" }, UINT64: { t: "uint" }, DOUBLE: { t: "double" }, STRING: { t: "string" }, BYTES: { t: "bytes" }, BOOL: { t: "bool" } } as const)[ident as "INT64"] ?? {
          t: "unsupported",
          what: ident,
        }
      );
    case "dyn":
      return { t: "dyn" };
    case "null":
      return { t: "null" };
    case "list_type":
      return { t: "list", elem: neutralType((v as TextMessage).msg("elem_type")) };
    case "map_type":
      return { t: "map", key: neutralType((v as TextMessage).msg("key_type")), value: neutralType((v as TextMessage).msg("value_type")) };
    case "well_known":
      return ident === "TIMESTAMP" ? { t: "timestamp" } : ident === "DURATION" ? { t: "duration" } : { t: "unsupported", what: ident };
    case "abstract_type": {
      const am = v as TextMessage;
      if (am.str("name") === "optional_type") return { t: "optional", elem: neutralType(am.msg("parameter_types")) };
      return { t: "unsupported", what: am.str("name") ?? "abstract" };
    }
    case "type":
      return { t: "type" };
    default:
      return { t: "unsupported", what: k };
  }
}

const protoMarkers = /TestAllTypes|NestedTestAllTypes|google\.protobuf|cel\.expr\.conformance|proto2|proto3|GlobalEnum|NestedEnum|TestRequired|\.Int32Value|\.StringValue/;

function hasUnsupported(x: Neutral | NeutralType): boolean {
  if (x.t === "unsupported") return true;
  if (x.t === "list" && "v" in x) return x.v.some(hasUnsupported);
  if (x.t === "map" && "v" in x) return x.v.some(([a, b]) => hasUnsupported(a) || hasUnsupported(b));
  if (x.t === "list" && "elem" in x) return hasUnsupported(x.elem);
  if (x.t === "map" && "key" in x) return hasUnsupported(x.key) || hasUnsupported(x.value);
  if (x.t === "optional") return hasUnsupported(x.elem);
  return false;
}

function toCase(file: string, section: string, t: TextMessage): ConformanceCase {
  const decls: ConformanceCase["decls"] = [];
  let protoDecl = false;
  for (const d of t.all("type_env")) {
    const dm = d as TextMessage;
    const ident = dm.msg("ident");
    if (ident) decls.push({ name: dm.str("name") ?? "", type: neutralType(ident.msg("type")) });
    else protoDecl = true; // function declarations are not used by the Kubernetes subset
  }
  const bindings: Record<string, Neutral> = {};
  for (const b of t.all("bindings")) {
    const bm = b as TextMessage;
    bindings[bm.str("key") ?? ""] = neutralValue(bm.msg("value")?.msg("value"));
  }
  let expect: ConformanceCase["expect"];
  if (t.has("value")) expect = { kind: "value", value: neutralValue(t.msg("value")) };
  else if (t.has("eval_error") || t.has("any_eval_errors")) expect = { kind: "error" };
  else if (t.has("typed_result")) {
    const tr = t.msg("typed_result")!;
    expect = tr.has("result") ? { kind: "value", value: neutralValue(tr.msg("result")) } : { kind: "type", type: neutralType(tr.msg("deduced_type")) };
  } else if (t.has("unknown") || t.has("any_unknowns")) expect = { kind: "other", what: "unknown" };
  else expect = { kind: "value", value: { t: "bool", v: true } };
  const expr = t.str("expr") ?? "";
  const container = t.str("container") ?? "";
  const flag = (n: string) => {
    const v = t.get(n);
    return !!v && !(v instanceof TextMessage) && v.kind === "ident" && v.text === "true";
  };
  const needsProto =
    protoMarkers.test(expr) ||
    container !== "" ||
    protoDecl ||
    decls.some((d) => hasUnsupported(d.type)) ||
    Object.values(bindings).some(hasUnsupported) ||
    (expect.kind === "value" && hasUnsupported(expect.value)) ||
    (expect.kind === "type" && hasUnsupported(expect.type));
  return {
    file,
    section,
    name: `${file}/${section}/${t.str("name") ?? expr}`,
    expr,
    disableMacros: flag("disable_macros"),
    disableCheck: flag("disable_check"),
    checkOnly: flag("check_only"),
    container,
    decls,
    bindings,
    expect,
    needsProto,
  };
}

export function loadConformance(): ConformanceCase[] {
  const out: ConformanceCase[] = [];
  for (const f of readdirSync(conformanceDir).filter((x) => x.endsWith(".textproto")).sort()) {
    const file = f.replace(/\.textproto$/, "");
    const doc = parseTextProto(readFileSync(join(conformanceDir, f), "utf8"));
    for (const s of doc.all("section")) {
      const sm = s as TextMessage;
      for (const t of sm.all("test")) out.push(toCase(file, sm.str("name") ?? "", t as TextMessage));
    }
  }
  return out;
}

/** Deep equality of neutral values; doubles by value with NaN equal to NaN, maps by entries. */
export function neutralEquals(a: Neutral, b: Neutral): boolean {
  if (a.t !== b.t) return false;
  switch (a.t) {
    case "double": {
      const bv = (b as typeof a).v;
      return (Number.isNaN(a.v) && Number.isNaN(bv)) || a.v === bv;
    }
    case "bytes": {
      const bv = (b as typeof a).v;
      return a.v.length === bv.length && a.v.every((x, i) => x === bv[i]);
    }
    case "list": {
      const bv = (b as typeof a).v;
      return a.v.length === bv.length && a.v.every((x, i) => neutralEquals(x, bv[i]));
    }
    case "map": {
      const bv = (b as typeof a).v;
      return a.v.length === bv.length && a.v.every(([k, v]) => bv.some(([k2, v2]) => neutralEquals(k, k2) && neutralEquals(v, v2)));
    }
    case "null":
      return true;
    case "unsupported":
      return false;
    default:
      return (a as { v: unknown }).v === (b as { v: unknown }).v;
  }
}

/** What a CEL implementation must provide to be run against the suite. */
export interface ConformanceAdapter {
  name: string;
  /** Runs one case: the value, an error (thrown or returned), or "unsupported". */
  run(c: ConformanceCase): { value: Neutral } | { error: string } | { type: NeutralType };
}

export interface ConformanceReport {
  total: number;
  passed: number;
  failed: string[];
}

export function runConformance(adapter: ConformanceAdapter, cases: ConformanceCase[]): ConformanceReport {
  const failed: string[] = [];
  let passed = 0;
  for (const c of cases) {
    let ok = false;
    try {
      const r = adapter.run(c);
      if (c.expect.kind === "error") ok = "error" in r;
      else if (c.expect.kind === "value") ok = "value" in r && neutralEquals(r.value, c.expect.value);
      else if (c.expect.kind === "type") ok = "type" in r && JSON.stringify(r.type) === JSON.stringify(c.expect.type);
    } catch {
      ok = c.expect.kind === "error";
    }
    if (ok) passed++;
    else failed.push(c.name);
  }
  return { total: cases.length, passed, failed };
}
