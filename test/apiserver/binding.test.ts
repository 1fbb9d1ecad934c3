import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";

let api: RunningApiServer;

async function req(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(api.url + path, {
    method,
    headers: body ? { "content-type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  api = await startApiServer({ port: 0, insecureHttp: true });
});

afterAll(async () => {
  await api?.stop();
});

describe("pods/binding", () => {
  const pods = "/api/v1/namespaces/default/pods";
  const binding = (node: string, kind = "Node") => ({ apiVersion: "v1", kind: "Binding", metadata: { name: "p" }, target: { kind, name: node } });

  it("assigns a pending pod to a node once, with PodScheduled=True", async () => {
    expect((await req("POST", pods, { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "nginx" }] } })).status).toBe(201);
    const r = await req("POST", `${pods}/p/binding`, binding("node-a"));
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ kind: "Status", status: "Success" });
    const pod = (await req("GET", `${pods}/p`)).json as { spec: { nodeName: string }; status: { conditions: Array<{ type: string; status: string }> } };
    expect(pod.spec.nodeName).toBe("node-a");
    expect(pod.status.conditions).toContainEqual(expect.objectContaining({ type: "PodScheduled", status: "True" }));

    const again = await req("POST", `${pods}/p/binding`, binding("node-b"));
    expect(again.status).toBe(409);
    expect(again.json.message).toBe('Operation cannot be fulfilled on pods "p": pod p is already assigned to node "node-a"');
  });

  it("rejects a target that is not a node, and a missing pod", async () => {
    await req("POST", pods, { metadata: { name: "q" }, spec: { containers: [{ name: "c", image: "nginx" }] } });
    const bad = await req("POST", `${pods}/q/binding`, { ...binding("x", "Pod"), metadata: { name: "q" } });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toContain('target.kind: Unsupported value: "Pod": supported values: "Node"');
    const missing = await req("POST", `${pods}/nope/binding`, { ...binding("n"), metadata: { name: "nope" } });
    expect(missing.status).toBe(404);
  });

  it("spec.nodeName cannot be changed by an update", async () => {
    const pod = (await req("GET", `${pods}/q`)).json as { spec: Record<string, unknown> };
    const r = await req("PUT", `${pods}/q`, { ...pod, spec: { ...pod.spec, nodeName: "sneaky" } });
    expect(r.status).toBe(422);
  });
});

describe("unconditional updates", () => {
  it("a PUT without resourceVersion applies to the latest state where the strategy allows it", async () => {
    const base = "/api/v1/namespaces/default/configmaps";
    expect((await req("POST", base, { metadata: { name: "uncond" }, data: { a: "1" } })).status).toBe(201);
    const r = await req("PUT", `${base}/uncond`, { metadata: { name: "uncond" }, data: { a: "2" } });
    expect(r.status).toBe(200);
    expect((r.json as { data: Record<string, string> }).data).toEqual({ a: "2" });
  });
});
