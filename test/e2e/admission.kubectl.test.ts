/**
 * Admission as kubectl 1.35 meets it, with upstream's messages: Pod Security's enforce label,
 * NamespaceLifecycle in a terminating namespace, a ValidatingAdmissionPolicy with its binding,
 * a MutatingAdmissionPolicy, and ResourceQuota usage in `kubectl describe quota`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";
import { Kubectl } from "./kubectl.js";

let api: RunningApiServer;
let k: Kubectl;

beforeAll(async () => {
  api = await startApiServer({ port: 0 });
  k = new Kubectl(api.kubeconfigPath);
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

const privilegedPod = `apiVersion: v1
kind: Pod
metadata:
  name: priv
spec:
  containers:
  - name: c
    image: nginx
    securityContext:
      privileged: true
`;

const deployment = (name: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: c
        image: nginx
`;

describe("admission through kubectl", () => {
  it("refuses a privileged pod in a namespace labelled pod-security.kubernetes.io/enforce=restricted", async () => {
    await k.ok(["create", "namespace", "locked"]);
    await k.ok(["label", "namespace", "locked", "pod-security.kubernetes.io/enforce=restricted"]);
    const file = await k.manifest("priv.yaml", privilegedPod);
    const r = await k.run(["apply", "-n", "locked", "-f", file]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe(
      `Error from server (Forbidden): error when creating "${file}": pods "priv" is forbidden: violates PodSecurity "restricted:latest": privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`,
    );
    expect((await k.run(["get", "pod", "priv", "-n", "locked"])).code).not.toBe(0);
    // The same pod is admitted where no level is enforced.
    await k.ok(["apply", "-f", file]);
  });

  it("refuses kubectl create in a terminating namespace", async () => {
    await k.ok(["create", "namespace", "leaving"]);
    // A finalizer on something inside keeps the namespace Terminating.
    await k.ok(["apply", "-n", "leaving", "-f", await k.manifest("held.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  finalizers: [example.com/hold]\n")]);
    await k.ok(["delete", "namespace", "leaving", "--wait=false"]);
    expect((await k.ok(["get", "namespace", "leaving", "-o", "jsonpath={.status.phase}"])).trim()).toBe("Terminating");
    const r = await k.run(["create", "configmap", "late", "-n", "leaving", "--from-literal=a=b"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe('error: failed to create configmap: configmaps "late" is forbidden: unable to create new content in namespace leaving because it is being terminated');
    await k.ok(["patch", "configmap", "held", "-n", "leaving", "--type=merge", "-p", '{"metadata":{"finalizers":null}}']);
  });

  it("denies a Deployment with too many replicas through a ValidatingAdmissionPolicy and its binding", async () => {
    const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: max-replicas
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments]
  validations:
  - expression: object.spec.replicas <= 5
    message: replicas must be no greater than 5
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: max-replicas-binding
spec:
  policyName: max-replicas
  validationActions: [Deny]
`;
    const file = await k.manifest("vap.yaml", policy);
    await k.ok(["apply", "-f", file]);
    const r = await k.run(["apply", "-f", await k.manifest("big.yaml", deployment("big", 6))]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe(
      `The deployments "big" is invalid: : ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: replicas must be no greater than 5`,
    );
    await k.ok(["apply", "-f", await k.manifest("small.yaml", deployment("small", 2))]);
    // An update is checked too (UPDATE is in the rules); deployments/scale is not matched by "deployments".
    const patch = await k.run(["patch", "deployment", "small", "--type=merge", "-p", '{"spec":{"replicas":9}}']);
    expect(patch.code).not.toBe(0);
    expect(patch.stderr.trim()).toBe(
      `The deployments "small" is invalid: : ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: replicas must be no greater than 5`,
    );
    await k.ok(["scale", "deployment", "small", "--replicas=9"]);
    await k.ok(["delete", "-f", file]);
  });

  it("labels objects through a MutatingAdmissionPolicy", async () => {
    const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: team-label
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [configmaps]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"team": "platform"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: team-label-binding
spec:
  policyName: team-label
`;
    const file = await k.manifest("map.yaml", policy);
    await k.ok(["apply", "-f", file]);
    await k.ok(["create", "configmap", "labelled", "--from-literal=a=b"]);
    expect((await k.ok(["get", "configmap", "labelled", "-o", "jsonpath={.metadata.labels.team}"])).trim()).toBe("platform");
    await k.ok(["delete", "-f", file]);
  });

  it("shows ResourceQuota usage in kubectl describe quota and refuses what passes it", async () => {
    await k.ok(["create", "namespace", "quoted"]);
    await k.ok(["create", "quota", "q", "-n", "quoted", "--hard=configmaps=3,pods=4,requests.cpu=1"]);
    await k.ok(["create", "configmap", "one", "-n", "quoted", "--from-literal=a=b"]);
    await k.ok(["run", "p", "-n", "quoted", "--image=nginx", "--overrides", '{"spec":{"containers":[{"name":"p","image":"nginx","resources":{"requests":{"cpu":"250m"}}}]}}']);
    const out = await k.ok(["describe", "quota", "q", "-n", "quoted"]);
    const rows = out
      .split("\n")
      .map((l) => l.trim().split(/\s+/))
      .filter((cols) => ["configmaps", "pods", "requests.cpu"].includes(cols[0]));
    // configmaps: the one created plus kube-root-ca.crt, if the server publishes it.
    const used = Object.fromEntries(rows.map((c) => [c[0], [c[1], c[2]]]));
    expect(used.pods).toEqual(["1", "4"]);
    expect(used["requests.cpu"]).toEqual(["250m", "1"]);
    expect(Number(used.configmaps[0])).toBeGreaterThanOrEqual(1);
    expect(used.configmaps[1]).toBe("3");
    const big = await k.run(["run", "big", "-n", "quoted", "--image=nginx", "--overrides", '{"spec":{"containers":[{"name":"big","image":"nginx","resources":{"requests":{"cpu":"1"}}}]}}']);
    expect(big.code).not.toBe(0);
    expect(big.stderr.trim()).toBe('Error from server (Forbidden): pods "big" is forbidden: exceeded quota: q, requested: requests.cpu=1, used: requests.cpu=250m, limited: requests.cpu=1');
  });
});
