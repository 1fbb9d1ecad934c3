/**
 * x-kubernetes-validations: CEL rules in CRD schemas (apiextensions-apiserver
 * pkg/apiserver/schema/cel: compilation.go and validation.go).
 *
 * `compileRules` turns a version's schema into a tree of rule nodes parallel to the schema,
 * each rule compiled once (when the CRD version is served, never per request) with `self`
 * (and `oldSelf`) typed from the structural schema. `validateRules` evaluates the tree against
 * a custom resource:
 *
 * - rules run on every non-null value of their node; transition rules (those using `oldSelf`)
 *   only when an old value correlates (objects by key, x-kubernetes-list-type map items by
 *   their keys; set and atomic list items never), unless `optionalOldSelf` makes `oldSelf` an
 *   optional that is none on create;
 * - a failing rule reports `message`, `messageExpression`'s value or "failed rule: <rule>" at its
 *   node (or `fieldPath` below it), with `reason` choosing the error type; runtime errors, the
 *   per-call cost limit and the per-object budget (RuntimeCELCostBudget) are reported as upstream;
 * - ratcheting: on update, a rule that does not use oldSelf and fails on a value equal to its
 *   correlated old value (or inside such a value) is a warning, not an error.
 *
 * `validateRuleDefinitions` is the CRD-side check: compile errors with their issue text,
 * messageExpression errors, the estimated cost of each rule (StaticEstimatedCostLimit), the
 * total for the schema (StaticEstimatedCRDCostLimit), oldSelf in uncorrelatable places, and
 * optionalOldSelf without oldSelf.
 */
import { FieldError, fieldErrors, GoSyntax } from "../../apimachinery/fielderrors.js";
import type { Program } from "../cel/env.js";
import { kubernetesEnv } from "../cel/kubernetes.js";
import { declSizeEstimator, escapeProperty, MAX_REQUEST_SIZE_BYTES, schemaDeclType, toVal, type DeclType } from "../cel/schema.js";
import { CompileError } from "../cel/source.js";
import { T, formatType } from "../cel/types.js";
import { CelOptional, type Val } from "../cel/values.js";
import { additionalPropertiesSchema, isObject, itemsOf, jsonEqual, propertiesOf, schemaList, type Schema } from "./schema.js";

/** k8s.io/apiserver/pkg/apis/cel config.go. */
export const PER_CALL_LIMIT = 1_000_000;
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
export const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024;
/** apiextensions validation: StaticEstimatedCostLimit and StaticEstimatedCRDCostLimit. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

const MAX_UINT64 = 2 ** 64;

export interface ValidationRule {
  rule?: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

interface RuleError {
  type: "Invalid" | "Required" | "Internal";
  detail: string;
}

export interface CompiledRule {
  readonly rule: ValidationRule;
  readonly program?: Program;
  readonly error?: RuleError;
  readonly usesOldSelf: boolean;
  readonly maxCost: number;
  readonly maxCardinality: number;
  readonly messageProgram?: Program;
  readonly messageError?: string;
  readonly messageMaxCost: number;
  /** The normalized `fieldPath` (e.g. "spec.replicas", "labels[app]"), or "" for none. */
  readonly fieldPath: string;
}

/** A schema node with rules at or below it. */
export interface RuleNode {
  readonly schema: Schema;
  readonly type: string;
  readonly isResourceRoot: boolean;
  readonly decl?: DeclType;
  readonly rules: readonly CompiledRule[];
  readonly properties: ReadonlyMap<string, RuleNode>;
  readonly items?: RuleNode;
  readonly additionalProperties?: RuleNode;
  readonly allOf: readonly RuleNode[];
}

let typeCounter = 0;

const rulesOf = (s: Schema): ValidationRule[] => (Array.isArray(s["x-kubernetes-validations"]) ? (s["x-kubernetes-validations"] as unknown[]).filter(isObject) : []);

const hasRulesCache = new WeakMap<Schema, boolean>();

function hasRules(s: Schema | undefined): boolean {
  if (!s || !isObject(s)) return false;
  let r = hasRulesCache.get(s);
  if (r === undefined) {
    r =
      rulesOf(s).length > 0 ||
      Object.values(propertiesOf(s)).some(hasRules) ||
      hasRules(itemsOf(s)) ||
      hasRules(additionalPropertiesSchema(s)) ||
      schemaList(s.allOf).some(hasRules);
    hasRulesCache.set(s, r);
  }
  return r;
}

/** ruleErrorString: the message if set, else the rule, trimmed. */
function ruleText(r: ValidationRule): string {
  return (r.message ?? "").trim() !== "" ? r.message!.trim() : (r.rule ?? "").trim();
}

function compileOne(text: string, decl: DeclType, optionalOldSelf: boolean) {
  const env = kubernetesEnv().extend({ variables: { self: decl.celType, oldSelf: optionalOldSelf ? T.optional(decl.celType) : decl.celType } });
  return { env, ast: env.compile(text) };
}

/** compileRule: one x-kubernetes-validations entry against its node's type. */
export function compileRule(rule: ValidationRule, decl: DeclType, schema: Schema): CompiledRule {
  const empty = { rule, usesOldSelf: false, maxCost: 0, maxCardinality: 0, messageMaxCost: 0, fieldPath: "" };
  const text = rule.rule ?? "";
  if (text.trim() === "") return empty;
  const sizes = declSizeEstimator(decl);
  let compiled;
  try {
    compiled = compileOne(text, decl, rule.optionalOldSelf === true);
  } catch (e) {
    if (e instanceof CompileError) return { ...empty, error: { type: "Invalid", detail: `compilation failed: ${e.message}` } };
    throw e;
  }
  const { env, ast } = compiled;
  if (ast.resultType.kind !== "bool") return { ...empty, error: { type: "Invalid", detail: "cel expression must evaluate to a bool" } };
  const usesOldSelf = ast.references.has("oldSelf");
  const program = env.program(ast, { costLimit: PER_CALL_LIMIT });
  const maxCost = env.estimateCost(ast, sizes).max;
  const maxCardinality = Math.floor(MAX_REQUEST_SIZE_BYTES / (decl.minSerializedSize + 1));
  let messageProgram: Program | undefined;
  let messageError: string | undefined;
  let messageMaxCost = 0;
  if (rule.messageExpression !== undefined && rule.messageExpression !== "") {
    try {
      const m = env.compile(rule.messageExpression);
      if (m.resultType.kind !== "string") messageError = "messageExpression must evaluate to a string";
      else {
        messageProgram = env.program(m, { costLimit: PER_CALL_LIMIT });
        messageMaxCost = env.estimateCost(m, sizes).max;
      }
    } catch (e) {
      if (!(e instanceof CompileError)) throw e;
      messageError = `messageExpression compilation failed: ${e.message}`;
    }
  }
  let fieldPath = "";
  if (rule.fieldPath) {
    const r = validFieldPath(rule.fieldPath, schema);
    if (typeof r === "object") fieldPath = r.path;
  }
  return { rule, program, usesOldSelf, maxCost, maxCardinality, messageProgram, messageError, messageMaxCost, fieldPath };
}

/**
 * The rule tree of a schema: every node that holds rules, or has descendants that do, with
 * each rule compiled. Undefined when the schema has no rules at all.
 */
export function compileRules(schema: Schema | undefined): RuleNode | undefined {
  if (!schema || !hasRules(schema)) return undefined;
  const decl = schemaDeclType(schema, true)?.assignTypeNames(`selfType${typeCounter++}`);
  return buildNode(schema, true, decl);
}

function buildNode(schema: Schema, isResourceRoot: boolean, decl: DeclType | undefined): RuleNode | undefined {
  if (!hasRules(schema)) return undefined;
  const rules = decl ? rulesOf(schema).map((r) => compileRule(r, decl, schema)) : [];
  const properties = new Map<string, RuleNode>();
  for (const [k, p] of Object.entries(propertiesOf(schema))) {
    let fieldDecl: DeclType | undefined;
    const esc = escapeProperty(k);
    if (esc !== undefined) {
      if (!decl) continue;
      fieldDecl = decl.fields?.get(esc)?.type;
      if (!fieldDecl) continue; // fields with unknown types are not validated by CEL
    } else {
      fieldDecl = schemaDeclType(p, p["x-kubernetes-embedded-resource"] === true)?.assignTypeNames(`selfType${typeCounter++}`);
      if (!fieldDecl) continue;
    }
    const n = buildNode(p, p["x-kubernetes-embedded-resource"] === true, fieldDecl);
    if (n) properties.set(k, n);
  }
  const itemsSchema = itemsOf(schema);
  const items = itemsSchema ? buildNode(itemsSchema, itemsSchema["x-kubernetes-embedded-resource"] === true, decl?.elem) : undefined;
  const apSchema = additionalPropertiesSchema(schema);
  const additionalProperties = apSchema ? buildNode(apSchema, apSchema["x-kubernetes-embedded-resource"] === true, decl?.elem) : undefined;
  const allOf: RuleNode[] = [];
  for (const sub of schemaList(schema.allOf)) {
    const n = buildNode({ ...schema, ...sub, "x-kubernetes-validations": sub["x-kubernetes-validations"], allOf: undefined }, isResourceRoot, decl);
    if (n) allOf.push(n);
  }
  return { schema, type: typeof schema.type === "string" ? schema.type : "", isResourceRoot, decl, rules, properties, items, additionalProperties, allOf };
}

// ---- field paths ---------------------------------------------------------------------------

const child = (p: string, name: string) => (p === "" ? name : `${p}.${name}`);
const keyed = (p: string, k: string) => `${p}[${k}]`;

/** ValidFieldPath: a rule's fieldPath resolved against its schema, as a field path string. */
export function validFieldPath(jsonPath: string, schema: Schema): { path: string; schema: Schema } | string {
  const tokens: string[] = [];
  for (let i = 0; i < jsonPath.length; ) {
    const c = jsonPath[i];
    if (c === "." || c === "[" || c === "]") {
      tokens.push(c);
      i++;
      continue;
    }
    if (c === "'") {
      let j = i + 1;
      while (j < jsonPath.length && !(jsonPath[j] === "'" && jsonPath[j - 1] !== "\\")) j++;
      tokens.push(jsonPath.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    let j = i;
    while (j < jsonPath.length && !".[]".includes(jsonPath[j])) j++;
    tokens.push(jsonPath.slice(i, j));
    i = j;
  }
  let path: string | undefined;
  let cur: Schema = schema;
  const append = (name: string, named: boolean): string | undefined => {
    if (!named) {
      path = keyed(path ?? "", name);
      cur = additionalPropertiesSchema(cur) ?? {};
      return undefined;
    }
    path = path === undefined ? name : child(path, name);
    const next = propertiesOf(cur)[name];
    if (!next) return "does not refer to a valid field";
    cur = next;
    return undefined;
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === "[") {
      const lit = tokens[++i];
      if (lit === undefined) return "unexpected end of JSON path";
      if (lit.length < 2 || lit[0] !== "'" || lit[lit.length - 1] !== "'") return `expected single quoted string but got ${lit}`;
      const name = lit.slice(1, -1).replace(/\\(.)/g, "$1");
      let named: boolean;
      if (isObject(cur.properties)) named = true;
      else if (cur.additionalProperties !== undefined) named = false;
      else return "does not refer to a valid field";
      const err = append(name, named);
      if (err) return err;
      if (tokens[++i] !== "]") return `expected ] but got ${tokens[i] ?? ""}`;
    } else if (t === ".") {
      const name = tokens[++i];
      if (name === undefined) return "unexpected end of JSON path";
      let named: boolean;
      if (isObject(cur.properties)) named = true;
      else if (cur.additionalProperties !== undefined) named = false;
      else return "does not refer to a valid field";
      const err = append(name, named);
      if (err) return err;
    } else return `expected [ or . but got: ${t}`;
  }
  return { path: path ?? "", schema: cur };
}

// ---- evaluation ----------------------------------------------------------------------------

/** The ratcheting state of a node: whether it (or its nearest correlatable ancestor) is unchanged. */
interface Ratchet {
  /** The node's value correlates with an old value. */
  correlated: boolean;
  /** The value (or the nearest correlated ancestor) equals its old value. */
  unchanged: boolean;
}

export interface RuleResult {
  errors: FieldError[];
  /** Ratcheted failures: errors on unchanged values, reported as warnings. */
  warnings: string[];
  remainingBudget: number;
}

interface EvalState {
  budget: number;
  errors: FieldError[];
  warnings: string[];
}

const outOfBudget = (path: string, type: string) =>
  fieldErrors.invalid(path, type, "validation failed due to running out of cost budget, no further validation rules will be run");

function errorForReason(path: string, type: string, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case "FieldValueForbidden":
      return fieldErrors.forbidden(path, detail);
    case "FieldValueRequired":
      return fieldErrors.required(path, detail);
    case "FieldValueDuplicate":
      return fieldErrors.duplicate(path, type);
    default:
      return fieldErrors.invalid(path, type, detail);
  }
}

/** evalMessageExpression: the message, or an error kind and detail. */
function evalMessage(
  prg: Program,
  src: string,
  vars: Record<string, Val | undefined>,
  st: EvalState,
): { message: string } | { fatal: string } | { ignored: true } {
  const r = prg.eval(vars);
  if (r.cost > st.budget) return { fatal: "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run" };
  if (r.error) {
    if (r.error.message.startsWith("operation cancelled: actual cost limit exceeded")) {
      return { fatal: `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(src)}` };
    }
    st.budget -= r.cost;
    return { ignored: true };
  }
  st.budget -= r.cost;
  const msg = typeof r.value === "string" ? r.value.trim() : undefined;
  if (msg === undefined || msg === "" || msg.length > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES || /\n/.test(msg)) return { ignored: true };
  return { message: msg };
}

function evalNode(node: RuleNode, path: string, obj: unknown, old: unknown, ratchet: Ratchet, st: EvalState): void {
  if (obj === null || obj === undefined) return;
  evalRules(node, path, obj, old, ratchet, st);
  if (st.budget < 0) return;
  for (const sub of node.allOf) {
    // allOf rules do not ratchet on their own correlation (as upstream).
    evalNode(sub, path, obj, old, { correlated: false, unchanged: ratchet.unchanged }, st);
    if (st.budget < 0) return;
  }
  if (Array.isArray(obj)) {
    if (!node.items) return;
    const oldList = Array.isArray(old) ? old : undefined;
    const keys = node.schema["x-kubernetes-list-type"] === "map" ? node.schema["x-kubernetes-list-map-keys"] ?? [] : undefined;
    const oldByKey = new Map<string, unknown>();
    if (keys && oldList) for (const o of oldList) if (isObject(o)) oldByKey.set(JSON.stringify(keys.map((k) => o[k])), o);
    obj.forEach((item, i) => {
      if (st.budget < 0) return;
      const oldItem = keys && isObject(item) ? oldByKey.get(JSON.stringify(keys.map((k) => item[k]))) : undefined;
      const r: Ratchet = oldItem !== undefined && ratchet.correlated ? { correlated: true, unchanged: jsonEqual(item, oldItem) } : { correlated: false, unchanged: ratchet.unchanged };
      evalNode(node.items!, `${path === "<nil>" ? "" : path}[${i}]`, item, oldItem, r, st);
    });
    return;
  }
  if (!isObject(obj)) return;
  const oldObj = isObject(old) && node.schema["x-kubernetes-map-type"] !== "atomic" ? old : undefined;
  const base = path === "<nil>" ? "" : path;
  for (const [k, v] of Object.entries(obj)) {
    if (st.budget < 0) return;
    const isProp = node.properties.has(k);
    const sub = isProp ? node.properties.get(k) : node.additionalProperties;
    if (!sub) continue;
    const ov = oldObj && Object.prototype.hasOwnProperty.call(oldObj, k) ? oldObj[k] : undefined;
    // apiVersion and kind do not correlate at the root (both sides carry the request's).
    const correlatable = ov !== undefined && ratchet.correlated && !(node.isResourceRoot && path === "<nil>" && (k === "apiVersion" || k === "kind"));
    const r: Ratchet = correlatable ? { correlated: true, unchanged: jsonEqual(v, ov) } : { correlated: false, unchanged: ratchet.unchanged };
    evalNode(sub, isProp ? child(base, k) : keyed(base, k), v, ov, r, st);
  }
}

function evalRules(node: RuleNode, path: string, obj: unknown, old: unknown, ratchet: Ratchet, st: EvalState): void {
  if (node.rules.length === 0 || !node.decl) return;
  const type = node.type;
  if (st.budget <= 0) {
    st.errors.push(outOfBudget(path, type));
    st.budget = -1;
    return;
  }
  const self = toVal(obj, node.decl);
  const oldSelf = old === undefined || old === null ? undefined : toVal(old, node.decl);
  const vars: Record<string, Val | undefined> = { self, oldSelf };
  const optVars: Record<string, Val | undefined> = { self, oldSelf: oldSelf === undefined ? CelOptional.none : CelOptional.of(oldSelf) };
  for (const c of node.rules) {
    const rule = c.rule;
    if (c.error) {
      st.errors.push(fieldErrors.invalid(path, type, `rule compile error: ${c.error.detail}`));
      continue;
    }
    if (!c.program) continue;
    const optional = rule.optionalOldSelf === true;
    if (c.usesOldSelf && oldSelf === undefined && !optional) continue;
    const ruleVars = optional ? optVars : vars;
    const r = c.program.eval(ruleVars);
    if (r.cost > st.budget) {
      st.errors.push(outOfBudget(path, type));
      st.budget = -1;
      return;
    }
    st.budget -= r.cost;
    if (r.error) {
      const msg = r.error.message;
      if (msg.startsWith("no such overload")) {
        st.errors.push(fieldErrors.invalid(path, type, `'${msg}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(rule)}`));
      } else if (msg.startsWith("operation cancelled: actual cost limit exceeded")) {
        st.errors.push(fieldErrors.invalid(path, type, `'${msg}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(rule)}`));
        st.budget = -1;
        return;
      } else st.errors.push(fieldErrors.invalid(path, type, `${msg} evaluating rule: ${ruleText(rule)}`));
      continue;
    }
    if (r.value === true) continue;
    const at = c.fieldPath ? child(path === "<nil>" ? "" : path, c.fieldPath) : path;
    const add = (e: FieldError) => {
      if (!c.usesOldSelf && ratchet.unchanged) st.warnings.push(e.toString());
      else st.errors.push(e);
    };
    let detail: string | undefined;
    if (c.messageProgram) {
      const m = evalMessage(c.messageProgram, rule.messageExpression ?? "", ruleVars, st);
      if ("fatal" in m) {
        add(fieldErrors.invalid(at, type, m.fatal));
        st.budget = -1;
        return;
      }
      if ("message" in m) detail = m.message;
    }
    detail ??= (rule.message ?? "") !== "" ? rule.message!.trim() : `failed rule: ${ruleText(rule)}`;
    add(errorForReason(at, type, detail, rule.reason));
  }
}

/**
 * Evaluates the rules of a custom resource (old: the stored object on update). Paths are
 * upstream's: the root is "<nil>", children "spec.replicas", map keys "labels[app]".
 */
export function validateRules(root: RuleNode, obj: unknown, old?: unknown, budget = RUNTIME_CEL_COST_BUDGET): RuleResult {
  const st: EvalState = { budget, errors: [], warnings: [] };
  const correlated = old !== undefined;
  evalNode(root, "<nil>", obj, old, { correlated, unchanged: correlated && jsonEqual(obj, old) }, st);
  return { errors: st.errors, warnings: st.warnings, remainingBudget: st.budget };
}

// ---- CRD validation --------------------------------------------------------------------------

const supportedReasons = ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"];

/** The schema-level checks of one x-kubernetes-validations list (message, reason, fieldPath). */
export function validateRuleFields(s: Schema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  rulesOf(s).forEach((rule, i) => {
    const rp = `${path}.x-kubernetes-validations[${i}]`;
    const r = typeof rule.rule === "string" ? rule.rule.trim() : "";
    const msg = typeof rule.message === "string" ? rule.message : "";
    const tmsg = msg.trim();
    if (r === "") errs.push(fieldErrors.required(`${rp}.rule`, "rule is not specified"));
    else if (msg.length > 0 && tmsg === "") errs.push(fieldErrors.invalid(`${rp}.message`, msg, "message must be non-empty if specified"));
    else if (/[\n\r]+/.test(tmsg)) errs.push(fieldErrors.invalid(`${rp}.message`, msg, "message must not contain line breaks"));
    else if (/[\n\r]+/.test(r) && tmsg === "") errs.push(fieldErrors.required(`${rp}.message`, "message must be specified if rule contains line breaks"));
    if (typeof rule.messageExpression === "string" && rule.messageExpression.length > 0 && rule.messageExpression.trim() === "") {
      errs.push(fieldErrors.required(`${rp}.messageExpression`, "messageExpression must be non-empty if specified"));
    }
    if (rule.reason !== undefined && !supportedReasons.includes(rule.reason)) errs.push(fieldErrors.notSupported(`${rp}.reason`, rule.reason, supportedReasons));
    const fp = typeof rule.fieldPath === "string" ? rule.fieldPath : "";
    if (fp.length > 0 && fp.trim() === "") errs.push(fieldErrors.invalid(`${rp}.fieldPath`, fp, "fieldPath must be non-empty if specified"));
    if (/[\n\r]+/.test(fp)) errs.push(fieldErrors.invalid(`${rp}.fieldPath`, fp, "fieldPath must not contain line breaks"));
    if (fp.length > 0 && typeof validFieldPath(fp, s) === "string") errs.push(fieldErrors.invalid(`${rp}.fieldPath`, fp, "fieldPath must be a valid path"));
  });
  return errs;
}

/** Go's %#v of an apiextensions.ValidationRule, the bad value upstream prints for rule errors. */
export function goRuleValue(r: ValidationRule): string {
  const q = (s: string | undefined) => JSON.stringify(s ?? "");
  const reason = r.reason === undefined ? "(*apiextensions.FieldValueErrorReason)(nil)" : "(*apiextensions.FieldValueErrorReason)(0xc000000000)";
  const opt = r.optionalOldSelf === undefined ? "(*bool)(nil)" : "(*bool)(0xc000000000)";
  return `apiextensions.ValidationRule{Rule:${q(r.rule)}, Message:${q(r.message)}, MessageExpression:${q(r.messageExpression)}, Reason:${reason}, FieldPath:${q(r.fieldPath)}, OptionalOldSelf:${opt}}`;
}

function ruleInvalid(field: string, rule: ValidationRule, detail: string): FieldError {
  return fieldErrors.invalid(field, new GoSyntax(goRuleValue(rule)), detail);
}

function costMessage(name: string, cost: number, limit: number): string {
  const f = cost / limit;
  const factor = f > 100 ? "more than 100x" : f < 1.5 ? `${f.toFixed(6)}x` : `${f.toFixed(1)}x`;
  return `${name} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

function mulGuard(cost: number, cardinality: number): number {
  if (cost === 0) return 0;
  const p = cost * cardinality;
  return p >= MAX_UINT64 ? MAX_UINT64 : p;
}

interface TotalCost {
  total: number;
  mostExpensive: { path: string; cost: number }[];
}

function observe(total: TotalCost, path: string, cost: number): void {
  total.total = Math.min(MAX_UINT64, total.total + cost);
  if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return;
  total.mostExpensive.push({ path, cost });
  total.mostExpensive.sort((a, b) => b.cost - a.cost);
  if (total.mostExpensive.length > 4) total.mostExpensive.length = 4;
}

function maxElementsOf(s: Schema): number | undefined {
  if (s.type === "object") {
    if (s.additionalProperties !== undefined) return typeof s.maxProperties === "number" ? Math.max(0, s.maxProperties) : undefined;
    return 1;
  }
  if (s.type === "array") return typeof s.maxItems === "number" ? Math.max(0, s.maxItems) : undefined;
  return 1;
}

/**
 * The CEL checks of a version's (structurally valid) schema at `path`
 * ("spec.versions[0].schema.openAPIV3Schema"). `schemaErrorAt(p)` tells whether schema
 * validation already reported an error at p or below, in which case that node's rules are not
 * compiled (as upstream).
 */
export function validateRuleDefinitions(root: Schema, path: string, schemaErrorAt: (p: string) => boolean): FieldError[] {
  if (!hasRules(root)) return [];
  const errs: FieldError[] = [];
  const total: TotalCost = { total: 0, mostExpensive: [] };
  const rootDecl = schemaDeclType(root, true)?.assignTypeNames(`selfType${typeCounter++}`);
  const visit = (s: Schema, p: string, decl: DeclType | undefined, cardinality: number | undefined, uncorrelatable: string | undefined): void => {
    const rules = rulesOf(s);
    if (rules.length > 0 && !schemaErrorAt(p)) {
      if (!decl) {
        errs.push(fieldErrors.internal(`${p}.x-kubernetes-validations`, new Error("internal error: failed to retrieve type information for x-kubernetes-validations")));
      } else {
        rules.forEach((rule, i) => {
          const rp = `${p}.x-kubernetes-validations[${i}]`;
          const cr = compileRule(rule, decl, s);
          const cost = mulGuard(cr.maxCost, cardinality ?? cr.maxCardinality);
          if (cost > STATIC_ESTIMATED_COST_LIMIT) errs.push(fieldErrors.forbidden(`${rp}.rule`, costMessage("estimated rule cost", cost, STATIC_ESTIMATED_COST_LIMIT)));
          observe(total, `${rp}.rule`, cost);
          if (cr.error) {
            if (cr.error.type === "Required") errs.push(fieldErrors.required(`${rp}.rule`, cr.error.detail));
            else errs.push(ruleInvalid(`${rp}.rule`, rule, cr.error.detail));
          }
          if (cr.messageError) errs.push(ruleInvalid(`${rp}.messageExpression`, rule, cr.messageError));
          else if (cr.messageProgram) {
            if (cr.messageMaxCost > STATIC_ESTIMATED_COST_LIMIT) {
              errs.push(fieldErrors.forbidden(`${rp}.messageExpression`, costMessage("estimated messageExpression cost", cr.messageMaxCost, STATIC_ESTIMATED_COST_LIMIT)));
            }
            observe(total, `${rp}.messageExpression`, cr.messageMaxCost);
          }
          if (cr.usesOldSelf) {
            if (uncorrelatable !== undefined) {
              errs.push(fieldErrors.invalid(`${rp}.rule`, rule.rule ?? "", `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`));
            }
          } else if (rule.optionalOldSelf !== undefined && !cr.error) {
            errs.push(fieldErrors.invalid(`${rp}.optionalOldSelf`, rule.optionalOldSelf, "may not be set if oldSelf is not used in rule"));
          }
        });
      }
    }
    const childCard = (parent: Schema) => {
      if (cardinality === undefined) return undefined;
      const m = maxElementsOf(parent);
      return m === undefined ? undefined : mulGuard(cardinality, m);
    };
    const mapCorrelatable = s["x-kubernetes-map-type"] === undefined || s["x-kubernetes-map-type"] === "granular";
    for (const [k, ps] of Object.entries(propertiesOf(s))) {
      const esc = escapeProperty(k);
      let fd: DeclType | undefined;
      if (esc !== undefined) fd = decl?.fields?.get(esc)?.type;
      if (!fd) fd = schemaDeclType(ps, ps["x-kubernetes-embedded-resource"] === true)?.assignTypeNames(`selfType${typeCounter++}`);
      visit(ps, `${p}.properties[${k}]`, fd, childCard(s), uncorrelatable ?? (mapCorrelatable ? undefined : p));
    }
    const ap = additionalPropertiesSchema(s);
    if (ap) visit(ap, `${p}.additionalProperties`, decl?.elem ?? schemaDeclType(ap, ap["x-kubernetes-embedded-resource"] === true), childCard(s), uncorrelatable);
    const it = itemsOf(s);
    if (it) {
      const unc = uncorrelatable ?? (s["x-kubernetes-list-type"] === "map" ? undefined : p);
      visit(it, `${p}.items`, decl?.elem ?? schemaDeclType(it, it["x-kubernetes-embedded-resource"] === true), childCard(s), unc);
    }
  };
  visit(root, path, rootDecl, 1, undefined);
  if (total.total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const e of total.mostExpensive) errs.push(fieldErrors.forbidden(e.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"));
    errs.push(fieldErrors.forbidden(path, costMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", total.total, STATIC_ESTIMATED_CRD_COST_LIMIT)));
  }
  return errs;
}

/** For error messages that name a rule's `self` type. */
export function selfTypeName(node: RuleNode): string {
  return node.decl ? formatType(node.decl.celType) : "";
}
