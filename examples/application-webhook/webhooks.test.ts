/**
 * The example's defaulting and validation, as tables; and the flags of main.ts.
 * test/e2e/application-webhook.test.ts runs them behind the API server with kubectl.
 */
import { describe, expect, it } from "vitest";
import type { Application } from "kubeloop/controllers/application";
import { parseFlags } from "./main.js";
import { defaultApplication, validateApplication } from "./webhooks.js";

const app = (spec: Partial<Application["spec"]>, labels?: Record<string, string>): Application => ({
  apiVersion: "kubeloop.dev/v1alpha1",
  kind: "Application",
  metadata: { name: "web", namespace: "default", ...(labels ? { labels } : {}) },
  spec: { image: "nginx:1.27", replicas: 3, ...spec },
});

describe("defaultApplication", () => {
  const cases: { name: string; in: Application; want: Partial<Application> }[] = [
    {
      name: "name label, resources and the only named port",
      in: app({ ports: [{ name: "http", containerPort: 80 }], service: { port: 80 } }),
      want: { metadata: { name: "web", namespace: "default", labels: { "app.kubernetes.io/name": "web" } }, spec: { image: "nginx:1.27", replicas: 3, ports: [{ name: "http", containerPort: 80 }], service: { port: 80, targetPort: "http" }, resources: { requests: { cpu: "100m", memory: "128Mi" } } } },
    },
    {
      name: "what is set stays",
      in: app({ resources: { limits: { cpu: "1" } }, ports: [{ name: "http", containerPort: 80 }], service: { port: 80, targetPort: 8080 } }, { "app.kubernetes.io/name": "shop", team: "a" }),
      want: { metadata: { name: "web", namespace: "default", labels: { "app.kubernetes.io/name": "shop", team: "a" } }, spec: { image: "nginx:1.27", replicas: 3, resources: { limits: { cpu: "1" } }, ports: [{ name: "http", containerPort: 80 }], service: { port: 80, targetPort: 8080 } } },
    },
    {
      name: "no targetPort when the port is unnamed or ambiguous",
      in: app({ ports: [{ name: "a", containerPort: 80 }, { name: "b", containerPort: 81 }], service: { port: 80 } }),
      want: { spec: { image: "nginx:1.27", replicas: 3, ports: [{ name: "a", containerPort: 80 }, { name: "b", containerPort: 81 }], service: { port: 80 }, resources: { requests: { cpu: "100m", memory: "128Mi" } } } },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const obj = structuredClone(c.in);
      defaultApplication(obj);
      expect(obj).toMatchObject(c.want);
      if (c.want.spec) expect(obj.spec).toEqual(c.want.spec);
    });
  }
});

describe("validateApplication", () => {
  const cases: { name: string; obj: Application; old?: Application; allowed: boolean; message?: string; warnings?: string[] }[] = [
    { name: "a pinned tag", obj: app({ image: "registry.example.com:5000/team/nginx:1.27" }), allowed: true, warnings: [] },
    { name: "a digest", obj: app({ image: "nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" }), allowed: true, warnings: [] },
    { name: "no tag (a registry port is no tag)", obj: app({ image: "registry.example.com:5000/nginx" }), allowed: false, message: 'spec.image: Invalid value: "registry.example.com:5000/nginx": must name a tag other than latest, or a digest' },
    { name: "latest", obj: app({ image: "nginx:latest" }), allowed: false, message: 'spec.image: Invalid value: "nginx:latest": must name a tag other than latest, or a digest' },
    { name: "a named targetPort that exists", obj: app({ ports: [{ name: "http", containerPort: 80 }], service: { port: 80, targetPort: "http" } }), allowed: true },
    {
      name: "every problem at once",
      obj: app({ image: "nginx", ports: [{ name: "http", containerPort: 80 }], service: { port: 80, targetPort: "web" } }),
      allowed: false,
      message: '[spec.image: Invalid value: "nginx": must name a tag other than latest, or a digest, spec.service.targetPort: Invalid value: "web": must be the name of one of spec.ports]',
    },
    { name: "deploymentName is immutable", obj: app({ deploymentName: "b" }), old: app({ deploymentName: "a" }), allowed: false, message: 'spec.deploymentName: Invalid value: "b": field is immutable' },
    { name: "deploymentName may be set the first time", obj: app({ deploymentName: "b" }), old: app({}), allowed: true },
    { name: "one replica: allowed, with a warning", obj: app({ replicas: 1 }), allowed: true, warnings: ["spec.replicas is 1: the application is not highly available"] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = validateApplication(c.obj, c.old);
      expect(d.allowed).toBe(c.allowed);
      if (c.message !== undefined) expect(d.message).toBe(c.message);
      if (!c.allowed) expect(d.code).toBe(403);
      if (c.warnings) expect(d.warnings).toEqual(c.warnings);
    });
  }
});

describe("parseFlags", () => {
  it("defaults as controller-runtime's webhook server and the controller's flags", () => {
    expect(parseFlags([])).toEqual({ leaderElect: false, metricsBindAddress: ":8080", healthProbeBindAddress: ":8081", webhookPort: 9443, webhookGenerateCertificate: false, webhookServicePort: 443, kubeconfig: undefined, webhookCertDir: undefined, webhookService: undefined });
  });
  it("a later flag wins; the service is NAMESPACE/NAME", () => {
    const f = parseFlags(["--webhook-port=9443", "--webhook-port=0", "--webhook-service", "ns/svc", "--webhook-generate-certificate"]);
    expect(f.webhookPort).toBe(0);
    expect(f.webhookService).toEqual({ namespace: "ns", name: "svc" });
    expect(f.webhookGenerateCertificate).toBe(true);
  });
  it.each([
    [["--webhook-service=svc"], '--webhook-service must be NAMESPACE/NAME, got "svc"'],
    [["--webhook-port=http"], '--webhook-port must be a port number, got "http"'],
    [["--no-such-flag"], "Unknown option '--no-such-flag'"],
  ])("refuses %j", (argv, message) => {
    expect(() => parseFlags(argv)).toThrow(message);
  });
});
