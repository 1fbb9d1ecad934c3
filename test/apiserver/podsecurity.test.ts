/**
 * Pod Security admission through the server: enforce, warn and audit by namespace labels, pod
 * controllers' templates warned about, namespace label changes checked against existing pods,
 * invalid labels refused, exemptions from the configuration.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAdmissionPlugins } from "../../src/apiserver/admission/defaults.js";
import { podSecurityAdmission } from "../../src/apiserver/admission/podsecurity/plugin.js";
import { builtinServerConfig } from "../../src/apiserver/index.js";
import { TestServer } from "./harness.js";

const ns = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name, labels } });
const pod = (name: string, securityContext?: Record<string, unknown>) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { containers: [{ name: "c", image: "nginx", ...(securityContext ? { securityContext } : {}) }] },
});
const restrictedPod = (name: string) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
    containers: [{ name: "c", image: "nginx", securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } } }],
  },
});
const warnings = (h: Headers) => (h.get("warning") ?? "").split(/,\s*(?=299 )/).filter((w) => w !== "");

describe("PodSecurity admission", () => {
  const t = new TestServer({ strategies: builtinServerConfig().strategies });
  beforeAll(async () => {
    await t.start();
    await t.post("/api/v1/namespaces", ns("locked", { "pod-security.kubernetes.io/enforce": "restricted" }));
    await t.post("/api/v1/namespaces", ns("watched", { "pod-security.kubernetes.io/warn": "baseline", "pod-security.kubernetes.io/audit": "restricted" }));
    await t.post("/api/v1/namespaces", ns("open"));
    await t.server.controllers.idle();
  });
  afterAll(() => t.stop());

  it("refuses a privileged pod in a restricted namespace with upstream's text", async () => {
    const r = await t.post("/api/v1/namespaces/locked/pods", pod("priv", { privileged: true }));
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe("Forbidden");
    expect(r.body.message).toBe(
      'pods "priv" is forbidden: violates PodSecurity "restricted:latest": privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    expect(r.body.details).toEqual({ name: "priv", kind: "pods" });
    expect((await t.post("/api/v1/namespaces/locked/pods", restrictedPod("ok"))).status).toBe(201);
  });

  it("warns (and does not refuse) at the warn level, for pods and for Deployments' templates", async () => {
    const r = await t.post("/api/v1/namespaces/watched/pods", pod("hp", { privileged: true }));
    expect(r.status).toBe(201);
    expect(warnings(r.headers)).toEqual(['299 - "would violate PodSecurity \\"baseline:latest\\": privileged (container \\"c\\" must not set securityContext.privileged=true)"']);
    const dep = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: { selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { hostNetwork: true, containers: [{ name: "c", image: "nginx" }] } } },
    };
    const d = await t.post("/apis/apps/v1/namespaces/watched/deployments", dep);
    expect(d.status).toBe(201);
    expect(warnings(d.headers)[0]).toContain("would violate PodSecurity \\\"baseline:latest\\\": host namespaces (hostNetwork=true)");
    // Templates are never enforced: a restricted namespace takes the Deployment (its pods will be refused).
    expect((await t.post("/apis/apps/v1/namespaces/locked/deployments", dep)).status).toBe(201);
  });

  it("warns about existing pods when a namespace's enforce level gets stricter", async () => {
    await t.post("/api/v1/namespaces/open/pods", pod("a", { privileged: true }));
    await t.post("/api/v1/namespaces/open/pods", pod("b", { privileged: true }));
    await t.post("/api/v1/namespaces/open/pods", restrictedPod("good"));
    const r = await t.patch("/api/v1/namespaces/open", { metadata: { labels: { "pod-security.kubernetes.io/enforce": "baseline" } } });
    expect(r.status).toBe(200);
    expect(warnings(r.headers)).toEqual([
      '299 - "existing pods in namespace \\"open\\" violate the new PodSecurity enforce level \\"baseline:latest\\""',
      '299 - "a (and 1 other pod): privileged"',
    ]);
    // Relaxing is silent.
    const relaxed = await t.patch("/api/v1/namespaces/open", { metadata: { labels: { "pod-security.kubernetes.io/enforce": "privileged" } } });
    expect(relaxed.headers.get("warning")).toBeNull();
  });

  it("refuses invalid labels", async () => {
    const r = await t.post("/api/v1/namespaces", ns("typo", { "pod-security.kubernetes.io/enforce": "strict" }));
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('Namespace "typo" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted');
  });

  it("only re-checks pod updates that change images", async () => {
    await t.post("/api/v1/namespaces", ns("later"));
    await t.post("/api/v1/namespaces/later/pods", pod("p", { privileged: true }));
    await t.patch("/api/v1/namespaces/later", { metadata: { labels: { "pod-security.kubernetes.io/enforce": "baseline" } } });
    expect((await t.patch("/api/v1/namespaces/later/pods/p", { metadata: { labels: { x: "y" } } })).status).toBe(200);
    const img = await t.patch("/api/v1/namespaces/later/pods/p", { spec: { containers: [{ name: "c", image: "nginx:2" }] } }, "application/strategic-merge-patch+json");
    expect(img.status).toBe(403);
    expect(img.body.message).toContain('violates PodSecurity "baseline:latest": privileged');
  });
});

describe("PodSecurity configuration", () => {
  const plugins = [...defaultAdmissionPlugins().filter((p) => p.name !== "PodSecurity"), podSecurityAdmission({ defaults: { enforce: "baseline" }, exemptions: { namespaces: ["trusted"] } })];
  const t = new TestServer({ strategies: builtinServerConfig().strategies, admissionPlugins: plugins });
  beforeAll(() => t.start());
  afterAll(() => t.stop());

  it("enforces the configured default on unlabelled namespaces and exempts namespaces", async () => {
    const r = await t.post("/api/v1/namespaces/default/pods", pod("priv", { privileged: true }));
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('pods "priv" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)');
    const created = await t.post("/api/v1/namespaces", ns("trusted", { "pod-security.kubernetes.io/enforce": "restricted" }));
    expect(warnings(created.headers)).toEqual(['299 - "namespace \\"trusted\\" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored"']);
    await t.server.controllers.idle();
    expect((await t.post("/api/v1/namespaces/trusted/pods", pod("priv", { privileged: true }))).status).toBe(201);
    expect(() => podSecurityAdmission({ defaults: { enforce: "strict" } })).toThrow('PodSecurity defaults: invalid level "strict"');
  });
});
