/**
 * ValidatingAdmissionPolicy (k8s.io/apiserver/pkg/admission/plugin/policy/validating): CEL
 * validations bound to requests by ValidatingAdmissionPolicyBindings.
 *
 * For a request, every binding whose policy exists and whose policy matchConstraints and
 * binding matchResources select the request is evaluated once per parameter object (paramKind +
 * paramRef) or once without: matchConditions (all must be true), then each validation
 * (`expression`, `message` / `messageExpression`, `reason`), then auditAnnotations. A failed
 * validation is, per the binding's validationActions, a denial (Deny: `<resource> "<name>" is
 * forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: <message>`, with
 * the reason's code — Invalid 422 by default), a warning (Warn: `Validation failed for
 * ValidatingAdmissionPolicy 'p' with binding 'b': <message>`) and/or an audit annotation
 * (Audit). Evaluation errors and configuration errors (missing params, unknown paramKind) deny
 * under failurePolicy Fail and are ignored under Ignore.
 *
 * Policies and bindings are read per request from a cache kept in step with storage as each write
 * commits (params.ts PolicyObjects; so a policy applies from the moment it is stored, and a
 * request without bindings is done synchronously); their expressions are compiled once per
 * policy generation (compiled.ts).
 */
import { StatusError, type StatusReason } from "../../../apimachinery/errors.js";
import type { KubeObject } from "../../../apimachinery/types.js";
import type { AdmissionPluginContext, AdmissionPluginRegistration, AnyAdmissionPlugin } from "../chain.js";
import { admissionForbidden } from "../attributes.js";
import type { AdmissionAttributes } from "../interfaces.js";
import { Activation, authorizerValue, jsonVal, namespaceVal, requestVal, valToJSON, type Compiled } from "./cel.js";
import { compileAt, CompiledPolicies, PolicyStatusWriter, type ExpressionWarning } from "./compiled.js";
import { matchesResources, type MatchResources } from "./matching.js";
import { collectParams, namespaceObject, PolicyConfigError, PolicyObjects, type ParamRef } from "./params.js";

interface PolicySpec {
  failurePolicy?: string;
  paramKind?: { apiVersion?: string; kind?: string };
  matchConstraints?: MatchResources;
  matchConditions?: { name?: string; expression?: string }[];
  variables?: { name?: string; expression?: string }[];
  validations?: { expression?: string; message?: string; messageExpression?: string; reason?: string }[];
  auditAnnotations?: { key?: string; valueExpression?: string }[];
}
interface BindingSpec {
  policyName?: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
  validationActions?: string[];
}

export interface CompiledValidatingPolicy {
  readonly name: string;
  readonly generation: number;
  readonly spec: PolicySpec;
  readonly failurePolicy: "Fail" | "Ignore";
  readonly matchConditions: { name: string; compiled: Compiled }[];
  readonly variables: { name: string; compiled: Compiled }[];
  readonly validations: { compiled: Compiled; message?: Compiled; staticMessage: string; reason: StatusReason }[];
  readonly auditAnnotations: { key: string; compiled: Compiled }[];
  readonly warnings: ExpressionWarning[];
}

/** celconfig.MaxEvaluatedMessageExpressionSizeBytes. */
const maxMessageExpressionBytes = 5 * 1024;

export function compileValidatingPolicy(policy: KubeObject): CompiledValidatingPolicy {
  const spec = ((policy as { spec?: PolicySpec }).spec ?? {}) as PolicySpec;
  const warnings: ExpressionWarning[] = [];
  return {
    name: policy.metadata?.name ?? "",
    generation: policy.metadata?.generation ?? 0,
    spec,
    failurePolicy: spec.failurePolicy === "Ignore" ? "Ignore" : "Fail",
    matchConditions: (spec.matchConditions ?? []).map((m, i) => ({ name: m.name ?? "", compiled: compileAt(m.expression ?? "", `spec.matchConditions[${i}].expression`, warnings) })),
    variables: (spec.variables ?? []).map((v, i) => ({ name: v.name ?? "", compiled: compileAt(v.expression ?? "", `spec.variables[${i}].expression`, warnings) })),
    validations: (spec.validations ?? []).map((v, i) => ({
      compiled: compileAt(v.expression ?? "", `spec.validations[${i}].expression`, warnings),
      message: v.messageExpression ? compileAt(v.messageExpression, `spec.validations[${i}].messageExpression`, warnings) : undefined,
      staticMessage: v.message ?? "",
      reason: (v.reason ?? "Invalid") as StatusReason,
    })),
    auditAnnotations: (spec.auditAnnotations ?? []).map((x, i) => ({ key: x.key ?? "", compiled: compileAt(x.valueExpression ?? "", `spec.auditAnnotations[${i}].valueExpression`, warnings) })),
    warnings,
  };
}

function reasonToCode(reason: StatusReason): number {
  switch (reason) {
    case "Forbidden":
      return 403;
    case "Unauthorized":
      return 401;
    case "RequestEntityTooLarge":
      return 413;
    default:
      return 422;
  }
}

interface Decision {
  action: "deny" | "admit";
  message: string;
  reason: StatusReason;
  /** Evaluation/configuration errors (failurePolicy applies), not validation failures. */
  error?: boolean;
  expressionIndex?: number;
}

/** The variables every policy expression of one request sees (also used by MutatingAdmissionPolicy). */
export async function requestActivation(
  ctx: AdmissionPluginContext,
  a: AdmissionAttributes,
  params: KubeObject | undefined,
  variables: readonly { name: string; compiled: Compiled }[],
  object: KubeObject | undefined = a.object,
): Promise<Activation> {
  const ns = a.resource.group === "" && a.resource.resource === "namespaces" ? undefined : await namespaceObject(ctx, a.namespace);
  return new Activation(
    {
      object: jsonVal(a.operation === "DELETE" ? undefined : object),
      oldObject: jsonVal(a.oldObject),
      request: requestVal(a),
      params: jsonVal(params),
      namespaceObject: namespaceVal(ns),
      authorizer: authorizerValue(ctx.authorize, a),
    },
    variables,
  );
}

/** matchConditions: undefined when all are true, "skip" when one is false, or an error message. */
export function evalMatchConditions(act: Activation, conditions: readonly { name: string; compiled: Compiled }[]): "match" | "skip" | { error: string } {
  for (const m of conditions) {
    const r = act.eval(m.compiled);
    if (r.error !== undefined) return { error: `failed to evaluate match condition '${m.name}': ${r.error}` };
    if (r.value !== true) {
      if (typeof r.value !== "boolean") return { error: `failed to evaluate match condition '${m.name}': match condition must evaluate to bool` };
      return "skip";
    }
  }
  return "match";
}

function validate(p: CompiledValidatingPolicy, act: Activation): Decision[] {
  const out: Decision[] = [];
  p.validations.forEach((v, i) => {
    const r = act.eval(v.compiled);
    if (r.error !== undefined) {
      out.push({ action: "deny", message: r.error, reason: "Invalid", error: true, expressionIndex: i });
      return;
    }
    if (r.value === true) return;
    if (typeof r.value !== "boolean") {
      out.push({ action: "deny", message: `validation expression must evaluate to bool`, reason: "Invalid", error: true, expressionIndex: i });
      return;
    }
    let message = "";
    if (v.message) {
      const m = act.eval(v.message);
      if (m.error !== undefined) {
        out.push({ action: "deny", message: `failed messageExpression: ${m.error}`, reason: "Invalid", error: true, expressionIndex: i });
        return;
      }
      if (typeof m.value === "string") {
        message = m.value.trim();
        if (Buffer.byteLength(message) > maxMessageExpressionBytes || message.includes("\n")) message = "";
      }
    }
    if (message === "") message = v.staticMessage.trim() || `failed expression: ${v.compiled.expression.trim()}`;
    out.push({ action: "deny", message, reason: v.reason, expressionIndex: i });
  });
  return out;
}

export function validatingAdmissionPolicyPlugin(ctx: AdmissionPluginContext): AnyAdmissionPlugin & { idle(): Promise<void> } {
  const cache = new CompiledPolicies(compileValidatingPolicy);
  const status = new PolicyStatusWriter(ctx, "validatingadmissionpolicies", (p) => cache.get(p).warnings);
  const nsLabels = async (namespace: string) => (await namespaceObject(ctx, namespace))?.metadata?.labels;
  const stored = new PolicyObjects(ctx, ["validatingadmissionpolicybindings", "validatingadmissionpolicies"]);

  async function evaluate(a: AdmissionAttributes, bindings: readonly KubeObject[]): Promise<void> {
    const policies = new Map((await stored.list("validatingadmissionpolicies")).map((p) => [p.metadata?.name ?? "", p]));
    cache.retain(new Set([...policies.values()].map((p) => p.metadata?.uid ?? p.metadata?.name ?? "")));
    const denied: { policy: string; binding: string; decision: Decision }[] = [];
    const audits: Record<string, unknown>[] = [];
    for (const binding of bindings) {
      const bspec = ((binding as { spec?: BindingSpec }).spec ?? {}) as BindingSpec;
      const policy = policies.get(bspec.policyName ?? "");
      if (!policy) continue;
      const p = cache.get(policy);
      const bindingName = binding.metadata?.name ?? "";
      if (!(await matchesResources(p.spec.matchConstraints, a, nsLabels))) continue;
      if (!(await matchesResources(bspec.matchResources, a, nsLabels, false))) continue;
      const actions = new Set(bspec.validationActions ?? []);
      const fail = (message: string): void => {
        if (p.failurePolicy === "Fail") denied.push({ policy: p.name, binding: bindingName, decision: { action: "deny", message: `failed to configure binding: ${message}`, reason: "Invalid", error: true } });
      };
      let params: (KubeObject | undefined)[];
      try {
        params = await collectParams(ctx, p.spec.paramKind, bspec.paramRef, a);
      } catch (err) {
        if (err instanceof PolicyConfigError) {
          fail(err.message);
          continue;
        }
        throw err;
      }
      for (const param of params) {
        const act = await requestActivation(ctx, a, param, p.variables);
        const matched = evalMatchConditions(act, p.matchConditions);
        if (matched === "skip") continue;
        if (typeof matched === "object") {
          if (p.failurePolicy === "Fail") denied.push({ policy: p.name, binding: bindingName, decision: { action: "deny", message: matched.error, reason: "Invalid", error: true } });
          continue;
        }
        for (const d of validate(p, act)) {
          if (d.error && p.failurePolicy === "Ignore") continue;
          if (d.error || actions.has("Deny")) denied.push({ policy: p.name, binding: bindingName, decision: d });
          if (!d.error && actions.has("Warn")) a.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${p.name}' with binding '${bindingName}': ${d.message}`);
          if (!d.error && actions.has("Audit")) audits.push({ message: d.message, policy: p.name, binding: bindingName, expressionIndex: d.expressionIndex, validationActions: [...actions] });
        }
        for (const ann of p.auditAnnotations) {
          const r = act.eval(ann.compiled);
          if (r.error !== undefined) {
            if (p.failurePolicy === "Fail") denied.push({ policy: p.name, binding: bindingName, decision: { action: "deny", message: r.error, reason: "Invalid", error: true } });
            continue;
          }
          const value = r.value === null || r.value === undefined ? undefined : valToJSON(r.value);
          if (typeof value === "string") a.auditAnnotations.set(`${p.name}/${ann.key}`, value);
        }
      }
    }
    if (audits.length) a.auditAnnotations.set("validation.policy.admission.k8s.io/validation_failure", JSON.stringify(audits));
    if (denied.length === 0) return;
    const first = denied[0];
    const message = `ValidatingAdmissionPolicy '${first.policy}' with binding '${first.binding}' denied request: ${first.decision.message}`;
    const base = admissionForbidden(a, message);
    const reason = first.decision.reason || "Invalid";
    throw new StatusError({
      message: base.status.message,
      reason,
      code: reasonToCode(reason),
      details: { ...base.status.details, causes: [{ message }] },
    });
  }

  return {
    name: "ValidatingAdmissionPolicy",
    handles: (op) => op === "CREATE" || op === "UPDATE" || op === "DELETE" || op === "CONNECT",
    async start() {
      await stored.start();
      await status.start();
    },
    async stop() {
      await status.stop();
      await stored.stop();
    },
    idle: () => status.idle(),
    validate(a) {
      // Without bindings no policy applies: done without a read or a promise (the common case).
      const bindings = stored.cached("validatingadmissionpolicybindings");
      if (bindings) return bindings.length === 0 ? undefined : evaluate(a, bindings);
      return stored.list("validatingadmissionpolicybindings").then((b) => (b.length === 0 ? undefined : evaluate(a, b)));
    },
  };
}

export const validatingAdmissionPolicy: AdmissionPluginRegistration = { name: "ValidatingAdmissionPolicy", create: (ctx) => validatingAdmissionPolicyPlugin(ctx) };
