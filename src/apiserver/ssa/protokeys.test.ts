import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../index.js";

let api: RunningApiServer;

beforeAll(async () => {
  api = await startApiServer({ port: 0, insecureHttp: true });
});

afterAll(async () => {
  await api?.stop();
});

async function send(method: string, path: string, body: unknown): Promise<{ status: number; json: { metadata?: { managedFields?: Array<{ manager: string; fieldsV1: unknown }> } } }> {
  const res = await fetch(api.url + path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as never };
}

describe("managedFields with keys named like Object.prototype members", () => {
  it("an update adding data.constructor and data.toString records them for its manager", async () => {
    const base = "/api/v1/namespaces/default/configmaps";
    expect((await send("POST", `${base}?fieldManager=first`, { metadata: { name: "proto" }, data: { a: "1" } })).status).toBe(201);
    const r = await send("PUT", `${base}/proto?fieldManager=second`, { metadata: { name: "proto" }, data: { a: "1", constructor: "2", toString: "3" } });
    expect(r.status).toBe(200);
    const second = r.json.metadata?.managedFields?.find((m) => m.manager === "second");
    expect(second?.fieldsV1).toEqual({ "f:data": { "f:constructor": {}, "f:toString": {} } });
  });
});
