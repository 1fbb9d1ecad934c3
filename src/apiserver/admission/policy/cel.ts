/**
 * CEL for admission policies (k8s.io/apiserver/pkg/admission/plugin/cel and policy/...): the
 * environment (object, oldObject, request, params, namespaceObject, authorizer,
 * authorizer.requestResource, variables), compilation once per expression with the error text
 * kept for the policy's status and for requests, lazy `variables`, the `authorizer` library
 * against the server's authorizer, and CEL values back to JSON.
 */
import type { KubeObject } from "../../../apimachinery/types.js";
import { CompileError } from "../../cel/source.js";
import { Env, type Program } from "../../cel/env.js";
import { Library, memberOverload } from "../../cel/decls.js";
import { kubernetesEnv } from "../../cel/kubernetes.js";
import { jsonToVal } from "../../cel/schema.js";
import { T, type CelType } from "../../cel/types.js";
import { CelDuration, CelError, CelMap, CelObject, CelOptional, CelTimestamp, CelTypeValue, CelUint, ExtensionValue, StructValue, type Val } from "../../cel/values.js";
import type { Decision } from "../../rbac/authorizer.js";
import type { Attributes as AuthorizationAttributes } from "../../rbac/attributes.js";
import type { UserInfo } from "../../auth/user.js";
import type { AdmissionAttributes } from "../interfaces.js";

/** celconfig.PerCallLimit: the runtime cost limit of one expression. */
export const perCallLimit = 1_000_000;

// ---- the authorizer library (library/authz.go) ------------------------------------------------

export const PathCheckType = T.object("kubernetes.authorization.PathCheck");
export const GroupCheckType = T.object("kubernetes.authorization.GroupCheck");
export const ResourceCheckType = T.object("kubernetes.authorization.ResourceCheck");
/** The authorizer; `authorizer.requestResource` is a ResourceCheck of the request's own resource. */
export const AuthorizerType = T.object("kubernetes.authorization.Authorizer", { field: (n) => (n === "requestResource" ? ResourceCheckType : undefined) });
export const DecisionType = T.object("kubernetes.authorization.Decision");

export type Authorize = ((attrs: AuthorizationAttributes) => Decision) | undefined;

class AuthorizerValue extends ExtensionValue {
  readonly celType = AuthorizerType;
  constructor(
    readonly authorize: Authorize,
    readonly user: UserInfo,
    private readonly request?: ResourceFields,
  ) {
    super();
  }
  override getField(name: string): Val | undefined {
    return name === "requestResource" && this.request ? new ResourceCheckValue(this, this.request) : undefined;
  }
  equals(o: CelObject): boolean {
    return o === this;
  }
}
class PathCheckValue extends ExtensionValue {
  readonly celType = PathCheckType;
  constructor(
    readonly authz: AuthorizerValue,
    readonly path: string,
  ) {
    super();
  }
  equals(o: CelObject): boolean {
    return o === this;
  }
}
class GroupCheckValue extends ExtensionValue {
  readonly celType = GroupCheckType;
  constructor(
    readonly authz: AuthorizerValue,
    readonly group: string,
  ) {
    super();
  }
  equals(o: CelObject): boolean {
    return o === this;
  }
}
interface ResourceFields {
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}
class ResourceCheckValue extends ExtensionValue {
  readonly celType = ResourceCheckType;
  constructor(
    readonly authz: AuthorizerValue,
    readonly f: ResourceFields,
  ) {
    super();
  }
  with(patch: Partial<ResourceFields>): ResourceCheckValue {
    return new ResourceCheckValue(this.authz, { ...this.f, ...patch });
  }
  equals(o: CelObject): boolean {
    return o === this;
  }
}
class DecisionValue extends ExtensionValue {
  readonly celType = DecisionType;
  constructor(readonly d: Decision & { error?: string }) {
    super();
  }
  equals(o: CelObject): boolean {
    return o === this;
  }
}

function decide(authz: AuthorizerValue, attrs: Omit<AuthorizationAttributes, "user">): DecisionValue {
  // Without authorization configured the server allows every request: so does the library.
  if (!authz.authorize) return new DecisionValue({ allowed: true, reason: "" });
  try {
    return new DecisionValue(authz.authorize({ ...attrs, user: authz.user }));
  } catch (err) {
    return new DecisionValue({ allowed: false, reason: "", error: err instanceof Error ? err.message : String(err) });
  }
}

export function authzLibrary(): Library {
  const lib = new Library();
  const s = (v: Val) => v as string;
  lib.add("path", memberOverload("authorizer_path", [AuthorizerType, T.string], PathCheckType, ([a, p]) => new PathCheckValue(a as AuthorizerValue, s(p))));
  lib.add("group", memberOverload("authorizer_group", [AuthorizerType, T.string], GroupCheckType, ([a, g]) => new GroupCheckValue(a as AuthorizerValue, s(g))));
  lib.add(
    "serviceAccount",
    memberOverload("authorizer_serviceaccount", [AuthorizerType, T.string, T.string], AuthorizerType, ([a, ns, name]) => {
      const authz = a as AuthorizerValue;
      const user: UserInfo = { username: `system:serviceaccount:${s(ns)}:${s(name)}`, groups: ["system:serviceaccounts", `system:serviceaccounts:${s(ns)}`, "system:authenticated"] };
      return new AuthorizerValue(authz.authorize, user);
    }),
  );
  lib.add(
    "resource",
    memberOverload("groupcheck_resource", [GroupCheckType, T.string], ResourceCheckType, ([g, r]) => {
      const gc = g as GroupCheckValue;
      return new ResourceCheckValue(gc.authz, { group: gc.group, resource: s(r), subresource: "", namespace: "", name: "" });
    }),
  );
  lib.add("subresource", memberOverload("resourcecheck_subresource", [ResourceCheckType, T.string], ResourceCheckType, ([r, v]) => (r as ResourceCheckValue).with({ subresource: s(v) })));
  lib.add("namespace", memberOverload("resourcecheck_namespace", [ResourceCheckType, T.string], ResourceCheckType, ([r, v]) => (r as ResourceCheckValue).with({ namespace: s(v) })));
  lib.add("name", memberOverload("resourcecheck_name", [ResourceCheckType, T.string], ResourceCheckType, ([r, v]) => (r as ResourceCheckValue).with({ name: s(v) })));
  lib.add(
    "check",
    memberOverload("pathcheck_check", [PathCheckType, T.string], DecisionType, ([p, verb]) => {
      const pc = p as PathCheckValue;
      return decide(pc.authz, { verb: s(verb), resourceRequest: false, path: pc.path, apiGroup: "", apiVersion: "", namespace: "", resource: "", subresource: "", name: "" });
    }),
    memberOverload("resourcecheck_check", [ResourceCheckType, T.string], DecisionType, ([r, verb]) => {
      const rc = r as ResourceCheckValue;
      return decide(rc.authz, { verb: s(verb), resourceRequest: true, path: "", apiGroup: rc.f.group, apiVersion: "*", namespace: rc.f.namespace, resource: rc.f.resource, subresource: rc.f.subresource, name: rc.f.name });
    }),
  );
  lib.add("allowed", memberOverload("decision_allowed", [DecisionType], T.bool, ([d]) => (d as DecisionValue).d.allowed));
  lib.add("reason", memberOverload("decision_reason", [DecisionType], T.string, ([d]) => (d as DecisionValue).d.reason));
  lib.add("errored", memberOverload("decision_errored", [DecisionType], T.bool, ([d]) => (d as DecisionValue).d.error !== undefined));
  lib.add("error", memberOverload("decision_error", [DecisionType], T.string, ([d]) => (d as DecisionValue).d.error ?? ""));
  return lib;
}

/** The `authorizer` of a request: checks as its user; `requestResource` checks its own resource. */
export function authorizerValue(authorize: Authorize, a: AdmissionAttributes): CelObject {
  return new AuthorizerValue(authorize, a.userInfo, { group: a.resource.group, resource: a.resource.resource, subresource: a.subresource, namespace: a.namespace, name: a.name });
}

// ---- environment and compilation ---------------------------------------------------------------

let policyBase: Env | undefined;

/** The environment every policy expression compiles in (all variables dynamically typed). */
export function policyEnv(): Env {
  policyBase ??= kubernetesEnv().extend({
    variables: {
      object: T.dyn,
      oldObject: T.dyn,
      request: T.dyn,
      params: T.dyn,
      namespaceObject: T.dyn,
      variables: T.dyn,
      authorizer: AuthorizerType,
    },
    libraries: [authzLibrary()],
  });
  return policyBase;
}

export interface Compiled {
  readonly expression: string;
  readonly program?: Program;
  /** The checked type of the expression's result (when it compiled). */
  readonly type?: CelType;
  /** "compilation failed: ERROR: <input>:1:5: ..." when it does not compile. */
  readonly error?: string;
}

export function compile(expression: string, env: Env = policyEnv()): Compiled {
  try {
    const ast = env.compile(expression);
    return { expression, program: env.program(ast, { costLimit: perCallLimit }), type: ast.types.get(ast.expr.id) };
  } catch (err) {
    if (err instanceof CompileError) return { expression, error: `compilation failed: ${err.message}` };
    return { expression, error: `compilation failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** The activation of one request: lazily evaluated `variables` included. */
export class Activation {
  readonly vars: Record<string, Val | undefined>;

  constructor(vars: Record<string, Val | undefined>, variables?: readonly { name: string; compiled: Compiled }[]) {
    this.vars = { ...vars };
    if (variables) this.vars.variables = new LazyVariables(variables, this);
  }

  /** Evaluates a compiled expression: its value, or a CelError ("expression '...' resulted in error: ..."). */
  eval(c: Compiled): { value?: Val; error?: string } {
    if (c.error) return { error: c.error };
    const r = c.program!.eval(this.vars, { costLimit: perCallLimit });
    if (r.error) return { error: `expression '${c.expression}' resulted in error: ${r.error.message}` };
    return { value: r.value };
  }
}

/** `variables.<name>`: each variable evaluated when first used, then kept (upstream's lazy composition). */
class LazyVariables extends CelMap {
  private readonly values = new Map<string, { value?: Val; error?: string }>();
  constructor(
    private readonly defs: readonly { name: string; compiled: Compiled }[],
    private readonly activation: Activation,
  ) {
    super();
  }
  get size(): number {
    return this.defs.length;
  }
  get(key: Val): Val | undefined {
    if (typeof key !== "string") return undefined;
    const def = this.defs.find((d) => d.name === key);
    if (!def) return undefined;
    let r = this.values.get(key);
    if (!r) {
      r = this.activation.eval(def.compiled);
      this.values.set(key, r);
    }
    if (r.error !== undefined) throw new CelError(r.error);
    return r.value ?? null;
  }
  keys(): Val[] {
    return this.defs.map((d) => d.name);
  }
}

/** A JSON value (object, request, params) as a CEL value; absent → null. */
export function jsonVal(v: unknown): Val {
  return v === undefined ? null : jsonToVal(v);
}

/** The `request` variable (admission.k8s.io/v1 AdmissionRequest, as policies see it). */
export function requestVal(a: AdmissionAttributes): Val {
  const user: Record<string, unknown> = { username: a.userInfo.username, groups: a.userInfo.groups };
  if (a.userInfo.uid) user.uid = a.userInfo.uid;
  if (a.userInfo.extra) user.extra = a.userInfo.extra;
  return jsonToVal({
    kind: a.kind,
    resource: a.resource,
    subResource: a.subresource,
    requestKind: a.kind,
    requestResource: a.resource,
    requestSubResource: a.subresource,
    name: a.name,
    namespace: a.namespace,
    operation: a.operation,
    userInfo: user,
    dryRun: a.dryRun,
    ...(a.options ? { options: a.options } : {}),
  });
}

/** A CEL value as JSON (for messages, audit annotations and mutations). */
export function valToJSON(v: Val): unknown {
  if (v === null) return null;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "string") return v;
  if (v instanceof CelUint) return Number(v.v);
  if (v instanceof Uint8Array) return Buffer.from(v).toString("base64");
  if (Array.isArray(v)) return v.map(valToJSON);
  if (v instanceof CelOptional) return v.hasValue() ? valToJSON(v.value!) : null;
  if (v instanceof CelTimestamp) return new Date(Number(v.ns / 1_000_000n)).toISOString().replace(/\.000Z$/, "Z");
  if (v instanceof CelDuration) return `${Number(v.ns) / 1e9}s`;
  if (v instanceof CelTypeValue) return v.name;
  if (v instanceof StructValue) {
    const out: Record<string, unknown> = {};
    for (const [k, f] of v.fields) out[k] = valToJSON(f);
    return out;
  }
  if (v instanceof CelMap) {
    const out: Record<string, unknown> = {};
    for (const k of v.keys()) out[String(k)] = valToJSON(v.get(k) ?? null);
    return out;
  }
  if (v instanceof CelObject && "toJSON" in v && typeof (v as { toJSON: unknown }).toJSON === "function") return (v as unknown as { toJSON(): unknown }).toJSON();
  if (v instanceof CelObject && "raw" in v) return (v as unknown as { raw: unknown }).raw;
  throw new CelError("value cannot be converted to JSON");
}

/** The namespace object as policies see it (namespaceObject): null for cluster-scoped requests. */
export function namespaceVal(ns: KubeObject | undefined): Val {
  return ns ? jsonToVal(ns) : null;
}

