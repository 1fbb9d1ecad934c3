/**
 * startTestEnv's webhooks (envtest's WebhookInstallOptions): configurations given as YAML files
 * (clientConfig.service, as deploy/'s are written) and as objects are rewritten to the server the
 * environment serves, with its generated CA; the API server answers with the webhook's denial and
 * stores the mutation; with no configurations, the ones generated from the handlers are installed
 * — examples/application-webhook's handlers, on its Application CRD and example files.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { addApplicationWebhooks } from "../../examples/application-webhook/webhooks.js";
import type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from "../../src/apimachinery/api/admissionregistration/v1.js";
import type { ConfigMap } from "../../src/apimachinery/api/core/v1.js";
import { StatusError } from "../../src/apimachinery/errors.js";
import { builtin } from "../../src/client/typed.js";
import { applicationsResource, type Application } from "../../src/controllers/application/index.js";
import { allowed, denied, validatingWebhookConfigurations, type WebhookServer } from "../../src/runtime/webhook/index.js";
import { rewriteClientConfig, startTestEnv, TestEnvError } from "../../src/testing/index.js";

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A ConfigMap validator (refuses data.forbidden) and defaulter (adds a label). */
function configMapWebhooks(server: WebhookServer): void {
  server.validating<ConfigMap>(builtin.configMaps, (cm) => (cm.data?.forbidden !== undefined ? denied("data.forbidden is not allowed") : allowed()));
  server.mutating<ConfigMap>(builtin.configMaps, (cm) => {
    cm.metadata = { ...cm.metadata, labels: { ...cm.metadata?.labels, "example.com/mutated": "yes" } };
  });
}

const validatingYAML = `# as a deploy/ manifest would be written: the Service and a stale caBundle
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: configmaps-validating
webhooks:
  - name: vconfigmap.example.com
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: Fail
    clientConfig:
      caBundle: bm90IGEgQ0E=
      service:
        namespace: system
        name: webhook-service
        path: /validate--v1-configmap
    rules:
      - operations: ["CREATE", "UPDATE"]
        apiGroups: [""]
        apiVersions: ["v1"]
        resources: ["configmaps"]
    objectSelector:
      matchLabels: { example.com/checked: "true" }
---
apiVersion: v1
kind: Service
metadata: { name: skipped-document, namespace: default }
spec: { ports: [{ port: 443 }] }
`;

const mutating: MutatingWebhookConfiguration = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "MutatingWebhookConfiguration",
  metadata: { name: "configmaps-mutating" },
  webhooks: [
    {
      name: "mconfigmap.example.com",
      admissionReviewVersions: ["v1"],
      sideEffects: "None",
      clientConfig: { service: { namespace: "system", name: "webhook-service", path: "/mutate--v1-configmap" } },
      rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
      objectSelector: { matchLabels: { "example.com/checked": "true" } },
    },
  ],
};

describe("startTestEnv webhooks", () => {
  it("serves the handlers, installs configurations from YAML files and objects pointed at them, and the API server applies them", async () => {
    const dir = await mkdtemp(join(tmpdir(), "testenv-webhooks-"));
    dirs.push(dir);
    await writeFile(join(dir, "validating.yaml"), validatingYAML);
    let certDir: string;
    {
      await using env = await startTestEnv({ webhooks: { setup: configMapWebhooks, paths: [dir], mutating: [mutating] } });
      const w = env.webhooks!;
      certDir = w.certDir;
      expect(w.host).toBe("127.0.0.1");
      expect(w.url).toBe(`https://127.0.0.1:${w.port}`);
      expect(w.mutating).toEqual(["configmaps-mutating"]);
      expect(w.validating).toEqual(["configmaps-validating"]);
      for (const f of ["tls.crt", "tls.key", "ca.crt"]) expect(existsSync(join(w.certDir, f))).toBe(true);
      expect(readFileSync(join(w.certDir, "ca.crt"), "utf8")).toBe(w.caPem);

      // What was installed: the URL of the server and the generated CA, the Service gone.
      const stored = (await env.client.resource(validatingWebhookConfigurations).get("configmaps-validating")) as ValidatingWebhookConfiguration;
      expect(stored.webhooks?.[0].clientConfig).toEqual({ url: `${w.url}/validate--v1-configmap`, caBundle: Buffer.from(w.caPem).toString("base64") });

      const cms = env.client.resource(builtin.configMaps, "default");
      const labels = { "example.com/checked": "true" };
      // The validating webhook's denial, as the API server returns it.
      const err = await cms.create({ metadata: { name: "refused", labels }, data: { forbidden: "x" } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StatusError);
      expect((err as StatusError).code).toBe(403);
      expect((err as StatusError).message).toBe('admission webhook "vconfigmap.example.com" denied the request: data.forbidden is not allowed');
      await expect(cms.get("refused")).rejects.toMatchObject({ code: 404 });

      // The mutating webhook's label is stored.
      const made = await cms.create({ metadata: { name: "ok", labels }, data: { a: "b" } });
      expect(made.metadata?.labels).toEqual({ ...labels, "example.com/mutated": "yes" });
      expect((await cms.get("ok")).metadata?.labels?.["example.com/mutated"]).toBe("yes");

      // The objectSelector holds: an unlabelled ConfigMap is neither checked nor mutated.
      const plain = await cms.create({ metadata: { name: "plain" }, data: { forbidden: "x" } });
      expect(plain.metadata?.labels).toBeUndefined();
    }
    expect(existsSync(certDir)).toBe(false);
  });

  it("installs the configurations generated from the handlers when none are given: examples/application-webhook", async () => {
    await using env = await startTestEnv({ crdDirectoryPaths: ["deploy/crds"], webhooks: { setup: addApplicationWebhooks } });
    expect(env.webhooks!.mutating).toEqual(["kubeloop-testenv-webhooks-mutating"]);
    expect(env.webhooks!.validating).toEqual(["kubeloop-testenv-webhooks-validating"]);
    const apps = env.client.resource(applicationsResource, "default");

    const invalid = parse(readFileSync("examples/application-webhook/app-invalid.yaml", "utf8")) as Application;
    await expect(apps.create(invalid)).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining('admission webhook "vapplication-v1alpha1.kubeloop.dev" denied the request: [spec.image: Invalid value: "nginx:latest"'),
    });

    const app = parse(readFileSync("examples/application-webhook/app.yaml", "utf8")) as Application;
    const stored = await apps.create(app);
    expect(stored.metadata?.labels?.["app.kubernetes.io/name"]).toBe("shop");
    expect(stored.spec.resources).toEqual({ requests: { cpu: "100m", memory: "128Mi" } });
    expect(stored.spec.service?.targetPort).toBe("http");
  });

  it("refuses a missing configuration path and a configuration without a name, and stops what it started", async () => {
    await expect(startTestEnv({ webhooks: { paths: ["does/not/exist"] } })).rejects.toThrow(new TestEnvError("webhook configuration path does/not/exist does not exist"));
    await expect(startTestEnv({ webhooks: { validating: [{ webhooks: [] }] } })).rejects.toThrow(new TestEnvError("a ValidatingWebhookConfiguration without metadata.name cannot be installed"));
  });

  it("rewrites a clientConfig as envtest does", () => {
    const base = "https://127.0.0.1:9443";
    const cases: { name: string; in: Parameters<typeof rewriteClientConfig>[0]; want: ReturnType<typeof rewriteClientConfig> }[] = [
      { name: "service with a path", in: { service: { namespace: "s", name: "n", path: "/v" }, caBundle: "old" }, want: { url: `${base}/v`, caBundle: "CA" } },
      { name: "service without a path", in: { service: { namespace: "s", name: "n" } }, want: { url: `${base}/`, caBundle: "CA" } },
      { name: "a URL stays, with the CA", in: { url: "https://elsewhere:1/x" }, want: { url: "https://elsewhere:1/x", caBundle: "CA" } },
      { name: "nothing", in: undefined, want: { url: `${base}/`, caBundle: "CA" } },
    ];
    for (const c of cases) expect(rewriteClientConfig(c.in, base, "CA"), c.name).toEqual(c.want);
  });
});
