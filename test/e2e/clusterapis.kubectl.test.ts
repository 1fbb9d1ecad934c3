/**
 * The cluster-side API groups through the real kubectl 1.35: what `kubectl get` shows on a
 * fresh server, PriorityClasses, the CertificateSigningRequest round trip (create, approve,
 * use the issued certificate), applying a ValidatingWebhookConfiguration and a StorageClass,
 * and the APIServices.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { mkdtempSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificateRequestPEM } from "../../src/apiserver/auth/csr.js";
import { generateKey } from "../../src/apiserver/auth/x509.js";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";
import { kubeconfigFor } from "../../src/apiserver/kubeconfig.js";
import { eventually } from "./application-env.js";
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

/** Table output with runs of spaces collapsed, one string per line. */
const rows = (out: string) => out.trim().split("\n").map((l) => l.trim().split(/\s{2,}/).join(" | "));

describe("kubectl get on a fresh server", () => {
  it("priorityclasses: the two system classes", async () => {
    expect(rows(await k.ok(["get", "priorityclasses"]))).toEqual([
      "NAME | VALUE | GLOBAL-DEFAULT | AGE | PREEMPTIONPOLICY",
      expect.stringMatching(/^system-cluster-critical \| 2000000000 \| false \| \d+s \| PreemptLowerPriority$/),
      expect.stringMatching(/^system-node-critical \| 2000001000 \| false \| \d+s \| PreemptLowerPriority$/),
    ]);
  });

  it("flowschemas in matching precedence, none dangling", async () => {
    const out = rows(await k.ok(["get", "flowschemas"]));
    expect(out[0]).toBe("NAME | PRIORITYLEVEL | MATCHINGPRECEDENCE | DISTINGUISHERMETHOD | AGE | MISSINGPL");
    expect(out.slice(1).map((r) => r.replace(/ \| \d+s \| /, " | AGE | "))).toEqual([
      "exempt | exempt | 1 | <none> | AGE | False",
      "probes | exempt | 2 | <none> | AGE | False",
      "system-leader-election | leader-election | 100 | ByUser | AGE | False",
      "system-node-high | node-high | 400 | ByUser | AGE | False",
      "system-nodes | system | 500 | ByUser | AGE | False",
      "kube-controller-manager | workload-high | 800 | ByNamespace | AGE | False",
      "kube-scheduler | workload-high | 800 | ByNamespace | AGE | False",
      "kube-system-service-accounts | workload-high | 900 | ByNamespace | AGE | False",
      "service-accounts | workload-low | 9000 | ByUser | AGE | False",
      "global-default | global-default | 9900 | ByUser | AGE | False",
      "catch-all | catch-all | 10000 | ByUser | AGE | False",
    ]);
  });

  it("prioritylevelconfigurations", async () => {
    const out = rows(await k.ok(["get", "prioritylevelconfigurations"]));
    expect(out[0]).toBe("NAME | TYPE | NOMINALCONCURRENCYSHARES | QUEUES | HANDSIZE | QUEUELENGTHLIMIT | AGE");
    expect(out.slice(1).map((r) => r.replace(/ \| \d+s$/, ""))).toEqual([
      "catch-all | Limited | 5 | <none> | <none> | <none>",
      "exempt | Exempt | <none> | <none> | <none> | <none>",
      "global-default | Limited | 20 | 128 | 6 | 50",
      "leader-election | Limited | 10 | 16 | 4 | 50",
      "node-high | Limited | 40 | 64 | 6 | 50",
      "system | Limited | 30 | 64 | 6 | 50",
      "workload-high | Limited | 40 | 128 | 6 | 50",
      "workload-low | Limited | 100 | 128 | 6 | 50",
    ]);
  });

  it("apiservices: Local and Available for every served group/version", async () => {
    const out = rows(await k.ok(["get", "apiservices"]));
    expect(out[0]).toBe("NAME | SERVICE | AVAILABLE | AGE");
    const byName = new Map(out.slice(1).map((r) => [r.split(" | ")[0], r]));
    for (const name of ["v1.", "v1.apps", "v1.admissionregistration.k8s.io", "v1.certificates.k8s.io", "v1.flowcontrol.apiserver.k8s.io", "v1.resource.k8s.io", "v1.storage.k8s.io"]) {
      expect(byName.get(name)).toMatch(new RegExp(`^${name.replace(/\./g, "\\.")} \\| Local \\| True \\| \\d+s$`));
    }
    const served = JSON.parse(await k.ok(["get", "--raw", "/apis"])) as { groups: { name: string; versions: { version: string }[] }[] };
    for (const g of served.groups.filter((x) => x.name !== "apiregistration.k8s.io")) {
      for (const v of g.versions) expect(byName.has(`${v.version}.${g.name}`), `${v.version}.${g.name}`).toBe(true);
    }
  });

  it("the other kinds are served and empty", async () => {
    for (const r of [
      "mutatingwebhookconfigurations",
      "validatingwebhookconfigurations",
      "validatingadmissionpolicies",
      "validatingadmissionpolicybindings",
      "mutatingadmissionpolicies",
      "mutatingadmissionpolicybindings",
      "csr",
      "runtimeclasses",
      "deviceclasses",
      "resourceclaims",
      "resourceclaimtemplates",
      "resourceslices",
      "sc",
      "csidrivers",
      "csinodes",
      "csistoragecapacities",
      "volumeattachments",
      "vac",
    ]) {
      const res = await k.run(["get", r]);
      const namespaced = ["resourceclaims", "resourceclaimtemplates", "csistoragecapacities"].includes(r);
      expect({ r, code: res.code, stderr: res.stderr.trim() }).toEqual({ r, code: 0, stderr: namespaced ? "No resources found in default namespace." : "No resources found" });
    }
  });

  it("api-resources lists the groups with their short names", async () => {
    const out = await k.ok(["api-resources", "--api-group=storage.k8s.io"]);
    expect(out).toMatch(/^storageclasses\s+sc\s+storage\.k8s\.io\/v1\s+false\s+StorageClass$/m);
    expect(out).toMatch(/^volumeattributesclasses\s+vac\s+storage\.k8s\.io\/v1\s+false\s+VolumeAttributesClass$/m);
    expect(await k.ok(["api-resources", "--api-group=scheduling.k8s.io"])).toMatch(/^priorityclasses\s+pc\s+scheduling\.k8s\.io\/v1\s+false\s+PriorityClass$/m);
    expect(await k.ok(["api-resources", "--api-group=certificates.k8s.io"])).toMatch(/^certificatesigningrequests\s+csr\s+certificates\.k8s\.io\/v1\s+false\s+CertificateSigningRequest$/m);
  });
});

describe("PriorityClasses", () => {
  it("create priorityclass, one global default, reserved names, immutable value, system classes stay", async () => {
    expect((await k.ok(["create", "priorityclass", "high", "--value=1000", "--description=important", "--global-default"])).trim()).toBe("priorityclass.scheduling.k8s.io/high created");
    const pc = JSON.parse(await k.ok(["get", "pc", "high", "-o", "json"]));
    expect(pc).toMatchObject({ value: 1000, globalDefault: true, description: "important", preemptionPolicy: "PreemptLowerPriority" });
    let r = await k.run(["create", "priorityclass", "other", "--value=10", "--global-default"]);
    expect(r.stderr.trim()).toBe('error: failed to create priorityclass: priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass high is already marked as default. Only one default can exist');
    r = await k.run(["create", "priorityclass", "system-mine", "--value=10"]);
    expect(r.stderr.trim()).toBe(
      `error: failed to create priorityclass: PriorityClass.scheduling.k8s.io "system-mine" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class`,
    );
    r = await k.run(["patch", "pc", "high", "--type=merge", "-p", '{"value":5}']);
    expect(r.stderr.trim()).toBe('The PriorityClass "high" is invalid: value: Forbidden: may not be changed in an update.');
    r = await k.run(["delete", "pc", "system-node-critical"]);
    expect(r.stderr.trim()).toBe('Error from server (Forbidden): priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted');
  });
});

describe("CertificateSigningRequests", () => {
  it("create, certificate approve, and the issued certificate authenticates", async () => {
    const key = generateKey();
    const pem = createCertificateRequestPEM({ commonName: "alice", organizations: ["developers"] }, key);
    const csr = (name: string, usages: string) => `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: ${name}
spec:
  request: ${Buffer.from(pem).toString("base64")}
  signerName: kubernetes.io/kube-apiserver-client
  expirationSeconds: 86400
  usages: [${usages}]
`;
    expect((await k.ok(["create", "-f", "-"], csr("alice", "client auth"))).trim()).toBe("certificatesigningrequest.certificates.k8s.io/alice created");
    expect(rows(await k.ok(["get", "csr", "alice"]))[1]).toMatch(/^alice \| \d+s \| kubernetes\.io\/kube-apiserver-client \| kubeloop-admin \| 24h \| Pending$/);
    expect((await k.ok(["certificate", "approve", "alice"])).trim()).toBe("certificatesigningrequest.certificates.k8s.io/alice approved");
    const cert = await eventually("the issued certificate", async () => (await k.ok(["get", "csr", "alice", "-o", "jsonpath={.status.certificate}"])) || undefined);
    expect(rows(await k.ok(["get", "csr", "alice"]))[1]).toMatch(/ \| Approved,Issued$/);
    // A kubeconfig with the issued certificate is alice in developers.
    const dir = mkdtempSync(join(tmpdir(), "kubeloop-csr-"));
    const kc = join(dir, "kubeconfig");
    const caPem = api.server.access!.tls!.clientCAPem;
    await writeFile(kc, kubeconfigFor(api.url, "default", { caPem, clientCertPem: Buffer.from(cert, "base64").toString(), clientKeyPem: key.privateKey.export({ type: "pkcs8", format: "pem" }).toString() }));
    const alice = new Kubectl(kc);
    const who = await alice.ok(["auth", "whoami"]);
    expect(who).toMatch(/^Username\s+alice$/m);
    expect(who).toMatch(/^Groups\s+\[developers system:authenticated\]$/m);

    expect((await k.ok(["create", "-f", "-"], csr("bob", "client auth"))).trim()).toBe("certificatesigningrequest.certificates.k8s.io/bob created");
    expect((await k.ok(["certificate", "deny", "bob"])).trim()).toBe("certificatesigningrequest.certificates.k8s.io/bob denied");
    expect(rows(await k.ok(["get", "csr", "bob"]))[1]).toMatch(/ \| Denied$/);
    // Without approve permission on the signer, alice cannot approve.
    expect((await alice.run(["certificate", "approve", "bob"])).stderr).toMatch(/forbidden/);
  });

  it("rejects system:masters subjects and bad requests", async () => {
    const pem = createCertificateRequestPEM({ commonName: "eve", organizations: ["system:masters"] }, generateKey());
    const manifest = (request: string) => `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: { name: eve }
spec: { request: ${request}, signerName: kubernetes.io/kube-apiserver-client, usages: [client auth] }
`;
    let r = await k.run(["create", "-f", "-"], manifest(Buffer.from(pem).toString("base64")));
    expect(r.stderr.trim()).toBe(
      'Error from server (Forbidden): error when creating "STDIN": certificatesigningrequests.certificates.k8s.io "eve" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
    );
    r = await k.run(["create", "-f", "-"], manifest(Buffer.from("hi").toString("base64")));
    expect(r.stderr.trim()).toBe(
      'The CertificateSigningRequest "eve" is invalid: spec.request: Invalid value: []byte{0x68, 0x69}: PEM block type must be CERTIFICATE REQUEST',
    );
  });
});

describe("apply", () => {
  const vwc = (timeout: number, sideEffects = "None") => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: policy.example.com
webhooks:
- name: pods.policy.example.com
  admissionReviewVersions: [v1]
  sideEffects: ${sideEffects}
  timeoutSeconds: ${timeout}
  clientConfig:
    service: { namespace: policy, name: webhook, path: /validate }
  rules:
  - operations: [CREATE, UPDATE]
    apiGroups: [""]
    apiVersions: [v1]
    resources: [pods]
`;
  it("a ValidatingWebhookConfiguration: created, reapplied, configured, defaulted, printed", async () => {
    const f = await k.manifest("vwc.yaml", vwc(5));
    let r = await k.run(["apply", "-f", f]);
    expect(r).toMatchObject({ code: 0, stderr: "", stdout: "validatingwebhookconfiguration.admissionregistration.k8s.io/policy.example.com created\n" });
    const before = JSON.parse(await k.ok(["get", "validatingwebhookconfiguration", "policy.example.com", "-o", "json"]));
    // The live rules carry the defaulted scope, so kubectl sends them again (as against any
    // kube-apiserver: rules is an atomic list); the result is the same object.
    r = await k.run(["apply", "-f", f]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    const again = JSON.parse(await k.ok(["get", "validatingwebhookconfiguration", "policy.example.com", "-o", "json"]));
    expect(again.webhooks).toEqual(before.webhooks);
    expect(again.metadata.generation).toBe(1);
    r = await k.run(["apply", "-f", await k.manifest("vwc2.yaml", vwc(7))]);
    expect(r.stdout.trim()).toBe("validatingwebhookconfiguration.admissionregistration.k8s.io/policy.example.com configured");
    const obj = JSON.parse(await k.ok(["get", "validatingwebhookconfiguration", "policy.example.com", "-o", "json"]));
    expect(obj.metadata.generation).toBe(2);
    expect(obj.webhooks[0]).toMatchObject({
      timeoutSeconds: 7,
      failurePolicy: "Fail",
      matchPolicy: "Equivalent",
      namespaceSelector: {},
      objectSelector: {},
      clientConfig: { service: { port: 443 } },
      rules: [{ scope: "*" }],
    });
    expect(rows(await k.ok(["get", "validatingwebhookconfigurations"]))).toEqual(["NAME | WEBHOOKS | AGE", expect.stringMatching(/^policy\.example\.com \| 1 \| \d+s$/)]);
    r = await k.run(["apply", "-f", await k.manifest("vwc3.yaml", vwc(7, "Some").replace("policy.example.com\n", "other.example.com\n"))]);
    expect(r.stderr).toMatch(/webhooks\[0\]\.sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"/);
  });

  it("a default StorageClass: defaults, (default) in the listing, immutable provisioner", async () => {
    const sc = (provisioner: string) => `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: ${provisioner}
volumeBindingMode: WaitForFirstConsumer
`;
    let r = await k.run(["apply", "-f", await k.manifest("sc.yaml", sc("rancher.io/local-path"))]);
    expect(r).toMatchObject({ code: 0, stderr: "", stdout: "storageclass.storage.k8s.io/standard created\n" });
    expect(rows(await k.ok(["get", "sc"]))).toEqual([
      "NAME | PROVISIONER | RECLAIMPOLICY | VOLUMEBINDINGMODE | ALLOWVOLUMEEXPANSION | AGE",
      expect.stringMatching(/^standard \(default\) \| rancher\.io\/local-path \| Delete \| WaitForFirstConsumer \| false \| \d+s$/),
    ]);
    r = await k.run(["apply", "-f", await k.manifest("sc2.yaml", sc("example.com/other"))]);
    expect(r.stderr).toMatch(/provisioner: Forbidden: updates to provisioner are forbidden\./);
  });
});
