import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { StatusError } from "../../apimachinery/errors.js";
import { applyJsonPatch } from "../../apimachinery/patch/jsonpatch.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { silentLogger } from "../logging.js";
import { denied, allowed } from "./admission.js";
import { generateServingCertificate } from "./certs.js";
import { WebhookServer, webhookPath } from "./server.js";

const apps = { group: "kubeloop.dev", version: "v1alpha1", kind: "Application", resource: "applications" };
const servers: WebhookServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

function newServer(opts: ConstructorParameters<typeof WebhookServer>[0] = {}): WebhookServer {
  const s = new WebhookServer({ port: 0, host: "127.0.0.1", generateCertificate: true, logger: silentLogger(), registry: new Registry(), ...opts });
  servers.push(s);
  return s;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function post(server: WebhookServer, path: string, body: unknown, contentType = "application/json", method = "POST"): Promise<{ status: number; text: string; json: any }> {
  const data = typeof body === "string" ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port: server.port, path, method, ca: Buffer.from(server.caBundle!, "base64").toString(), servername: "localhost", headers: { "Content-Type": contentType } },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, text, json });
        });
      },
    );
    req.on("error", reject);
    req.end(method === "POST" ? data : undefined);
  });
}

const app = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: "kubeloop.dev/v1alpha1", kind: "Application", metadata: { name: "web", namespace: "default" }, spec });

function review(operation: string, object?: KubeObject, oldObject?: KubeObject, apiVersion = "admission.k8s.io/v1") {
  return {
    apiVersion,
    kind: "AdmissionReview",
    request: { uid: "u-1", kind: { group: "kubeloop.dev", version: "v1alpha1", kind: "Application" }, resource: { group: "kubeloop.dev", version: "v1alpha1", resource: "applications" }, name: "web", namespace: "default", operation, userInfo: { username: "alice" }, object: object ?? null, oldObject: oldObject ?? null, dryRun: false },
  };
}

describe("WebhookServer", () => {
  it("names paths as controller-runtime's builder does", () => {
    expect(webhookPath("mutate", apps)).toBe("/mutate-kubeloop-dev-v1alpha1-application");
    expect(webhookPath("validate", { group: "", version: "v1", kind: "Pod" })).toBe("/validate--v1-pod");
  });

  it("defaulting: answers the JSONPatch from the received object to the result", async () => {
    const s = newServer();
    s.mutating<KubeObject>(apps, (obj) => {
      const spec = obj.spec as Record<string, unknown>;
      spec.replicas ??= 1;
      delete spec.obsolete;
    });
    await s.start();
    const received = app({ image: "nginx:1.27", obsolete: true });
    const r = await post(s, "/mutate-kubeloop-dev-v1alpha1-application", review("CREATE", received));
    expect(r.status).toBe(200);
    expect(r.json.apiVersion).toBe("admission.k8s.io/v1");
    expect(r.json.response.uid).toBe("u-1");
    expect(r.json.response.allowed).toBe(true);
    expect(r.json.response.patchType).toBe("JSONPatch");
    const ops = JSON.parse(Buffer.from(r.json.response.patch, "base64").toString());
    expect(applyJsonPatch(received, ops)).toEqual(app({ image: "nginx:1.27", replicas: 1 }));
    // Nothing to change: no patch at all.
    const same = await post(s, "/mutate-kubeloop-dev-v1alpha1-application", review("CREATE", app({ image: "x", replicas: 2 })));
    expect(same.json.response).toEqual({ uid: "u-1", allowed: true });
    // DELETE is allowed untouched.
    expect((await post(s, "/mutate-kubeloop-dev-v1alpha1-application", review("DELETE", undefined, received))).json.response.allowed).toBe(true);
  });

  it("defaulting may return a new object, or deny", async () => {
    const s = newServer();
    s.mutating<KubeObject>(apps, (obj) => ((obj.spec as Record<string, unknown>).image === "bad" ? denied("bad image") : { ...obj, metadata: { ...obj.metadata, labels: { x: "y" } } }));
    await s.start();
    const ok = await post(s, webhookPath("mutate", apps), review("CREATE", app({ image: "good" })));
    expect(JSON.parse(Buffer.from(ok.json.response.patch, "base64").toString())).toEqual([{ op: "add", path: "/metadata/labels", value: { x: "y" } }]);
    const no = await post(s, webhookPath("mutate", apps), review("CREATE", app({ image: "bad" })));
    expect(no.json.response).toEqual({ uid: "u-1", allowed: false, status: { code: 403, reason: "Forbidden", message: "bad image" } });
  });

  it("validating: allowed with warnings, denied with a message, thrown errors, DELETE sees the old object", async () => {
    const s = newServer();
    const seen: string[] = [];
    s.validating<KubeObject>(apps, (obj, req) => {
      seen.push(`${req.operation}:${JSON.stringify(obj.spec)}`);
      const spec = obj.spec as Record<string, unknown>;
      if (spec.image === "throw") throw new Error("plain error");
      if (spec.image === "status") throw StatusError.badRequest("a bad request");
      if (!spec.image) return denied("spec.image is required");
      return allowed(["image has no digest"]);
    });
    await s.start();
    const p = webhookPath("validate", apps);
    expect((await post(s, p, review("CREATE", app({ image: "nginx" })))).json.response).toEqual({ uid: "u-1", allowed: true, status: { code: 200 }, warnings: ["image has no digest"] });
    expect((await post(s, p, review("CREATE", app({})))).json.response).toEqual({ uid: "u-1", allowed: false, status: { code: 403, reason: "Forbidden", message: "spec.image is required" } });
    expect((await post(s, p, review("CREATE", app({ image: "throw" })))).json.response.status).toEqual({ code: 403, reason: "Forbidden", message: "plain error" });
    expect((await post(s, p, review("CREATE", app({ image: "status" })))).json.response.status).toEqual({ code: 400, reason: "BadRequest", message: "a bad request" });
    await post(s, p, review("DELETE", undefined, app({ image: "old" })));
    expect(seen.at(-1)).toBe('DELETE:{"image":"old"}');
    // v1beta1 reviews are answered in v1beta1.
    expect((await post(s, p, review("CREATE", app({ image: "nginx" }), undefined, "admission.k8s.io/v1beta1"))).json.apiVersion).toBe("admission.k8s.io/v1beta1");
  });

  it("refuses what controller-runtime refuses, as an AdmissionReview", async () => {
    const s = newServer();
    s.validating(apps, () => undefined);
    await s.start();
    const p = webhookPath("validate", apps);
    expect((await post(s, p, review("CREATE", app({})), "text/plain")).json.response.status).toEqual({ code: 400, message: "contentType=text/plain, expected application/json" });
    expect((await post(s, p, "")).json.response.status).toEqual({ code: 400, message: "request body is empty" });
    expect((await post(s, p, "{nope")).json.response.status.code).toBe(400);
    expect((await post(s, "/nothing", review("CREATE"))).status).toBe(404);
    expect((await post(s, p, "", "application/json", "GET")).status).toBe(405);
    expect((await post(s, "/healthz", "", "application/json", "GET")).text).toBe("ok");
  });

  it("conversion: every object converted, or the whole review failed with the message", async () => {
    const s = newServer();
    s.conversion({ group: "stable.example.com", kind: "CronTab" }, (obj, to) => {
      if ((obj.spec as Record<string, unknown>)?.bad) throw new Error("cannot convert a bad one");
      return { ...obj, apiVersion: to, spec: { converted: to } };
    });
    await s.start();
    const objs = [
      { apiVersion: "stable.example.com/v1", kind: "CronTab", metadata: { name: "a" }, spec: {} },
      { apiVersion: "stable.example.com/v1", kind: "CronTab", metadata: { name: "b" }, spec: {} },
    ];
    const r = await post(s, "/convert", { apiVersion: "apiextensions.k8s.io/v1", kind: "ConversionReview", request: { uid: "c-1", desiredAPIVersion: "stable.example.com/v2", objects: objs } });
    expect(r.json.kind).toBe("ConversionReview");
    expect(r.json.response.uid).toBe("c-1");
    expect(r.json.response.result).toEqual({ status: "Success" });
    expect(r.json.response.convertedObjects.map((o: KubeObject) => o.spec)).toEqual([{ converted: "stable.example.com/v2" }, { converted: "stable.example.com/v2" }]);
    const bad = await post(s, "/convert", { apiVersion: "apiextensions.k8s.io/v1", kind: "ConversionReview", request: { uid: "c-2", desiredAPIVersion: "stable.example.com/v2", objects: [{ ...objs[0], spec: { bad: true } }] } });
    expect(bad.json.response).toEqual({ uid: "c-2", convertedObjects: [], result: { status: "Failure", message: "cannot convert a bad one" } });
    const unknown = await post(s, "/convert", { apiVersion: "apiextensions.k8s.io/v1", kind: "ConversionReview", request: { uid: "c-3", desiredAPIVersion: "x.io/v2", objects: [{ apiVersion: "x.io/v1", kind: "Thing" }] } });
    expect(unknown.json.response.result).toEqual({ status: "Failure", message: "Thing.x.io has no converter" });
  });

  it("records controller-runtime's metrics per path", async () => {
    const registry = new Registry();
    const s = newServer({ registry });
    s.validating(apps, () => undefined);
    await s.start();
    await post(s, webhookPath("validate", apps), review("CREATE", app({ image: "x" })));
    const text = await registry.metrics();
    expect(text).toContain('controller_runtime_webhook_requests_total{webhook="/validate-kubeloop-dev-v1alpha1-application",code="200"} 1');
    expect(text).toContain('controller_runtime_webhook_requests_total{webhook="/validate-kubeloop-dev-v1alpha1-application",code="500"} 0');
    expect(text).toMatch(/controller_runtime_webhook_latency_seconds_count\{webhook="\/validate-kubeloop-dev-v1alpha1-application"\} 1/);
    expect(text).toContain('controller_runtime_webhook_requests_in_flight{webhook="/validate-kubeloop-dev-v1alpha1-application"} 0');
  });

  it("serves the certificate of its cert dir and picks up a rotated one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "webhook-certs-"));
    try {
      const first = generateServingCertificate();
      writeFileSync(join(dir, "tls.crt"), first.certPem);
      writeFileSync(join(dir, "tls.key"), first.keyPem);
      writeFileSync(join(dir, "ca.crt"), first.caPem!);
      const s = newServer({ generateCertificate: false, certDir: dir });
      s.validating(apps, () => undefined);
      await s.start();
      expect(s.caBundle).toBe(Buffer.from(first.caPem!).toString("base64"));
      expect((await post(s, "/healthz", "", "application/json", "GET")).text).toBe("ok");
      const second = generateServingCertificate();
      writeFileSync(join(dir, "tls.crt"), second.certPem);
      writeFileSync(join(dir, "tls.key"), second.keyPem);
      writeFileSync(join(dir, "ca.crt"), second.caPem!);
      expect(await s.reloadCertificate()).toBe(true);
      expect(s.caBundle).toBe(Buffer.from(second.caPem!).toString("base64"));
      expect((await post(s, "/healthz", "", "application/json", "GET")).text).toBe("ok");
      expect(await s.reloadCertificate()).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails to start without certificates, naming the file", async () => {
    const s = newServer({ generateCertificate: false, certDir: join(tmpdir(), "no-such-webhook-certs") });
    await expect(s.start()).rejects.toThrow(/no-such-webhook-certs\/tls\.crt/);
  });

  it("no handlers after start; duplicate paths refused", async () => {
    const s = newServer();
    s.validating(apps, () => undefined);
    expect(() => s.validating(apps, () => undefined)).toThrow("can't register duplicate path: /validate-kubeloop-dev-v1alpha1-application");
    await s.start();
    expect(() => s.mutating(apps, () => undefined)).toThrow("webhook server already started");
  });
});
