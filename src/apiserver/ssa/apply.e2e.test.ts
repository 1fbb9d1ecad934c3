/**
 * Server-side apply over HTTP and with the real kubectl 1.35 (`apply --server-side`,
 * `--force-conflicts`, migration from client-side apply).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../index.js";
import { Kubectl } from "../../../test/e2e/kubectl.js";

let api: RunningApiServer;
let k: Kubectl;

beforeAll(async () => {
  api = await startApiServer({ port: 0, insecureHttp: true });
  k = new Kubectl(api.kubeconfigPath);
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

interface Reply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

async function req(method: string, path: string, body: unknown, contentType: string, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(api.url + path, {
    method,
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "Content-Type": contentType, ...headers },
  });
  return { status: res.status, body: await res.json() };
}

const CM = "/api/v1/namespaces/default/configmaps";
const apply = (name: string, body: unknown, query = "fieldManager=tool") =>
  req("PATCH", `${CM}/${name}?${query}`, body, "application/apply-patch+yaml");

describe("server-side apply over HTTP", () => {
  it("requires a field manager, with upstream's 422", async () => {
    const r = await apply("nomgr", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "nomgr" } }, "");
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const force = await req("PATCH", `${CM}/x?force=true`, {}, "application/merge-patch+json");
    expect(force.status).toBe(422);
    expect(force.body.message).toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });

  it("creates from YAML (201), is a no-op when re-applied, and records an Apply entry", async () => {
    const yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a1\ndata:\n  k: v\n";
    const c = await apply("a1", yaml);
    expect(c.status).toBe(201);
    expect(c.body.data).toEqual({ k: "v" });
    expect(c.body.metadata.managedFields).toEqual([
      { manager: "tool", operation: "Apply", apiVersion: "v1", time: expect.any(String), fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:k": {} } } },
    ]);
    const again = await apply("a1", yaml);
    expect(again.status).toBe(200);
    expect(again.body.metadata.resourceVersion).toBe(c.body.metadata.resourceVersion);
  });

  it("records updates by their manager (the User-Agent prefix by default) and reports conflicts with 409", async () => {
    await apply("a2", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a2" }, data: { k: "v" } });
    const upd = await req("PATCH", `${CM}/a2`, { data: { k: "edited" } }, "application/merge-patch+json", { "User-Agent": "editor/1.0 (linux)" });
    expect(upd.status).toBe(200);
    expect(upd.body.metadata.managedFields.map((e: { manager: string; operation: string }) => `${e.manager}/${e.operation}`)).toEqual(["editor/Update"]);
    const conflict = await apply("a2", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a2" }, data: { k: "mine" } });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({
      kind: "Status",
      reason: "Conflict",
      code: 409,
      message: 'Apply failed with 1 conflict: conflict with "editor" using v1: .data.k',
      details: { causes: [{ reason: "FieldManagerConflict", message: 'conflict with "editor" using v1', field: ".data.k" }] },
    });
    const forced = await apply("a2", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a2" }, data: { k: "mine" } }, "fieldManager=tool&force=true");
    expect(forced.status).toBe(200);
    expect(forced.body.data).toEqual({ k: "mine" });
    expect(forced.body.metadata.managedFields.map((e: { manager: string }) => e.manager)).toEqual(["tool"]);
  });

  it("removes fields dropped from the configuration, and applies to /status", async () => {
    const DEP = "/apis/apps/v1/namespaces/default/deployments";
    const dep = (labels: Record<string, string>) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d1", labels },
      spec: { selector: { matchLabels: { app: "d1" } }, template: { metadata: { labels: { app: "d1" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
    });
    const c = await req("PATCH", `${DEP}/d1?fieldManager=tool`, dep({ a: "1", b: "2" }), "application/apply-patch+yaml");
    expect(c.status).toBe(201);
    expect(c.body.spec.strategy.type).toBe("RollingUpdate");
    const u = await req("PATCH", `${DEP}/d1?fieldManager=tool`, dep({ a: "1" }), "application/apply-patch+yaml");
    expect(u.body.metadata.labels).toEqual({ a: "1" });
    const s = await req(
      "PATCH",
      `${DEP}/d1/status?fieldManager=ctrl`,
      { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d1" }, status: { observedGeneration: 1 } },
      "application/apply-patch+yaml",
    );
    expect(s.status).toBe(200);
    expect(s.body.status.observedGeneration).toBe(1);
    expect(s.body.metadata.managedFields.find((e: { manager: string }) => e.manager === "ctrl")).toMatchObject({
      operation: "Apply",
      subresource: "status",
      fieldsV1: { "f:status": { "f:observedGeneration": {} } },
    });
  });
});

describe("kubectl apply --server-side", () => {
  const deploymentYaml = (replicas: number, image = "nginx:1.27") => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ssa-web
  namespace: default
spec:
  replicas: ${replicas}
  selector:
    matchLabels: { app: ssa-web }
  template:
    metadata:
      labels: { app: ssa-web }
    spec:
      containers:
      - name: web
        image: ${image}
        ports:
        - containerPort: 80
`;

  it("creates, is unchanged, configures; conflicts name the other manager (kubectl scale is manager kubectl); --force-conflicts wins", async () => {
    const file = await k.manifest("ssa.yaml", deploymentYaml(2));
    expect((await k.ok(["apply", "--server-side", "-f", file])).trim()).toBe("deployment.apps/ssa-web serverside-applied");
    expect((await k.ok(["apply", "--server-side", "-f", file])).trim()).toBe("deployment.apps/ssa-web serverside-applied");
    const fields = JSON.parse(await k.ok(["get", "deployment", "ssa-web", "-o", "json", "--show-managed-fields"]));
    expect(fields.metadata.managedFields).toHaveLength(1);
    expect(fields.metadata.managedFields[0]).toMatchObject({ manager: "kubectl", operation: "Apply" });
    expect(fields.metadata.managedFields[0].fieldsV1["f:spec"]["f:template"]["f:spec"]["f:containers"]['k:{"name":"web"}']["f:ports"]).toEqual({
      'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:containerPort": {} },
    });

    await k.ok(["scale", "deployment", "ssa-web", "--replicas=5"]);
    const conflict = await k.run(["apply", "--server-side", "-f", await k.manifest("ssa3.yaml", deploymentYaml(3))]);
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas');
    expect(conflict.stderr).toContain("--force-conflicts");

    await k.ok(["apply", "--server-side", "--force-conflicts", "-f", await k.manifest("ssa3.yaml", deploymentYaml(3, "nginx:1.28"))]);
    const after = JSON.parse(await k.ok(["get", "deployment", "ssa-web", "-o", "json", "--show-managed-fields"]));
    expect(after.spec.replicas).toBe(3);
    expect(after.spec.template.spec.containers[0].image).toBe("nginx:1.28");
    // The scaler's Update entry lost its only field to the forced apply and is gone.
    expect(after.metadata.managedFields.map((e: { manager: string; operation: string }) => `${e.manager}/${e.operation}`)).toEqual(["kubectl/Apply"]);
  });

  it("takes over an object created by client-side apply", async () => {
    const yaml = deploymentYaml(2).replaceAll("ssa-web", "csa-web");
    const file = await k.manifest("csa.yaml", yaml);
    await k.ok(["apply", "-f", file]);
    const before = JSON.parse(await k.ok(["get", "deployment", "csa-web", "-o", "json", "--show-managed-fields"]));
    expect(before.metadata.managedFields.map((e: { manager: string }) => e.manager)).toContain("kubectl-client-side-apply");
    const changed = await k.manifest("csa2.yaml", deploymentYaml(4).replaceAll("ssa-web", "csa-web"));
    expect((await k.ok(["apply", "--server-side", "-f", changed])).trim()).toBe("deployment.apps/csa-web serverside-applied");
    const after = JSON.parse(await k.ok(["get", "deployment", "csa-web", "-o", "json", "--show-managed-fields"]));
    expect(after.spec.replicas).toBe(4);
    expect(after.metadata.managedFields.map((e: { manager: string }) => e.manager)).toContain("kubectl");
  });
});
