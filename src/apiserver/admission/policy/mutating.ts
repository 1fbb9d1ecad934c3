/**
 * MutatingAdmissionPolicy (admissionregistration.k8s.io/v1, served by default in 1.36;
 * k8s.io/apiserver/pkg/admission/plugin/policy/mutating): CEL mutations bound to requests by
 * MutatingAdmissionPolicyBindings, matched like ValidatingAdmissionPolicies (matchConstraints,
 * binding matchResources, paramKind/paramRef, matchConditions, variables).
 *
 * Mutations of one invocation (policy × binding × param) apply in order, each seeing the object
 * as the previous one left it, and the object is defaulted again after each (as upstream's
 * dispatcher does):
 * - ApplyConfiguration: `Object{metadata: Object.metadata{labels: {"a": "b"}}}` — a partial
 *   object merged with server-side apply's merge (structured-merge-diff: structs and granular
 *   maps merged, `map` lists merged by key, `set` lists united); nested initializers must be
 *   named after their field path (`Object.spec{template: Object.spec.template{...}}`), and an
 *   apply configuration may not touch atomic lists, maps or structs;
 * - JSONPatch: `[JSONPatch{op: "add", path: "/metadata/labels/a", value: "b"}]` (RFC 6902, with
 *   `jsonpatch.escapeKey` for path segments); a failed `test` operation leaves the object as is.
 *
 * Errors (compilation, evaluation, a mutation of the wrong shape, missing params) are collected
 * per invocation; under failurePolicy Fail the request is refused with the first of them as the
 * message (`policy 'p' with binding 'b' denied request: <error>`, every one in the causes), as
 * upstream's generic policy dispatcher answers.
 *
 * Reinvocation (reinvocationPolicy IfNeeded), as upstream: when an invocation changes the object,
 * the IfNeeded invocations that ran before it are marked for the chain's reinvocation pass; in
 * that pass only the marked invocations run, and all IfNeeded invocations that ran are marked
 * again if a plugin after this one changed the object since this plugin's last output.
 */
import { deepCopy, semanticEqual } from "../../../apimachinery/deepcopy.js";
import { StatusError, type StatusReason } from "../../../apimachinery/errors.js";
import { parseGroupVersion } from "../../../apimachinery/gvk.js";
import { applyJsonPatch, isPatchError } from "../../../apimachinery/patch/index.js";
import type { KubeObject } from "../../../apimachinery/types.js";
import { Library, overload } from "../../cel/decls.js";
import type { Env } from "../../cel/env.js";
import { formatType, T } from "../../cel/types.js";
import { CelMap, StructValue, type Val } from "../../cel/values.js";
import { FieldManager } from "../../ssa/fieldmanager.js";
import { builtinTypeFor, deducedType, type TypeNode } from "../../ssa/schema.js";
import { merge } from "../../ssa/typed.js";
import type { AdmissionPluginContext, AdmissionPluginRegistration, AnyAdmissionPlugin } from "../chain.js";
import { admissionForbidden } from "../attributes.js";
import type { AdmissionAttributes } from "../interfaces.js";
import { compile, policyEnv, valToJSON, type Compiled } from "./cel.js";
import { CompiledPolicies, PolicyStatusWriter, type ExpressionWarning } from "./compiled.js";
import { matchesResources, type MatchResources } from "./matching.js";
import { collectParams, namespaceObject, PolicyConfigError, PolicyObjects, type ParamRef } from "./params.js";
import { evalMatchConditions, requestActivation } from "./validating.js";

interface MutationSpec {
  patchType?: string;
  applyConfiguration?: { expression?: string };
  jsonPatch?: { expression?: string };
}
interface PolicySpec {
  failurePolicy?: string;
  paramKind?: { apiVersion?: string; kind?: string };
  matchConstraints?: MatchResources;
  matchConditions?: { name?: string; expression?: string }[];
  variables?: { name?: string; expression?: string }[];
  mutations?: MutationSpec[];
  reinvocationPolicy?: string;
}
interface BindingSpec {
  policyName?: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
}

export const pluginName = "MutatingAdmissionPolicy";

/** jsonpatch.escapeKey: a key as a JSON Pointer segment (RFC 6901: `~` → `~0`, `/` → `~1`). */
export function escapeKey(s: string): string {
  return s.replace(/~/g, "~0").replace(/\//g, "~1");
}

const objectType = T.object("Object");
const jsonPatchType = T.object("JSONPatch");
let mutationEnv: Env | undefined;

/** The policy environment plus `Object{...}` / `Object.<path>{...}` / `JSONPatch{...}` and jsonpatch.escapeKey. */
export function mutationPolicyEnv(): Env {
  if (!mutationEnv) {
    const lib = new Library();
    lib.add("jsonpatch.escapeKey", overload("string_jsonpatch_escapekey", [T.string], T.string, ([s]) => escapeKey(s as string)));
    mutationEnv = policyEnv().extend({
      libraries: [lib],
      options: { structTypes: (name) => (name === "Object" ? objectType : name.startsWith("Object.") ? T.object(name) : name === "JSONPatch" ? jsonPatchType : undefined) },
    });
  }
  return mutationEnv;
}

type PatchType = "ApplyConfiguration" | "JSONPatch";

export interface CompiledMutatingPolicy {
  readonly name: string;
  readonly generation: number;
  readonly spec: PolicySpec;
  readonly failurePolicy: "Fail" | "Ignore";
  readonly reinvoke: boolean;
  readonly matchConditions: { name: string; compiled: Compiled }[];
  readonly variables: { name: string; compiled: Compiled }[];
  readonly mutations: { patchType: PatchType; compiled: Compiled }[];
  readonly warnings: ExpressionWarning[];
}

/** Compiles in the mutation environment; a checked result type other than `want` (or dyn) is a compile error. */
function compileMutationAt(expression: string, fieldRef: string, warnings: ExpressionWarning[], want?: "Object" | "list(JSONPatch)"): Compiled {
  const env = mutationPolicyEnv();
  let c = compile(expression, env);
  if (!c.error && want && c.type) {
    const name = formatType(c.type);
    if (name !== "dyn" && name !== want && !(want === "list(JSONPatch)" && name === "list(dyn)")) {
      c = { expression, error: `must evaluate to ${want} but got ${name}` };
    }
  }
  if (c.error) warnings.push({ fieldRef, warning: c.error });
  return c;
}

export function compileMutatingPolicy(policy: KubeObject): CompiledMutatingPolicy {
  const spec = ((policy as { spec?: PolicySpec }).spec ?? {}) as PolicySpec;
  const warnings: ExpressionWarning[] = [];
  return {
    name: policy.metadata?.name ?? "",
    generation: policy.metadata?.generation ?? 0,
    spec,
    failurePolicy: spec.failurePolicy === "Ignore" ? "Ignore" : "Fail",
    reinvoke: spec.reinvocationPolicy === "IfNeeded",
    matchConditions: (spec.matchConditions ?? []).map((m, i) => ({ name: m.name ?? "", compiled: compileMutationAt(m.expression ?? "", `spec.matchConditions[${i}].expression`, warnings) })),
    variables: (spec.variables ?? []).map((v, i) => ({ name: v.name ?? "", compiled: compileMutationAt(v.expression ?? "", `spec.variables[${i}].expression`, warnings) })),
    mutations: (spec.mutations ?? []).map((m, i) => {
      const patchType: PatchType = m.patchType === "JSONPatch" ? "JSONPatch" : "ApplyConfiguration";
      const isJSON = patchType === "JSONPatch";
      const expr = (isJSON ? m.jsonPatch?.expression : m.applyConfiguration?.expression) ?? "";
      const field = `spec.mutations[${i}].${isJSON ? "jsonPatch" : "applyConfiguration"}.expression`;
      return { patchType, compiled: compileMutationAt(expr, field, warnings, isJSON ? "list(JSONPatch)" : "Object") };
    }),
    warnings,
  };
}

/** An error of one invocation, answered by the policy's failurePolicy. */
class MutationError extends Error {
  constructor(
    message: string,
    readonly reason: StatusReason = "Invalid",
  ) {
    super(message);
  }
}

/** Object initializers must be named after their field path from the root (CheckTypeNamesMatchFieldPathNames). */
function typeNameMismatches(v: Val, path: string[]): string[] {
  const out: string[] = [];
  if (v instanceof StructValue) {
    const want = path.join(".");
    if (v.typeName !== want) out.push(`unexpected type name "${v.typeName}", expected "${want}", which matches field name path from root Object type`);
    for (const [k, f] of v.fields) out.push(...typeNameMismatches(f, [...path, k]));
  } else if (Array.isArray(v)) {
    for (const e of v) out.push(...typeNameMismatches(e, path));
  } else if (v instanceof CelMap) {
    for (const k of v.keys()) out.push(...typeNameMismatches(v.get(k) ?? null, path));
  }
  return out;
}

/** Paths (in structured-merge-diff's notation) where an apply configuration sets an atomic list, map or struct. */
function atomicPaths(v: unknown, t: TypeNode, path: string): string[] {
  const out: string[] = [];
  if (Array.isArray(v) && t.kind === "list") {
    if (t.listType === "atomic") out.push(path);
    v.forEach((e, i) => out.push(...atomicPaths(e, t.element, `${path}[${i}]`)));
  } else if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    if ((t.kind === "struct" || t.kind === "map") && t.atomic) out.push(path);
    for (const [k, f] of Object.entries(v as Record<string, unknown>)) {
      const ft = t.kind === "struct" ? t.field(k) : t.kind === "map" ? t.element : undefined;
      if (ft) out.push(...atomicPaths(f, ft, `${path}.${k}`));
    }
  }
  return out;
}

/** The structured-merge-diff type of `obj`'s kind: the server's field manager's (custom resources), else the built-in table. */
function applyTypeOf(ctx: AdmissionPluginContext, a: AdmissionAttributes, obj: KubeObject): TypeNode {
  const ft = ctx.registry().lookup(a.resource.group, a.resource.version, a.resource.resource)?.fieldTracker;
  if (ft instanceof FieldManager) return ft.typeOf(obj);
  const gv = parseGroupVersion(obj.apiVersion ?? "");
  return builtinTypeFor({ group: gv.group, version: gv.version, kind: obj.kind ?? "" }) ?? deducedType;
}

/** One mutation's result applied to `obj` (a new object); throws MutationError when it cannot apply. */
function applyMutation(ctx: AdmissionPluginContext, a: AdmissionAttributes, obj: KubeObject, patchType: PatchType, value: Val): KubeObject {
  if (patchType === "JSONPatch") {
    if (!Array.isArray(value)) throw new MutationError("type mismatch: JSONPatchType.expression should evaluate to array");
    const ops = value.map((op) => {
      if (!(op instanceof StructValue) || op.typeName !== "JSONPatch") throw new MutationError("type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch");
      const v = op.fields.get("value");
      if (v !== undefined) {
        const bad = typeNameMismatches(v, v instanceof StructValue ? [v.typeName] : []);
        if (v instanceof StructValue && bad.length) throw new MutationError(`type mismatch: ${bad.join("\n")}`);
      }
      return valToJSON(op);
    });
    try {
      return applyJsonPatch(obj, ops) as KubeObject;
    } catch (err) {
      // A failed test operation means "do not apply this patch".
      if (isPatchError(err) && err.message.endsWith("test failed")) return obj;
      throw new MutationError(`JSONPath: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (!(value instanceof StructValue) || value.typeName !== "Object") throw new MutationError(`unsupported return type from ApplyConfiguration expression`);
  const bad = typeNameMismatches(value, ["Object"]);
  if (bad.length) throw new MutationError(`type mismatch: ${bad.join("\n")}`);
  const config = valToJSON(value) as Record<string, unknown>;
  const t = applyTypeOf(ctx, a, obj);
  const atomics = atomicPaths(config, t, "");
  if (atomics.length) throw new MutationError(`error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomics.join(", ")}`);
  return merge(deepCopy(obj), config, t) as KubeObject;
}

/** Re-applies the resource's defaults to a mutated object (the main resource only; subresource views have none). */
function defaulted(ctx: AdmissionPluginContext, a: AdmissionAttributes, obj: KubeObject): KubeObject {
  if (a.subresource === "") ctx.registry().lookup(a.resource.group, a.resource.version, a.resource.resource)?.strategy.defaults(obj);
  return obj;
}

/** What this plugin keeps between the chain's two passes (upstream's policyReinvokeContext). */
class ReinvokeState {
  /** IfNeeded invocations that ran and are not (yet) marked for reinvocation. */
  private previouslyInvoked = new Set<string>();
  private readonly toReinvoke = new Set<string>();
  lastOutput: KubeObject | undefined;

  requireReinvokingPreviouslyInvoked(): void {
    for (const k of this.previouslyInvoked) this.toReinvoke.add(k);
    this.previouslyInvoked = new Set();
  }
  shouldReinvoke(key: string): boolean {
    return this.toReinvoke.has(key);
  }
  addReinvocable(key: string): void {
    this.previouslyInvoked.add(key);
  }
}

interface PolicyError {
  policy: string;
  binding: string;
  failurePolicy: "Fail" | "Ignore";
  message: string;
  reason: StatusReason;
}

export function mutatingAdmissionPolicyPlugin(ctx: AdmissionPluginContext): AnyAdmissionPlugin & { idle(): Promise<void> } {
  const cache = new CompiledPolicies(compileMutatingPolicy);
  const status = new PolicyStatusWriter(ctx, "mutatingadmissionpolicies", (p) => cache.get(p).warnings);
  const nsLabels = async (namespace: string) => (await namespaceObject(ctx, namespace))?.metadata?.labels;
  const stored = new PolicyObjects(ctx, ["mutatingadmissionpolicybindings", "mutatingadmissionpolicies"]);

  async function dispatch(a: AdmissionAttributes, bindings: readonly KubeObject[], state: ReinvokeState, isReinvoke: boolean): Promise<{ errors: PolicyError[]; changed: boolean }> {
    const errors: PolicyError[] = [];
    let changed = false;
    const policies = new Map((await stored.list("mutatingadmissionpolicies")).map((p) => [p.metadata?.name ?? "", p]));
    cache.retain(new Set([...policies.values()].map((p) => p.metadata?.uid ?? p.metadata?.name ?? "")));
    for (const binding of bindings) {
      const bspec = ((binding as { spec?: BindingSpec }).spec ?? {}) as BindingSpec;
      const policy = policies.get(bspec.policyName ?? "");
      if (!policy) continue;
      const p = cache.get(policy);
      const bindingName = binding.metadata?.name ?? "";
      const fail = (err: MutationError | string, reason: StatusReason = "Invalid") => {
        const message = typeof err === "string" ? err : err.message;
        errors.push({ policy: p.name, binding: bindingName, failurePolicy: p.failurePolicy, message, reason: typeof err === "string" ? reason : err.reason });
      };
      if (!(await matchesResources(p.spec.matchConstraints, a, nsLabels))) continue;
      if (!(await matchesResources(bspec.matchResources, a, nsLabels, false))) continue;
      let params: (KubeObject | undefined)[];
      try {
        params = await collectParams(ctx, p.spec.paramKind, bspec.paramRef, a);
      } catch (err) {
        if (!(err instanceof PolicyConfigError)) throw err;
        // The generic dispatcher's configuration errors keep admission.NewForbidden's reason.
        fail(`failed to configure binding: ${err.message}`, "Forbidden");
        continue;
      }
      for (const param of params) {
        const matched = evalMatchConditions(await requestActivation(ctx, a, param, p.variables), p.matchConditions);
        if (matched === "skip") continue;
        if (typeof matched === "object") {
          fail(matched.error);
          continue;
        }
        const key = JSON.stringify([p.name, bindingName, param?.metadata?.namespace ?? "", param?.metadata?.name ?? ""]);
        if (isReinvoke && !state.shouldReinvoke(key)) continue;
        const before = a.object;
        for (const m of p.mutations) {
          if (!a.object) continue;
          // Each mutation sees the object as the previous ones left it.
          const r = (await requestActivation(ctx, a, param, p.variables, a.object)).eval(m.compiled);
          if (r.error !== undefined) {
            fail(r.error);
            continue;
          }
          try {
            const next = applyMutation(ctx, a, a.object, m.patchType, r.value ?? null);
            if (next !== a.object) a.object = defaulted(ctx, a, next);
          } catch (err) {
            if (!(err instanceof MutationError)) throw err;
            fail(err);
          }
        }
        if (!semanticEqual(before, a.object)) {
          changed = true;
          state.requireReinvokingPreviouslyInvoked();
        }
        if (p.reinvoke) state.addReinvocable(key);
      }
    }
    return { errors, changed };
  }

  async function invoke(a: AdmissionAttributes, bindings: readonly KubeObject[]): Promise<void> {
    const reinvocation = a.reinvocation;
    let state = reinvocation?.values.get(pluginName) as ReinvokeState | undefined;
    if (!state) {
      state = new ReinvokeState();
      reinvocation?.values.set(pluginName, state);
    }
    const isReinvoke = reinvocation?.isReinvoke === true;
    // Later plugins changed the object since this plugin's output: every IfNeeded invocation runs again.
    if (isReinvoke && state.lastOutput && !semanticEqual(state.lastOutput, a.object)) state.requireReinvokingPreviouslyInvoked();
    let result: { errors: PolicyError[]; changed: boolean };
    try {
      result = await dispatch(a, bindings, state, isReinvoke);
    } finally {
      state.lastOutput = a.object ? deepCopy(a.object) : undefined;
    }
    if (result.changed && reinvocation) reinvocation.shouldReinvoke = true;
    const denied = result.errors.filter((e) => e.failurePolicy === "Fail");
    if (denied.length === 0) return;
    const messages = denied.map((e) => `policy '${e.policy}' with binding '${e.binding}' denied request: ${e.message}`);
    const base = admissionForbidden(a, "admission request denied by policy");
    throw new StatusError({
      message: messages[0],
      reason: denied[0].reason,
      code: 403,
      details: { ...base.status.details, causes: messages.map((message) => ({ message })) },
    });
  }

  return {
    name: pluginName,
    handles: (op) => op === "CREATE" || op === "UPDATE",
    async start() {
      await stored.start();
      await status.start();
    },
    async stop() {
      await status.stop();
      await stored.stop();
    },
    idle: () => status.idle(),
    admit(a: AdmissionAttributes) {
      if (!a.object) return;
      // Without bindings no policy runs (nor can it be re-run): no reinvocation state, no copy of
      // the object, no read and no promise — the common case, for every created and updated object.
      const bindings = stored.cached("mutatingadmissionpolicybindings");
      if (bindings) return bindings.length === 0 ? undefined : invoke(a, bindings);
      return stored.list("mutatingadmissionpolicybindings").then((b) => (b.length === 0 ? undefined : invoke(a, b)));
    },
  };
}

export const mutatingAdmissionPolicy: AdmissionPluginRegistration = { name: pluginName, create: (ctx) => mutatingAdmissionPolicyPlugin(ctx) };
