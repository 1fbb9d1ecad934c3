/**
 * CRD conversion webhooks over HTTP: a two-version CRD (v1 stores `spec.cronSpec`, v2 has
 * `spec.schedule.cron`) whose conversion webhook is a real HTTPS server; objects written and
 * read in both versions, lists, watches, the CRD's validation of its conversion config, and the
 * failures (dead webhook, bad answers) with upstream's texts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { builtinServerConfig } from "../../src/apiserver/index.js";
import { objectKey } from "../../src/apiserver/rest/keys.js";
import { TestServer } from "../apiserver/harness.js";
import { startTestWebhook, type Answer, type ReceivedReview, type TestWebhook } from "./helpers.js";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const V1 = "/apis/stable.example.com/v1/namespaces/default/crontabs";
const V2 = "/apis/stable.example.com/v2/namespaces/default/crontabs";

/** The conversion the test webhook performs; `mode` lets a test make it misbehave. */
let mode: "ok" | "fail" | "wrong-uid" | "drop" | "rename" | "relabel" | "bad-label" = "ok";

function convert(o: Obj, to: string): Obj {
  const out: Obj = structuredClone(o);
  out.apiVersion = to;
  if (to.endsWith("/v2") && out.spec && "cronSpec" in out.spec) {
    out.spec = { ...out.spec, schedule: { cron: out.spec.cronSpec } };
    delete out.spec.cronSpec;
  } else if (to.endsWith("/v1") && out.spec?.schedule) {
    out.spec = { ...out.spec, cronSpec: out.spec.schedule.cron };
    delete out.spec.schedule;
  }
  if (mode === "rename") out.metadata.name = "other";
  if (mode === "relabel") out.metadata = { ...out.metadata, labels: { converted: "yes" }, resourceVersion: "999" };
  if (mode === "bad-label") out.metadata = { ...out.metadata, labels: { "bad key!": "x" } };
  return out;
}

function answer(r: ReceivedReview): Answer {
  const req = r.request as Obj;
  if (mode === "fail") return { review: { apiVersion: "apiextensions.k8s.io/v1", kind: "ConversionReview", response: { uid: req.uid, result: { status: "Failure", message: "cannot convert today" } } } };
  const converted = (req.objects as Obj[]).map((o) => convert(o, req.desiredAPIVersion));
  return {
    review: {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
      response: { uid: mode === "wrong-uid" ? "nope" : req.uid, result: { status: "Success" }, convertedObjects: mode === "drop" ? [] : converted },
    },
  };
}

let server: TestServer;
let hook: TestWebhook;

function crd(conversion: Obj): Obj {
  const v1 = { type: "object", properties: { spec: { type: "object", properties: { cronSpec: { type: "string" }, replicas: { type: "integer", default: 1 } } } } };
  const v2 = { type: "object", properties: { spec: { type: "object", properties: { schedule: { type: "object", properties: { cron: { type: "string" } } }, replicas: { type: "integer", default: 2 } } } } };
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "crontabs.stable.example.com" },
    spec: {
      group: "stable.example.com",
      scope: "Namespaced",
      names: { plural: "crontabs", singular: "crontab", kind: "CronTab" },
      versions: [
        { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: v1 } },
        { name: "v2", served: true, storage: false, schema: { openAPIV3Schema: v2 } },
      ],
      conversion,
    },
  };
}

/** A v1 object written straight to storage: never converted yet. */
async function storeV1(name: string): Promise<void> {
  await server.server.storage.create(objectKey("stable.example.com", "crontabs", "default", name), {
    apiVersion: "stable.example.com/v1",
    kind: "CronTab",
    metadata: { name, namespace: "default", uid: `uid-${name}`, creationTimestamp: "2026-01-01T00:00:00Z" },
    spec: { cronSpec: "0 0 * * *" },
  });
}

async function eventually<T>(fn: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("timed out");
}

beforeAll(async () => {
  hook = await startTestWebhook(answer);
  server = await new TestServer(builtinServerConfig()).start();
  const r = await server.post(CRDS, crd({ strategy: "Webhook", webhook: { conversionReviewVersions: ["v1"], clientConfig: { url: `${hook.url}/convert`, caBundle: hook.caBundle } } }));
  expect(r.status, r.text).toBe(201);
  await eventually(async () => ((await server.get(V2)).status === 200 ? true : undefined));
});

afterAll(async () => {
  await server?.stop();
  await hook?.close();
});

afterEach(() => {
  mode = "ok";
});

describe("a CRD with Webhook conversion", () => {
  it("stores in the storage version and serves every version converted by the webhook", async () => {
    const created = await server.post(V2, { apiVersion: "stable.example.com/v2", kind: "CronTab", metadata: { name: "a", namespace: "default" }, spec: { schedule: { cron: "* * * * */5" } } });
    expect(created.status, created.text).toBe(201);
    // The response is the stored object converted back to v2, with v2's defaults.
    expect(created.body.apiVersion).toBe("stable.example.com/v2");
    expect(created.body.spec).toEqual({ schedule: { cron: "* * * * */5" }, replicas: 2 });
    const stored = await server.server.storage.get(objectKey("stable.example.com", "crontabs", "default", "a"));
    expect(stored?.object.apiVersion).toBe("stable.example.com/v1");
    // v2's default (replicas 2) was set on the request and converted with it.
    expect(stored?.object.spec).toEqual({ cronSpec: "* * * * */5", replicas: 2 });
    const asV1 = await server.get(`${V1}/a`);
    expect(asV1.body.apiVersion).toBe("stable.example.com/v1");
    expect(asV1.body.spec).toEqual({ cronSpec: "* * * * */5", replicas: 2 });
    const asV2 = await server.get(`${V2}/a`);
    expect(asV2.body.spec).toEqual({ schedule: { cron: "* * * * */5" }, replicas: 2 });
    const review = hook.received.find((x) => (x.request as Obj).desiredAPIVersion === "stable.example.com/v1")!;
    expect(review.path).toBe("/convert");
    expect(review.query).toBe("?timeout=30s");
    expect(review.body).toMatchObject({ kind: "ConversionReview", apiVersion: "apiextensions.k8s.io/v1" });
    expect(Object.keys(review.request)).toEqual(["uid", "desiredAPIVersion", "objects"]);
  });

  it("updates through the other version, lists and selects in both", async () => {
    await server.post(V1, { apiVersion: "stable.example.com/v1", kind: "CronTab", metadata: { name: "b", namespace: "default", labels: { tier: "x" } }, spec: { cronSpec: "0 * * * *" } });
    const cur = (await server.get(`${V2}/b`)).body;
    const put = await server.put(`${V2}/b`, { ...cur, spec: { ...cur.spec, schedule: { cron: "1 * * * *" } } });
    expect(put.status, put.text).toBe(200);
    expect((await server.get(`${V1}/b`)).body.spec.cronSpec).toBe("1 * * * *");
    const before = hook.received.length;
    const list = await server.get(V2);
    expect(list.body.apiVersion).toBe("stable.example.com/v2");
    expect(list.body.items.map((i: Obj) => i.spec.schedule.cron).sort()).toEqual(["* * * * */5", "1 * * * *"].sort());
    expect(hook.received.length - before).toBeLessThanOrEqual(1);
    const selected = await server.get(`${V2}?labelSelector=tier%3Dx&limit=1`);
    expect(selected.body.items.map((i: Obj) => i.metadata.name)).toEqual(["b"]);
  });

  it("watches deliver converted events", async () => {
    const w = await server.watch(`${V2}?watch=true&resourceVersion=${server.server.storage.currentRevision()}`);
    await server.post(V1, { apiVersion: "stable.example.com/v1", kind: "CronTab", metadata: { name: "c", namespace: "default" }, spec: { cronSpec: "5 4 * * *" } });
    const ev = await w.next();
    w.close();
    expect(ev?.type).toBe("ADDED");
    expect(ev?.object.apiVersion).toBe("stable.example.com/v2");
    expect(ev?.object.spec.schedule).toEqual({ cron: "5 4 * * *" });
  });

  it("keeps the original metadata but takes the webhook's labels", async () => {
    await storeV1("relabel");
    mode = "relabel";
    const got = await server.get(`${V2}/relabel`);
    expect(got.body.metadata.labels).toEqual({ converted: "yes" });
    expect(got.body.metadata.resourceVersion).not.toBe("999");
  });
});

describe("conversion failures: a 500 with upstream's message, nothing stored", () => {
  const cases: { name: string; mode: typeof mode; message: RegExp }[] = [
    { name: "the webhook says Failure", mode: "fail", message: /^conversion webhook for stable\.example\.com\/v1, Kind=CronTab failed: cannot convert today$/ },
    { name: "another uid", mode: "wrong-uid", message: /^conversion webhook for stable\.example\.com\/v1, Kind=CronTab failed: expected response\.uid="[0-9a-f-]+", got "nope"$/ },
    { name: "no objects back", mode: "drop", message: /^conversion webhook for stable\.example\.com\/v1, Kind=CronTab returned 0 objects, expected 1$/ },
    { name: "a renamed object", mode: "rename", message: /^conversion webhook for stable\.example\.com\/v1, Kind=CronTab returned invalid object: must have the same name: r-rename != other$/ },
    { name: "invalid labels", mode: "bad-label", message: /^conversion webhook for stable\.example\.com\/v1, Kind=CronTab returned invalid object: metadata\.labels: Invalid value: "bad key!"/ },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      await storeV1(`r-${c.mode}`);
      mode = c.mode;
      const r = await server.get(`${V2}/r-${c.mode}`);
      expect(r.status).toBe(500);
      expect(r.body.reason ?? "").toBe("");
      expect(r.body.message).toMatch(c.message);
      const created = await server.post(V2, { apiVersion: "stable.example.com/v2", kind: "CronTab", metadata: { name: `x-${c.mode}`, namespace: "default" }, spec: {} });
      expect(created.status).toBe(500);
      expect(await server.server.storage.get(objectKey("stable.example.com", "crontabs", "default", `x-${c.mode}`))).toBeUndefined();
    });
  }

  it("a dead webhook", async () => {
    const dead = await startTestWebhook(() => ({ text: "" }));
    await dead.close();
    const cur = (await server.get(`${CRDS}/crontabs.stable.example.com`)).body;
    cur.spec.conversion.webhook.clientConfig.url = `${dead.url}/convert`;
    expect((await server.put(`${CRDS}/crontabs.stable.example.com`, cur)).status).toBe(200);
    const r = await eventually(async () => {
      const x = await server.get(`${V2}/a`);
      return x.status === 500 ? x : undefined;
    });
    expect(r.body.message).toBe(
      `conversion webhook for stable.example.com/v1, Kind=CronTab failed: Post "https://127.0.0.1:${dead.port}/convert?timeout=30s": dial tcp 127.0.0.1:${dead.port}: connect: connection refused`,
    );
    // Objects already in the requested version need no webhook.
    expect((await server.get(`${V1}/a`)).status).toBe(200);
    const again = (await server.get(`${CRDS}/crontabs.stable.example.com`)).body;
    again.spec.conversion.webhook.clientConfig.url = `${hook.url}/convert`;
    expect((await server.put(`${CRDS}/crontabs.stable.example.com`, again)).status).toBe(200);
    await eventually(async () => ((await server.get(`${V2}/a`)).status === 200 ? true : undefined));
  });
});

describe("validation of spec.conversion", () => {
  const cases: { name: string; conversion: Obj; errors: string[] }[] = [
    { name: "Webhook without a client config", conversion: { strategy: "Webhook", webhook: { conversionReviewVersions: ["v1"] } }, errors: ["spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook"] },
    {
      name: "both url and service",
      conversion: { strategy: "Webhook", webhook: { conversionReviewVersions: ["v1"], clientConfig: { url: "https://x.example.com", service: { namespace: "n", name: "s" } } } },
      errors: ["spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required"],
    },
    {
      name: "an http URL",
      conversion: { strategy: "Webhook", webhook: { conversionReviewVersions: ["v1"], clientConfig: { url: "http://x.example.com/convert" } } },
      errors: ['spec.conversion.webhookClientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]'],
    },
    {
      name: "no review versions",
      conversion: { strategy: "Webhook", webhook: { clientConfig: { url: "https://x.example.com/convert" } } },
      errors: ["spec.conversion.conversionReviewVersions: Required value"],
    },
    {
      name: "unknown review versions",
      conversion: { strategy: "Webhook", webhook: { conversionReviewVersions: ["v9", "v9"], clientConfig: { url: "https://x.example.com/convert" } } },
      errors: ['spec.conversion.conversionReviewVersions[1]: Invalid value: "v9": duplicate version', 'spec.conversion.conversionReviewVersions: Invalid value: []string{"v9", "v9"}: must include at least one of v1, v1beta1'],
    },
    {
      name: "a webhook with strategy None",
      conversion: { strategy: "None", webhook: { conversionReviewVersions: ["v1"], clientConfig: { url: "https://x.example.com/convert" } } },
      errors: ["spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook", "spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook"],
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const body = crd(c.conversion);
      body.metadata.name = "things.valid.example.com";
      body.spec.group = "valid.example.com";
      body.spec.names = { plural: "things", singular: "thing", kind: "Thing" };
      const r = await server.post(CRDS, body);
      expect(r.status, r.text).toBe(422);
      const causes = (r.body.details.causes as Obj[]).map((x) => `${x.field}: ${x.message}`);
      for (const e of c.errors) expect(r.body.message).toContain(e);
      expect(causes.length).toBe(c.errors.length);
    });
  }

  it("a service reference gets port 443", async () => {
    const body = crd({ strategy: "Webhook", webhook: { conversionReviewVersions: ["v1"], clientConfig: { service: { namespace: "n", name: "s", path: "/convert" } } } });
    body.metadata.name = "gadgets.valid.example.com";
    body.spec.group = "valid.example.com";
    body.spec.names = { plural: "gadgets", singular: "gadget", kind: "Gadget" };
    const r = await server.post(CRDS, body);
    expect(r.status, r.text).toBe(201);
    expect(r.body.spec.conversion.webhook.clientConfig.service).toEqual({ namespace: "n", name: "s", path: "/convert", port: 443 });
  });
});
