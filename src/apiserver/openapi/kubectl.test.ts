/**
 * The real kubectl 1.35 against the documents: a small loopback server serves legacy discovery,
 * /openapi/v2, /openapi/v3 and an in-memory store, and kubectl's explain, apply (client-side),
 * create -f and replace -f must work with no warning and without falling back to /openapi/v2.
 * Skipped when the kubectl binary cannot be extracted (scripts/kubectl.mjs).
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openAPIV2, openAPIV3GroupVersion, openAPIV3Paths, type ServedResource } from "./index.js";

const ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
const resources: ServedResource[] = [
  { group: "", version: "v1", kind: "Pod", listKind: "PodList", resource: "pods", namespaced: true, verbs: ALL_VERBS, subresources: ["status", "log"], shortNames: ["po"], categories: ["all"], singular: "pod" },
  { group: "", version: "v1", kind: "ConfigMap", listKind: "ConfigMapList", resource: "configmaps", namespaced: true, verbs: ALL_VERBS, subresources: [], shortNames: ["cm"], categories: [], singular: "configmap" },
  { group: "", version: "v1", kind: "Namespace", listKind: "NamespaceList", resource: "namespaces", namespaced: false, verbs: ["create", "delete", "get", "list", "patch", "update", "watch"], subresources: ["status", "finalize"], shortNames: ["ns"], categories: [], singular: "namespace" },
  { group: "apps", version: "v1", kind: "Deployment", listKind: "DeploymentList", resource: "deployments", namespaced: true, verbs: ALL_VERBS, subresources: ["status", "scale"], shortNames: ["deploy"], categories: ["all"], singular: "deployment" },
  {
    group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition", listKind: "CustomResourceDefinitionList", resource: "customresourcedefinitions",
    namespaced: false, verbs: ALL_VERBS, subresources: ["status"], shortNames: ["crd"], categories: ["api-extensions"], singular: "customresourcedefinition",
  },
];

interface Recorded {
  method: string;
  url: string;
  contentType: string;
  body: string;
}

function kubectlPath(): string | undefined {
  try {
    return execFileSync(process.execPath, ["scripts/kubectl.mjs"], { encoding: "utf8" }).trim().split("\n").pop();
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

function discovery(gv: string): object {
  const [group, version] = gv.includes("/") ? gv.split("/") : ["", gv];
  const list = resources.filter((r) => r.group === group && r.version === version);
  const entries: object[] = [];
  for (const r of list) {
    entries.push({ name: r.resource, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: r.verbs, shortNames: r.shortNames, categories: r.categories });
    for (const s of r.subresources) entries.push({ name: `${r.resource}/${s}`, singularName: "", namespaced: r.namespaced, kind: r.kind, verbs: ["get", "patch", "update"] });
  }
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: gv, resources: entries };
}

/** A stand-in API server: discovery, OpenAPI, and a map of objects by URL path. */
function startServer(requests: Recorded[]): Promise<Server> {
  const store = new Map<string, Record<string, unknown>>();
  let rv = 1;
  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? "/", "http://x");
    requests.push({ method: req.method ?? "", url: req.url ?? "", contentType: String(req.headers["content-type"] ?? ""), body });
    const path = url.pathname;
    if (path === "/api") return send(res, 200, { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] });
    if (path === "/apis") {
      const groups = [...new Set(resources.filter((r) => r.group !== "").map((r) => r.group))].map((g) => ({
        name: g,
        versions: [{ groupVersion: `${g}/v1`, version: "v1" }],
        preferredVersion: { groupVersion: `${g}/v1`, version: "v1" },
      }));
      return send(res, 200, { kind: "APIGroupList", apiVersion: "v1", groups });
    }
    if (path === "/api/v1") return send(res, 200, discovery("v1"));
    const gvMatch = /^\/apis\/([^/]+)\/([^/]+)$/.exec(path);
    if (gvMatch) return send(res, 200, discovery(`${gvMatch[1]}/${gvMatch[2]}`));
    if (path === "/openapi/v2") return send(res, 200, openAPIV2(resources));
    if (path === "/openapi/v3") return send(res, 200, openAPIV3Paths(resources));
    if (path.startsWith("/openapi/v3/")) {
      const doc = openAPIV3GroupVersion(path.slice("/openapi/v3/".length), resources);
      return doc ? send(res, 200, doc) : send(res, 404, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 });
    }
    if (req.method === "POST") {
      const obj = JSON.parse(body) as { metadata: Record<string, unknown> };
      obj.metadata = { ...obj.metadata, uid: `uid-${rv}`, resourceVersion: String(++rv), creationTimestamp: "2026-01-01T00:00:00Z" };
      store.set(`${path}/${String(obj.metadata.name)}`, obj);
      return send(res, 201, obj);
    }
    const existing = store.get(path);
    if (!existing) return send(res, 404, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "not found", reason: "NotFound", code: 404 });
    if (req.method === "PUT") {
      const obj = JSON.parse(body) as Record<string, unknown>;
      store.set(path, obj);
      return send(res, 200, obj);
    }
    // GET, and PATCH (answered with the stored object: these tests look at what kubectl sends).
    return send(res, 200, existing);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const kubectl = kubectlPath();

describe.skipIf(!kubectl)("real kubectl 1.35 against the served OpenAPI", () => {
  const requests: Recorded[] = [];
  let server: Server;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    server = await startServer(requests);
    const { port } = server.address() as AddressInfo;
    dir = mkdtempSync(join(tmpdir(), "kubeloop-openapi-"));
    kubeconfig = join(dir, "kubeconfig");
    writeFileSync(
      kubeconfig,
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:" + port + "'}}]",
        "users: [{name: u, user: {}}]",
        "contexts: [{name: c, context: {cluster: c, user: u, namespace: default}}]",
        "current-context: c",
      ].join("\n"),
    );
  });
  afterAll(() => {
    server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const run = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(kubectl!, ["--kubeconfig", kubeconfig, "--cache-dir", join(dir, "cache"), ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      });
    });

  test("explain deployment.spec.strategy", async () => {
    const r = await run("explain", "deployment.spec.strategy");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("GROUP:      apps");
    expect(r.stdout).toContain("FIELD: strategy <DeploymentStrategy>");
    expect(r.stdout).toContain("The deployment strategy to use to replace existing pods with new ones.");
    expect(r.stdout).toMatch(/rollingUpdate\s+<RollingUpdateDeployment>/);
    expect(r.stdout).toMatch(/type\s+<string>/);
  });

  test("explain pod.spec.containers.ports shows required fields and formats", async () => {
    const r = await run("explain", "pod.spec.containers.ports");
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/containerPort\s+<integer> -required-/);
    const metadata = await run("explain", "pod.metadata.creationTimestamp");
    expect(metadata.stdout).toContain("FIELD: creationTimestamp <string>");
  });

  test("apply (client-side) creates, then patches with a strategic merge patch keyed by container name", async () => {
    const manifest = (image: string) =>
      [
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata: {name: web, namespace: default}",
        "spec:",
        "  replicas: 2",
        "  selector: {matchLabels: {app: web}}",
        "  template:",
        "    metadata: {labels: {app: web}}",
        "    spec:",
        "      containers:",
        `      - {name: nginx, image: '${image}', ports: [{containerPort: 80}]}`,
      ].join("\n");
    const file = join(dir, "deploy.yaml");
    writeFileSync(file, manifest("nginx:1.25"));
    requests.length = 0;
    const first = await run("apply", "-f", file);
    expect(first.stderr).toBe("");
    expect(first.stdout.trim()).toBe("deployment.apps/web created");
    const post = requests.find((r) => r.method === "POST");
    expect(post?.url).toContain("fieldValidation=Strict");

    writeFileSync(file, manifest("nginx:1.26"));
    const second = await run("apply", "-f", file);
    expect(second.stderr).toBe("");
    expect(second.stdout.trim()).toBe("deployment.apps/web configured");
    const patch = requests.find((r) => r.method === "PATCH");
    expect(patch?.contentType).toBe("application/strategic-merge-patch+json");
    expect(patch?.url).toContain("fieldValidation=Strict");
    const body = JSON.parse(patch!.body) as { spec: { template: { spec: Record<string, unknown> } } };
    expect(body.spec.template.spec["$setElementOrder/containers"]).toEqual([{ name: "nginx" }]);
    expect(body.spec.template.spec.containers).toEqual([{ image: "nginx:1.26", name: "nginx" }]);
    expect(requests.some((r) => r.url.startsWith("/openapi/v2"))).toBe(false);
  });

  test("create -f and replace -f validate strictly with no fallback", async () => {
    const file = join(dir, "cm.yaml");
    writeFileSync(file, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm1, namespace: default}\ndata: {a: '1'}\n");
    requests.length = 0;
    const created = await run("create", "-f", file);
    expect(created.stderr).toBe("");
    expect(created.stdout.trim()).toBe("configmap/cm1 created");
    writeFileSync(file, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm1, namespace: default}\ndata: {a: '2'}\n");
    const replaced = await run("replace", "-f", file);
    expect(replaced.stderr).toBe("");
    expect(replaced.stdout.trim()).toBe("configmap/cm1 replaced");
    const put = requests.find((r) => r.method === "PUT");
    expect(put?.url).toContain("fieldValidation=Strict");
    expect(requests.some((r) => r.url.startsWith("/openapi/v2"))).toBe(false);
  });
});
