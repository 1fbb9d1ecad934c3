/**
 * A webhook's `matchConditions` (k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions):
 * CEL expressions over `object`, `oldObject` (dyn; null when absent), `request` (the
 * AdmissionRequest, typed) and `namespaceObject` (null for webhooks), compiled once per webhook
 * with the Kubernetes base environment, each required to be a bool.
 *
 * Match semantics, as upstream:
 * - any condition false → the webhook is skipped (whatever else errored);
 * - otherwise, any evaluation (or compilation) error → failurePolicy: Fail refuses the request
 *   (the caller answers 403 with the errors), Ignore skips the webhook;
 * - all true → the webhook is called.
 * The conditions of one webhook share the runtime budget RuntimeCELCostBudgetMatchConditions
 * (2,500,000); each call is also capped at PerCallLimit (1,000,000).
 *
 * Not supported: the `authorizer` variables (kubeloop's CEL has no authz library yet); an
 * expression using them fails to compile.
 */
import { kubernetesEnv } from "../../cel/kubernetes.js";
import type { Program } from "../../cel/env.js";
import { DeclType, jsonToVal, schemaDeclType, toVal } from "../../cel/schema.js";
import { CompileError } from "../../cel/source.js";
import { T, formatType } from "../../cel/types.js";
import type { Schema } from "../../crd/schema.js";
import type { KubeObject } from "../../../apimachinery/types.js";
import type { AdmissionRequestJSON } from "../request.js";

export const RUNTIME_COST_BUDGET_MATCH_CONDITIONS = 2_500_000;
export const PER_CALL_LIMIT = 1_000_000;

const str: Schema = { type: "string" };
const gvkSchema: Schema = { type: "object", required: ["group", "version", "kind"], properties: { group: str, version: str, kind: str } };
const gvrSchema: Schema = { type: "object", required: ["group", "version", "resource"], properties: { group: str, version: str, resource: str } };
const requestSchema: Schema = {
  type: "object",
  required: ["kind", "resource", "requestKind", "requestResource", "name", "operation", "userInfo"],
  properties: {
    kind: gvkSchema,
    resource: gvrSchema,
    subResource: str,
    requestKind: gvkSchema,
    requestResource: gvrSchema,
    requestSubResource: str,
    name: str,
    namespace: str,
    operation: str,
    userInfo: {
      type: "object",
      properties: {
        username: str,
        uid: str,
        groups: { type: "array", items: str },
        extra: { type: "object", additionalProperties: { type: "array", items: str } },
      },
    },
    dryRun: { type: "boolean" },
  },
};

let requestDecl: DeclType | undefined;

/** BuildRequestType: `request`'s CEL type (kubernetes.AdmissionRequest; `options` is dyn). */
export function admissionRequestDeclType(): DeclType {
  if (!requestDecl) {
    const d = schemaDeclType(requestSchema, false)!;
    d.fields!.set("options", { property: "options", required: false, type: new DeclType("scalar", { name: "dyn", scalar: T.dyn, minSerializedSize: 1 }) });
    requestDecl = d.assignTypeNames("kubernetes.AdmissionRequest");
  }
  return requestDecl;
}

let env: ReturnType<typeof kubernetesEnv> | undefined;

function matchEnv() {
  env ??= kubernetesEnv().extend({
    variables: { object: T.dyn, oldObject: T.dyn, namespaceObject: T.dyn, request: admissionRequestDeclType().celType },
  });
  return env;
}

interface CompiledCondition {
  name: string;
  expression: string;
  program?: Program;
  error?: string;
}

export interface MatchConditionInput {
  name: string;
  expression: string;
}

export type MatchResult = { matches: true } | { matches: false; failedCondition?: string } | { matches: false; error: string };

/** One webhook's compiled conditions. */
export class MatchConditions {
  private readonly compiled: CompiledCondition[];

  constructor(
    conditions: readonly MatchConditionInput[],
    private readonly failurePolicy: "Fail" | "Ignore",
  ) {
    this.compiled = conditions.map((c) => compileCondition(c));
  }

  get empty(): boolean {
    return this.compiled.length === 0;
  }

  match(input: { object: KubeObject | undefined; oldObject: KubeObject | undefined; request: AdmissionRequestJSON }): MatchResult {
    const vars = {
      object: input.object ? jsonToVal(input.object) : null,
      oldObject: input.oldObject ? jsonToVal(input.oldObject) : null,
      namespaceObject: null,
      request: toVal(input.request, admissionRequestDeclType()),
    };
    let budget = RUNTIME_COST_BUDGET_MATCH_CONDITIONS;
    const errors: string[] = [];
    for (const c of this.compiled) {
      if (!c.program) {
        errors.push(`compilation error: ${c.error}`);
        continue;
      }
      const limit = Math.min(PER_CALL_LIMIT, budget);
      const r = c.program.eval(vars, { costLimit: limit });
      const outOfBudget = r.cost > budget || (r.error?.fatal === true && limit < PER_CALL_LIMIT);
      if (outOfBudget) return this.onError("validation failed due to running out of cost budget, no further validation rules will be run");
      budget -= r.cost;
      if (r.error) {
        errors.push(`expression '${c.expression}' resulted in error: ${r.error.message}`);
        continue;
      }
      if (r.value === false) return { matches: false, failedCondition: c.name };
    }
    if (errors.length) return this.onError(errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`);
    return { matches: true };
  }

  private onError(error: string): MatchResult {
    return this.failurePolicy === "Fail" ? { matches: false, error } : { matches: false };
  }
}

function compileCondition(c: MatchConditionInput): CompiledCondition {
  const e = matchEnv();
  try {
    const ast = e.compile(c.expression);
    if (ast.resultType.kind !== "bool") return { ...c, error: `must evaluate to bool but got ${formatType(ast.resultType)}` };
    return { ...c, program: e.program(ast, { costLimit: PER_CALL_LIMIT }) };
  } catch (err) {
    if (err instanceof CompileError) return { ...c, error: `compilation failed: ${err.message}` };
    throw err;
  }
}
