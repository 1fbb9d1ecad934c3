/**
 * admissionregistration.k8s.io/v1: defaults and validation restated from upstream's
 * pkg/apis/admissionregistration/v1/defaults_test.go and validation/validation_test.go (the
 * cases users hit), plus generation and status behaviour of the strategies.
 */
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import {
  mutatingAdmissionPolicyBindingStrategy,
  mutatingAdmissionPolicyStrategy,
  validatingAdmissionPolicyBindingStrategy,
  validatingAdmissionPolicyStrategy,
} from "./admissionpolicies.js";
import { mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy } from "./admissionwebhooks.js";
import type { ResourceStrategy } from "./strategy.js";

function create(s: ResourceStrategy, obj: KubeObject): string[] {
  s.defaults(obj);
  s.prepareForCreate(obj);
  return s.validate(obj).map(String);
}

function update(s: ResourceStrategy, old: KubeObject, mutate: (o: KubeObject) => void): { obj: KubeObject; errs: string[] } {
  s.defaults(old);
  s.prepareForCreate(old);
  Object.assign(old.metadata as object, { resourceVersion: "1", uid: "u" });
  const obj = structuredClone(old);
  mutate(obj);
  s.defaults(obj);
  s.prepareForUpdate(obj, old);
  return { obj, errs: s.validateUpdate(obj, old).map(String) };
}

const rule = { operations: ["CREATE"], apiGroups: ["a"], apiVersions: ["a"], resources: ["a"] };
const hook = (over: Record<string, unknown> = {}) => ({
  name: "webhook.k8s.io",
  clientConfig: { url: "https://example.com" },
  sideEffects: "None",
  admissionReviewVersions: ["v1"],
  rules: [rule],
  ...over,
});
const vwc = (...webhooks: object[]): KubeObject => ({ metadata: { name: "config" }, webhooks });
type Hook = Record<string, unknown>;
const hooksOf = (o: KubeObject) => o.webhooks as Hook[];

describe("webhook configurations: defaults", () => {
  it("fills in upstream's defaults for validating and mutating webhooks", () => {
    const v = vwc(hook({ clientConfig: { service: { namespace: "ns", name: "svc" } } }));
    expect(create(validatingWebhookConfigurationStrategy, v)).toEqual([]);
    expect(hooksOf(v)[0]).toMatchObject({
      failurePolicy: "Fail",
      matchPolicy: "Equivalent",
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
      rules: [{ ...rule, scope: "*" }],
      clientConfig: { service: { namespace: "ns", name: "svc", port: 443 } },
    });
    expect(hooksOf(v)[0].reinvocationPolicy).toBeUndefined();
    const m = vwc(hook());
    expect(create(mutatingWebhookConfigurationStrategy, m)).toEqual([]);
    expect(hooksOf(m)[0].reinvocationPolicy).toBe("Never");
  });

  it("does not default sideEffects or admissionReviewVersions in v1", () => {
    const v = vwc(hook({ sideEffects: undefined, admissionReviewVersions: undefined }));
    expect(create(validatingWebhookConfigurationStrategy, v)).toEqual([
      "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun",
      "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1",
    ]);
  });
});

describe("webhook configurations: validation", () => {
  const cases: [string, Hook[], string[]][] = [
    ["webhook name must be fully qualified", [hook({ name: "k8s.io" })], ['webhooks[0].name: Invalid value: "k8s.io": should be a domain with at least three segments separated by dots']],
    ["webhook names must be unique", [hook(), hook()], ['webhooks[1].name: Duplicate value: "webhook.k8s.io"']],
    ["sideEffects must be None or NoneOnDryRun on create", [hook({ sideEffects: "Some" })], ['webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"']],
    [
      "admissionReviewVersions must include a known version",
      [hook({ admissionReviewVersions: ["invalid-v1"] })],
      ['webhooks[0].admissionReviewVersions: Invalid value: []string{"invalid-v1"}: must include at least one of v1, v1beta1'],
    ],
    ["admissionReviewVersions must be unique", [hook({ admissionReviewVersions: ["v1", "v1"] })], ['webhooks[0].admissionReviewVersions[1]: Invalid value: "v1": duplicate version']],
    ["operations are required", [hook({ rules: [{ ...rule, operations: [] }] })], ["webhooks[0].rules[0].operations: Required value"]],
    [
      "'*' excludes other operations",
      [hook({ rules: [{ ...rule, operations: ["*", "CREATE"] }] })],
      ['webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "CREATE"}: if \'*\' is present, must not specify other operations'],
    ],
    [
      "operations are known ones",
      [hook({ rules: [{ ...rule, operations: ["PATCH"] }] })],
      ['webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"'],
    ],
    [
      "'*/*' excludes other resources",
      [hook({ rules: [{ ...rule, resources: ["*/*", "a"] }] })],
      ['webhooks[0].rules[0].resources: Invalid value: []string{"*/*", "a"}: if \'*/*\' is present, must not specify other resources'],
    ],
    ["'a/*' excludes a/x", [hook({ rules: [{ ...rule, resources: ["a/*", "a/x"] }] })], ["webhooks[0].rules[0].resources[1]: Invalid value: \"a/x\": if 'a/*' is present, must not specify a/x"]],
    ["apiVersions are required", [hook({ rules: [{ ...rule, apiVersions: [] }] })], ["webhooks[0].rules[0].apiVersions: Required value"]],
    ["scope is a known one", [hook({ rules: [{ ...rule, scope: "Other" }] })], ['webhooks[0].rules[0].scope: Unsupported value: "Other": supported values: "*", "Cluster", "Namespaced"']],
    [
      "exactly one of url and service",
      [hook({ clientConfig: { url: "https://a.example.com", service: { namespace: "ns", name: "n" } } })],
      ["webhooks[0].clientConfig: Required value: exactly one of url or service is required"],
    ],
    ["url must be https", [hook({ clientConfig: { url: "http://example.com" } })], ['webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]']],
    ["url must have a host", [hook({ clientConfig: { url: "https:///path" } })], ['webhooks[0].clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]']],
    [
      "url may not carry user info, query or fragment",
      [hook({ clientConfig: { url: "https://u:p@example.com/p?q=1#frag" } })],
      [
        'webhooks[0].clientConfig.url: Invalid value: "u:p": user information is not permitted in the URL',
        'webhooks[0].clientConfig.url: Invalid value: "frag": fragments are not permitted in the URL',
        'webhooks[0].clientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL',
      ],
    ],
    [
      "service needs namespace and name, a valid path",
      [hook({ clientConfig: { service: { path: "foo/" } } })],
      [
        "webhooks[0].clientConfig.service.name: Required value",
        "webhooks[0].clientConfig.service.namespace: Required value",
        "webhooks[0].clientConfig.service.path: Invalid value: \"foo/\": must start with a '/'",
      ],
    ],
    [
      "service path segments are DNS subdomains",
      [hook({ clientConfig: { service: { namespace: "ns", name: "n", path: "/Foo" } } })],
      [
        "webhooks[0].clientConfig.service.path: Invalid value: \"/Foo\": segment[0]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
    [
      "service port must be valid",
      [hook({ clientConfig: { service: { namespace: "ns", name: "n", port: 65536 } } })],
      ["webhooks[0].clientConfig.service.port: Invalid value: 65536: port is not valid: must be between 1 and 65535, inclusive"],
    ],
    ["timeout between 1 and 30", [hook({ timeoutSeconds: 31 })], ["webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds"]],
    ["failurePolicy", [hook({ failurePolicy: "fail" })], ['webhooks[0].failurePolicy: Unsupported value: "fail": supported values: "Fail", "Ignore"']],
    ["matchPolicy", [hook({ matchPolicy: "Other" })], ['webhooks[0].matchPolicy: Unsupported value: "Other": supported values: "Equivalent", "Exact"']],
    [
      "selectors are validated strictly",
      [hook({ namespaceSelector: { matchExpressions: [{ key: "a", operator: "In", values: [] }] } })],
      ["webhooks[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"],
    ],
    [
      "match conditions need names and expressions",
      [hook({ matchConditions: [{ name: "", expression: " " }, { name: "a b", expression: "true" }] })],
      [
        "webhooks[0].matchConditions[0].expression: Required value",
        "webhooks[0].matchConditions[0].name: Required value",
        "webhooks[0].matchConditions[1].name: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ],
  ];
  it.each(cases)("%s", (_, webhooks, want) => {
    expect(create(validatingWebhookConfigurationStrategy, vwc(...structuredClone(webhooks)))).toEqual(want);
  });

  it("mutating webhooks check reinvocationPolicy", () => {
    expect(create(mutatingWebhookConfigurationStrategy, vwc(hook({ reinvocationPolicy: "Always" })))).toEqual([
      'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
    ]);
  });
});

describe("webhook configurations: updates", () => {
  it("tolerate what the stored object already had (sideEffects Some, duplicate names)", () => {
    const old = vwc(hook({ sideEffects: "Some" }), hook({ sideEffects: "Some" }));
    expect(update(validatingWebhookConfigurationStrategy, old, (o) => (hooksOf(o)[0].timeoutSeconds = 5)).errs).toEqual([]);
    // Once every webhook is side-effect free the rule applies again.
    const clean = vwc(hook());
    expect(update(validatingWebhookConfigurationStrategy, clean, (o) => (hooksOf(o)[0].sideEffects = "Unknown")).errs).toEqual([
      'webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"',
    ]);
  });

  it("bump generation when the webhooks change, not for metadata", () => {
    const old = vwc(hook());
    expect(old.metadata?.generation).toBeUndefined();
    let r = update(validatingWebhookConfigurationStrategy, old, (o) => (o.metadata!.labels = { a: "b" }));
    expect(r.obj.metadata?.generation).toBe(1);
    r = update(validatingWebhookConfigurationStrategy, old, (o) => (hooksOf(o)[0].timeoutSeconds = 5));
    expect(r.obj.metadata?.generation).toBe(2);
  });
});

const matchConstraints = { resourceRules: [{ operations: ["CREATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"] }] };
const vap = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: "policy" }, spec: { matchConstraints: structuredClone(matchConstraints), validations: [{ expression: "true" }], ...spec } });

describe("ValidatingAdmissionPolicy", () => {
  it("defaults failurePolicy and the match constraints", () => {
    const p = vap({});
    expect(create(validatingAdmissionPolicyStrategy, p)).toEqual([]);
    expect(p.spec).toMatchObject({
      failurePolicy: "Fail",
      matchConstraints: { matchPolicy: "Equivalent", namespaceSelector: {}, objectSelector: {}, resourceRules: [{ scope: "*" }] },
    });
    expect(p.metadata?.generation).toBe(1);
    expect(p.status).toEqual({});
  });

  const cases: [string, Record<string, unknown>, string[]][] = [
    ["matchConstraints are required", { matchConstraints: undefined }, ["spec.matchConstraints: Required value"]],
    ["resource rules are required", { matchConstraints: {} }, ["spec.matchConstraints.resourceRules: Required value"]],
    [
      "validations or auditAnnotations",
      { validations: [] },
      ["spec.validations: Required value: validations or auditAnnotations must contain at least one item", "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item"],
    ],
    ["expression is required", { validations: [{ expression: "" }] }, ["spec.validations[0].expression: Required value: expression is not specified"]],
    ["message without line breaks", { validations: [{ expression: "true", message: "a\nb" }] }, ['spec.validations[0].message: Invalid value: "a\\nb": message must not contain line breaks']],
    [
      "reason is a known one",
      { validations: [{ expression: "true", reason: "Other" }] },
      ['spec.validations[0].reason: Unsupported value: "Other": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"'],
    ],
    ["paramKind needs apiVersion and kind", { paramKind: {} }, ["spec.paramKind.apiVersion: Required value", "spec.paramKind.kind: Required value"]],
    [
      "paramKind kind is a DNS-1035 label ignoring case",
      { paramKind: { apiVersion: "v1", kind: "Config_Map" } },
      [
        "spec.paramKind.kind: Invalid value: \"Config_Map\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
    ["variables are CEL identifiers", { variables: [{ name: "1x", expression: "true" }] }, ['spec.variables[0].name: Invalid value: "1x": name is not a valid CEL identifier']],
    [
      "audit annotation keys are unique",
      { validations: [], auditAnnotations: [{ key: "a", valueExpression: "'x'" }, { key: "a", valueExpression: "'y'" }] },
      ['spec.auditAnnotations[1].key: Duplicate value: "a"'],
    ],
    ["failurePolicy is Fail or Ignore", { failurePolicy: "Never" }, ['spec.failurePolicy: Unsupported value: "Never": supported values: "Fail", "Ignore"']],
  ];
  it.each(cases)("%s", (_, spec, want) => {
    expect(create(validatingAdmissionPolicyStrategy, vap(spec))).toEqual(want);
  });

  it("keeps status on spec updates and bumps generation; status updates keep the spec", () => {
    const old = vap({});
    const r = update(validatingAdmissionPolicyStrategy, old, (o) => {
      (o.spec as Record<string, unknown>).failurePolicy = "Ignore";
      o.status = { observedGeneration: 9 };
    });
    expect(r.errs).toEqual([]);
    expect(r.obj.metadata?.generation).toBe(2);
    expect(r.obj.status).toEqual({});
    const st = structuredClone(old);
    st.status = { observedGeneration: 1, typeChecking: { expressionWarnings: [{ fieldRef: "", warning: "" }] } };
    (st.spec as Record<string, unknown>).failurePolicy = "Ignore";
    validatingAdmissionPolicyStrategy.prepareForStatusUpdate(st, old);
    expect((st.spec as Record<string, unknown>).failurePolicy).toBe("Fail");
    expect(validatingAdmissionPolicyStrategy.validateStatusUpdate(st, old).map(String)).toEqual([
      "status.typeChecking.expressionWarnings[0].warning: Required value",
      "status.typeChecking.expressionWarnings[0].fieldRef: Required value",
    ]);
  });
});

const binding = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: "b" }, spec: { policyName: "policy", validationActions: ["Deny"], ...spec } });

describe("ValidatingAdmissionPolicyBinding", () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["policyName is required", { policyName: "" }, ["spec.policyName: Required value"]],
    ["validationActions are required", { validationActions: [] }, ["spec.validationActions: Required value: at least one validation action is required"]],
    [
      "Deny and Warn exclude each other",
      { validationActions: ["Deny", "Warn"] },
      [
        'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ],
    ],
    ["actions are known and unique", { validationActions: ["Audit", "Audit", "Log"] }, ['spec.validationActions[1]: Duplicate value: "Audit"', 'spec.validationActions[2]: Unsupported value: "Log": supported values: "Audit", "Deny", "Warn"']],
    [
      "paramRef name and selector exclude each other",
      { paramRef: { name: "p", selector: {} } },
      ["spec.paramRef.name: Forbidden: name and selector are mutually exclusive", "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive"],
    ],
    ["paramRef needs name or selector", { paramRef: {} }, ["spec.paramRef: Required value: one of name or selector must be specified"]],
    ["parameterNotFoundAction", { paramRef: { name: "p", parameterNotFoundAction: "Ignore" } }, ['spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"']],
  ];
  it.each(cases)("%s", (_, spec, want) => {
    expect(create(validatingAdmissionPolicyBindingStrategy, binding(spec))).toEqual(want);
  });

  it("defaults parameterNotFoundAction and match resources", () => {
    const b = binding({ paramRef: { name: "p" }, matchResources: {} });
    expect(create(validatingAdmissionPolicyBindingStrategy, b)).toEqual([]);
    expect(b.spec).toMatchObject({ paramRef: { parameterNotFoundAction: "Deny" }, matchResources: { matchPolicy: "Equivalent", namespaceSelector: {}, objectSelector: {} } });
  });
});

describe("MutatingAdmissionPolicy", () => {
  const map = (spec: Record<string, unknown>): KubeObject => ({
    metadata: { name: "m" },
    spec: { matchConstraints: structuredClone(matchConstraints), reinvocationPolicy: "Never", mutations: [{ patchType: "JSONPatch", jsonPatch: { expression: "[]" } }], ...spec },
  });
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["valid", {}, []],
    ["mutations are required", { mutations: [] }, ["spec.mutations: Required value: mutations must contain at least one item"]],
    ["reinvocationPolicy is required", { reinvocationPolicy: undefined }, ["spec.reinvocationPolicy: Required value"]],
    [
      "patchType decides which expression",
      { mutations: [{ patchType: "ApplyConfiguration", jsonPatch: { expression: "[]" } }] },
      ["spec.mutations[0].applyConfiguration: Required value: must be specified when patchType is ApplyConfiguration", "spec.mutations[0].jsonPatch: Forbidden: must not be specified when patchType is ApplyConfiguration"],
    ],
    ["patchType is known", { mutations: [{ patchType: "Merge" }] }, ['spec.mutations[0].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"']],
  ];
  it.each(cases)("%s", (_, spec, want) => {
    expect(create(mutatingAdmissionPolicyStrategy, map(spec))).toEqual(want);
  });

  it("bindings need a policy name", () => {
    expect(create(mutatingAdmissionPolicyBindingStrategy, { metadata: { name: "b" }, spec: {} })).toEqual(["spec.policyName: Required value"]);
  });
});
