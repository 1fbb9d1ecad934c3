/**
 * The real kubectl 1.35 with CEL-validated CRDs: `kubectl apply` of the published Gateway API
 * and Karpenter CRDs, the projects' own examples accepted, invalid objects refused with the
 * project's message in kube-apiserver's text, a transition rule on `kubectl apply` of a change,
 * and a CRD whose rule does not compile refused with cel-go's issue text.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";
import { Kubectl } from "./kubectl.js";

const data = (p: string) => fileURLToPath(new URL(`../cel/crds/${p}`, import.meta.url));

let api: RunningApiServer;
let k: Kubectl;

beforeAll(async () => {
  api = await startApiServer({ port: 0 });
  k = new Kubectl(api.kubeconfigPath);
});
afterAll(() => api.stop());

describe("kubectl with CEL rules of published CRDs", () => {
  it("applies the Gateway API and Karpenter CRDs and waits for them", async () => {
    for (const f of ["gateway-api/gateways.yaml", "gateway-api/gatewayclasses.yaml", "gateway-api/httproutes.yaml", "karpenter/karpenter.sh_nodepools.yaml", "karpenter/karpenter.k8s.aws_ec2nodeclasses.yaml"]) {
      const out = await k.ok(["apply", "--server-side", "-f", data(f)]);
      expect(out).toMatch(/serverside-applied/);
    }
    await k.ok(["wait", "--for=condition=Established", "--timeout=30s", "crd/gateways.gateway.networking.k8s.io", "crd/httproutes.gateway.networking.k8s.io", "crd/nodepools.karpenter.sh"]);
  });

  it("accepts the projects' examples", async () => {
    expect(await k.ok(["apply", "-f", data("gateway-api/examples/basic-http.yaml")])).toContain("httproute.gateway.networking.k8s.io/http-app-1 created");
    const out = await k.ok(["apply", "-f", data("karpenter/examples/general-purpose.yaml")]);
    expect(out).toContain("nodepool.karpenter.sh/general-purpose created");
    expect(out).toContain("ec2nodeclass.karpenter.k8s.aws/default created");
  });

  it("refuses a Gateway with duplicate listener names with the project's message", async () => {
    const gw = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: dup
spec:
  gatewayClassName: example
  listeners:
  - name: http
    protocol: HTTP
    port: 80
  - name: http
    protocol: HTTP
    port: 8080
`;
    const r = await k.run(["apply", "-f", "-"], gw);
    expect(r.code).not.toBe(0);
    // The list is a list-type map keyed by name, so the duplicate key is reported too (as upstream).
    expect(r.stderr).toContain(`The Gateway "dup" is invalid: `);
    expect(r.stderr).toContain(`* spec.listeners: Invalid value: "array": Listener name must be unique within the Gateway`);
  });

  it("refuses an HTTPRoute filter without its field, at the filter's path", async () => {
    const route = readFileSync(data("gateway-api/examples/basic-http.yaml"), "utf8")
      .split(/^---$/m)
      .find((d) => d.includes("kind: HTTPRoute"))!
      .replace("name: http-app-1", "name: broken")
      .replace("    backendRefs:\n    - name: my-service1", "    filters:\n    - type: RequestHeaderModifier\n    backendRefs:\n    - name: my-service1");
    const r = await k.run(["apply", "-f", "-"], route);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      `The HTTPRoute "broken" is invalid: spec.rules[0].filters[0]: Invalid value: "object": filter.requestHeaderModifier must be specified for RequestHeaderModifier filter.type`,
    );
  });

  it("enforces a transition rule when a change is applied", async () => {
    const changed = readFileSync(data("karpenter/examples/general-purpose.yaml"), "utf8")
      .split(/^---$/m)
      .find((d) => d.includes("kind: NodePool"))!
      .replace("kind: EC2NodeClass", "kind: OtherNodeClass");
    const r = await k.run(["apply", "-f", "-"], changed);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`The NodePool "general-purpose" is invalid: spec.template.spec.nodeClassRef: Invalid value: "object": nodeClassRef.kind is immutable`);
  });

  it("refuses a CRD whose rule does not compile", async () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: bad.example.com
spec:
  group: example.com
  scope: Namespaced
  names: { plural: bad, singular: bad, kind: Bad }
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: { type: integer }
            x-kubernetes-validations:
            - rule: self.replicas == true
`;
    const r = await k.run(["apply", "-f", "-"], crd);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      `The CustomResourceDefinition "bad.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.replicas == true", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, bool)'`,
    );
  });
});
