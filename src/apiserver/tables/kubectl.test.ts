/**
 * The real kubectl 1.35 printing the Tables: a loopback server answers `kubectl get` list
 * requests (Accept as=Table) with toTable output. Skipped when kubectl cannot be extracted.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { toTable } from "./index.js";

const NOW = Date.UTC(2026, 0, 10, 12, 0, 0);
const ago = (ms: number) => new Date(NOW - ms).toISOString();

const pods: KubeObject[] = [
  {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web-1", namespace: "default", creationTimestamp: ago(3 * 60_000 + 10_000), labels: { app: "web" } },
    spec: { containers: [{ name: "c" }], nodeName: "node-1" },
    status: {
      phase: "Running",
      podIPs: [{ ip: "10.1.0.4" }],
      containerStatuses: [{ name: "c", ready: true, restartCount: 2, state: { running: {} }, lastState: { terminated: { exitCode: 1, finishedAt: ago(5 * 60_000) } } }],
    },
  },
];

function kubectlPath(): string | undefined {
  try {
    return execFileSync(process.execPath, ["scripts/kubectl.mjs"], { encoding: "utf8" }).trim().split("\n").pop();
  } catch {
    return undefined;
  }
}

const kubectl = kubectlPath();

describe.skipIf(!kubectl)("real kubectl 1.35 prints the server's Tables", () => {
  let server: Server;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const json = (body: unknown, type = "application/json") => {
        res.writeHead(200, { "Content-Type": type });
        res.end(JSON.stringify(body));
      };
      if (path === "/api") return json({ kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] });
      if (path === "/apis") return json({ kind: "APIGroupList", apiVersion: "v1", groups: [] });
      if (path === "/api/v1") {
        return json({
          kind: "APIResourceList",
          apiVersion: "v1",
          groupVersion: "v1",
          resources: [{ name: "pods", singularName: "pod", namespaced: true, kind: "Pod", verbs: ["get", "list"], shortNames: ["po"] }],
        });
      }
      if (path === "/api/v1/namespaces/default/pods" && String(req.headers.accept).includes("as=Table")) {
        const table = toTable({ group: "", kind: "Pod" }, pods, { now: NOW });
        return json({ ...table, metadata: { resourceVersion: "7" } }, "application/json;as=Table;v=v1;g=meta.k8s.io");
      }
      res.writeHead(404, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    dir = mkdtempSync(join(tmpdir(), "kubeloop-tables-"));
    kubeconfig = join(dir, "kubeconfig");
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'http://127.0.0.1:${port}'}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: c, context: {cluster: c, user: u, namespace: default}}]\ncurrent-context: c\n`,
    );
  });
  afterAll(() => {
    server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const run = (...args: string[]) =>
    new Promise<{ stdout: string; stderr: string }>((resolve) => {
      execFile(kubectl!, ["--kubeconfig", kubeconfig, "--cache-dir", join(dir, "cache"), ...args], { timeout: 60_000 }, (_err, stdout, stderr) => resolve({ stdout, stderr }));
    });

  test("get pods, -o wide and --show-labels", async () => {
    const plain = await run("get", "pods");
    expect(plain.stderr).toBe("");
    const lines = plain.stdout.trimEnd().split("\n").map((l) => l.trim().split(/\s{2,}/));
    expect(lines).toEqual([
      ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
      ["web-1", "1/1", "Running", "2 (5m ago)", "3m10s"],
    ]);
    const wide = await run("get", "pods", "-o", "wide");
    expect(wide.stdout.split("\n")[0]!.trim().split(/\s{2,}/)).toEqual(["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"]);
    expect(wide.stdout).toMatch(/10\.1\.0\.4\s+node-1\s+<none>\s+<none>/);
    const labels = await run("get", "pods", "--show-labels");
    expect(labels.stdout).toMatch(/web-1 .* app=web/);
  });
});
