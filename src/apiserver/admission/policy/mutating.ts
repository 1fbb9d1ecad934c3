/**
 * MutatingAdmissionPolicy (admissionregistration.k8s.io/v1, served by default in 1.36;
 * k8s.io/apiserver/pkg/admission/plugin/policy/mutating): CEL mutations bound to requests by
 * MutatingAdmissionPolicyBindings, matched like ValidatingAdmissionPolicies (matchConstraints,
 * binding matchResources, paramKind/paramRef, matchConditions, variables).
 *
 * Mutations, applied in order to the request's object:
 * - ApplyConfiguration: `Object{metadata: Object.metadata{labels: {"a": "b"}}}` — the partial
 *   object merged into the object (maps merged, lists merged by their patch merge keys where
 *   the kind has them, otherwise replaced: the strategic-merge rules the server-side apply
 *   schema shares; custom resources merge as a JSON merge patch);
 * - JSONPatch: `[JSONPatch{op: "add", path: "/metadata/labels/a", value: "b"}]` (RFC 6902, with
 *   `jsonpatch.escapeKey` for path segments).
 * reinvocationPolicy IfNeeded runs the policy again in the chain's reinvocation pass (when a
 * later plugin changed the object); a policy that changes the object asks for that pass.
 * Evaluation and configuration errors deny under failurePolicy Fail
 * (`MutatingAdmissionPolicy 'p' with binding 'b' denied request: <error>`; kubeloop's text).
 */
import { deepCopy, semanticEqual } from "../../../apimachinery/deepcopy.js";
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, patchMetaForKind } from "../../../apimachinery/patch/index.js";
import type { KubeObject } from "../../../apimachinery/types.js";
import { Library, overload } from "../../cel/decls.js";
import type { Env } from "../../cel/env.js";
import { T } from "../../cel/types.js";
import { StructValue, type Val } from "../../cel/values.js";
import type { AdmissionPluginContext, AdmissionPluginRegistration, AnyAdmissionPlugin } from "../chain.js";
import { admissionForbidden } from "../attributes.js";
import type { AdmissionAttributes } from "../interfaces.js";
import { compile, policyEnv, valToJSON, type Compiled } from "./cel.js";
import { compileAt, CompiledPolicies, PolicyStatusWriter, type ExpressionWarning } from "./compiled.js";
import { matchesResources, type MatchResources } from "./matching.js";
import { collectParams, namespaceObject, PolicyConfigError, storedObjects, type ParamRef } from "./params.js";
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

function escapeKey(s: string): string {
  return s.replace(/~/g, "~0").replace(/\//g, "~1");
}

let mutationEnv: Env | undefined;

/** The policy environment with Object{...} / JSONPatch{...} constructions and jsonpatch.escapeKey. */
export function mutationPolicyEnv(): Env {
  if (!mutationEnv) {
    const lib = new Library();
    lib.add("jsonpatch.escapeKey", overload("string_jsonpatch_escapekey", [T.string], T.string, ([s]) => escapeKey(s as string)));
    mutationEnv = policyEnv().extend({
      libraries: [lib],
      options: { structTypes: (name) => (name === "Object" || name.startsWith("Object.") || name === "JSONPatch" ? T.object(name) : undefined) },
    });
  }
  return mutationEnv;
}

export interface CompiledMutatingPolicy {
  readonly name: string;
  readonly generation: number;
  readonly spec: PolicySpec;
  readonly failurePolicy: "Fail" | "Ignore";
  readonly reinvoke: boolean;
  readonly matchConditions: { name: string; compiled: Compiled }[];
  readonly variables: { name: string; compiled: Compiled }[];
  readonly mutations: { patchType: string; compiled: Compiled }[];
  readonly warnings: ExpressionWarning[];
}

export function compileMutatingPolicy(policy: KubeObject): CompiledMutatingPolicy {
  const spec = ((policy as { spec?: PolicySpec }).spec ?? {}) as PolicySpec;
  const warnings: ExpressionWarning[] = [];
  const env = mutationPolicyEnv();
  return {
    name: policy.metadata?.name ?? "",
    generation: policy.metadata?.generation ?? 0,
    spec,
    failurePolicy: spec.failurePolicy === "Ignore" ? "Ignore" : "Fail",
    reinvoke: spec.reinvocationPolicy === "IfNeeded",
    matchConditions: (spec.matchConditions ?? []).map((m, i) => ({ name: m.name ?? "", compiled: compileAt(m.expression ?? "", `spec.matchConditions[${i}].expression`, warnings) })),
    variables: (spec.variables ?? []).map((v, i) => ({ name: v.name ?? "", compiled: compileAt(v.expression ?? "", `spec.variables[${i}].expression`, warnings) })),
    mutations: (spec.mutations ?? []).map((m, i) => {
      const isJSON = m.patchType === "JSONPatch";
      const expr = (isJSON ? m.jsonPatch?.expression : m.applyConfiguration?.expression) ?? "";
      const field = `spec.mutations[${i}].${isJSON ? "jsonPatch" : "applyConfiguration"}.expression`;
      const compiled = compile(expr, env);
      if (compiled.error) warnings.push({ fieldRef: field, warning: compiled.error });
      return { patchType: isJSON ? "JSONPatch" : "ApplyConfiguration", compiled };
    }),
    warnings,
  };
}

/** A constructed Object{...} (nested Object.x{...} included) as a JSON object. */
function structToJSON(v: Val): unknown {
  if (v instanceof StructValue) {
    const out: Record<string, unknown> = {};
    for (const [k, f] of v.fields) out[k] = structToJSON(f);
    return out;
  }
  if (Array.isArray(v)) return v.map(structToJSON);
  return valToJSON(v);
}

/** Applies one mutation's result to `obj`; throws a message when the result has the wrong shape. */
function applyMutation(obj: KubeObject, patchType: string, value: Val): KubeObject {
  if (patchType === "JSONPatch") {
    if (!Array.isArray(value)) throw new Error("JSONPatch expression must evaluate to a list of JSONPatch");
    const ops = value.map((op) => {
      if (!(op instanceof StructValue) || op.typeName !== "JSONPatch") throw new Error("JSONPatch expression must evaluate to a list of JSONPatch");
      return structToJSON(op);
    });
    return applyJsonPatch(obj, ops) as KubeObject;
  }
  if (!(value instanceof StructValue) || value.typeName !== "Object") throw new Error("ApplyConfiguration expression must evaluate to an Object{...}");
  const config = structToJSON(value) as Record<string, unknown>;
  const [group, version] = (obj.apiVersion ?? "").includes("/") ? (obj.apiVersion as string).split("/") : ["", obj.apiVersion ?? ""];
  const meta = patchMetaForKind(group, version, obj.kind ?? "");
  return (meta ? applyStrategicMergePatch(obj, config, meta) : applyMergePatch(obj, config)) as KubeObject;
}

export function mutatingAdmissionPolicyPlugin(ctx: AdmissionPluginContext): AnyAdmissionPlugin & { idle(): Promise<void> } {
  const cache = new CompiledPolicies(compileMutatingPolicy);
  const status = new PolicyStatusWriter(ctx, "mutatingadmissionpolicies", (p) => cache.get(p).warnings);
  const nsLabels = async (namespace: string) => (await namespaceObject(ctx, namespace))?.metadata?.labels;
  const name = "MutatingAdmissionPolicy";

  return {
    name,
    handles: (op) => op === "CREATE" || op === "UPDATE",
    start: () => status.start(),
    stop: () => status.stop(),
    idle: () => status.idle(),
    async admit(a: AdmissionAttributes) {
      if (!a.object) return;
      const reinvocation = a.reinvocation;
      // Which (policy, binding) pairs ran in the first pass, for the reinvocation pass.
      const ranBefore = (reinvocation?.values.get(name) as Set<string> | undefined) ?? new Set<string>();
      if (reinvocation && !reinvocation.isReinvoke) reinvocation.values.set(name, ranBefore);
      const bindings = await storedObjects(ctx, "mutatingadmissionpolicybindings");
      if (bindings.length === 0) return;
      const policies = new Map((await storedObjects(ctx, "mutatingadmissionpolicies")).map((p) => [p.metadata?.name ?? "", p]));
      cache.retain(new Set([...policies.values()].map((p) => p.metadata?.uid ?? p.metadata?.name ?? "")));
      let changed = false;
      for (const binding of bindings) {
        const bspec = ((binding as { spec?: BindingSpec }).spec ?? {}) as BindingSpec;
        const stored = policies.get(bspec.policyName ?? "");
        if (!stored) continue;
        const p = cache.get(stored);
        const bindingName = binding.metadata?.name ?? "";
        const pairKey = `${p.name}\u0000${bindingName}`;
        if (reinvocation?.isReinvoke && !(p.reinvoke && ranBefore.has(pairKey))) continue;
        if (!(await matchesResources(p.spec.matchConstraints, a, nsLabels))) continue;
        if (!(await matchesResources(bspec.matchResources, a, nsLabels, false))) continue;
        const deny = (message: string): void => {
          if (p.failurePolicy === "Ignore") return;
          throw admissionForbidden(a, `MutatingAdmissionPolicy '${p.name}' with binding '${bindingName}' denied request: ${message}`);
        };
        let params: (KubeObject | undefined)[];
        try {
          params = await collectParams(ctx, p.spec.paramKind, bspec.paramRef, a);
        } catch (err) {
          if (err instanceof PolicyConfigError) {
            deny(`failed to configure binding: ${err.message}`);
            continue;
          }
          throw err;
        }
        for (const param of params) {
          const act = await requestActivation(ctx, a, param, p.variables);
          const matched = evalMatchConditions(act, p.matchConditions);
          if (matched === "skip") continue;
          if (typeof matched === "object") {
            deny(matched.error);
            continue;
          }
          if (!reinvocation?.isReinvoke) ranBefore.add(pairKey);
          for (const m of p.mutations) {
            // Each mutation sees the object as the previous ones left it.
            const step = await requestActivation(ctx, a, param, p.variables, a.object);
            const r = step.eval(m.compiled);
            if (r.error !== undefined) {
              deny(r.error);
              continue;
            }
            let next: KubeObject;
            try {
              next = applyMutation(a.object!, m.patchType, r.value ?? null);
            } catch (err) {
              deny(err instanceof Error ? err.message : String(err));
              continue;
            }
            if (!semanticEqual(next, a.object)) {
              a.object = deepCopy(next);
              changed = true;
            }
          }
        }
      }
      if (changed && reinvocation && !reinvocation.isReinvoke) reinvocation.shouldReinvoke = true;
    },
  };
}

export const mutatingAdmissionPolicy: AdmissionPluginRegistration = { name: "MutatingAdmissionPolicy", create: (ctx) => mutatingAdmissionPolicyPlugin(ctx) };
