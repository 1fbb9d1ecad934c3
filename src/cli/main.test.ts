import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, type CliIO } from "./main.js";

function io(stop?: Promise<string>): CliIO & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    lines,
    errors,
    out: (l) => lines.push(l),
    err: (l) => errors.push(l),
    stopSignal: () => stop ?? new Promise(() => {}),
  };
}


describe("kubeloop CLI", () => {
  it("rejects unknown flags and bad values with one line and a non-zero exit", async () => {
    const a = io();
    expect(await runCli(["apiserver", "--bogus"], a)).not.toBe(0);
    expect(a.errors).toEqual(["error: unknown option '--bogus'"]);
    const b = io();
    expect(await runCli(["up", "--port", "http"], b)).not.toBe(0);
    expect(b.errors).toHaveLength(1);
    expect(b.errors[0]).toContain("must be an integer between 0 and 65535");
    const c = io();
    expect(await runCli(["frobnicate"], c)).not.toBe(0);
    expect(c.errors[0]).toContain("unknown command 'frobnicate'");
  });

  it("keeps state in --data-dir across runs", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kubeloop-cli-"));
    try {
      const runOnce = async () => {
        let stop!: (s: string) => void;
        const a = io(new Promise((r) => (stop = r)));
        const done = runCli(["apiserver", "--port", "0", "--data-dir", dir], a);
        for (let i = 0; i < 500 && !a.lines.some((l) => l.startsWith("kubeconfig: ")); i++) await new Promise((r) => setTimeout(r, 10));
        stop("SIGTERM");
        expect(await done).toBe(0);
      };
      // The namespace "default" created by the first run is the one the second run finds.
      const defaultNamespace = async () => {
        const { SqliteStorage } = await import("../apiserver/storage/sqlite.js");
        const s = SqliteStorage.open(dir);
        try {
          return { uid: (await s.get("/registry/core/namespaces/default"))?.object.metadata?.uid, rev: s.currentRevision() };
        } finally {
          await s.close();
        }
      };
      await runOnce();
      const first = await defaultNamespace();
      expect(first.uid).toBeTruthy();
      await runOnce();
      const second = await defaultNamespace();
      expect(second.uid).toBe(first.uid);
      expect(second.rev).toBeGreaterThanOrEqual(first.rev);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("runs the API server until asked to stop, writing a kubeconfig", async () => {
    let stop!: (s: string) => void;
    const a = io(new Promise((r) => (stop = r)));
    const done = runCli(["apiserver", "--port", "0", "--insecure-http"], a);
    for (let i = 0; i < 500 && !a.lines.some((l) => l.startsWith("try:")); i++) await new Promise((r) => setTimeout(r, 10));
    const url = a.lines[0].replace("kubeloop API server listening on ", "");
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const kubeconfig = a.lines.find((l) => l.startsWith("kubeconfig: "))!.slice("kubeconfig: ".length);
    expect(await readFile(kubeconfig, "utf8")).toContain(`server: ${url}`);
    expect(await (await fetch(`${url}/api/v1/namespaces/default`)).json()).toMatchObject({ kind: "Namespace" });
    stop("SIGTERM");
    expect(await done).toBe(0);
    expect(existsSync(kubeconfig)).toBe(false);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it("up runs every controller and converges the demo, then stops cleanly", async () => {
    let stop!: (s: string) => void;
    const a = io(new Promise((r) => (stop = r)));
    const done = runCli(["up", "--port", "0", "--insecure-http", "--heartbeat-interval", "0"], a);
    for (let i = 0; i < 3000 && !a.lines.some((l) => l.startsWith("The demo converged.")); i++) await new Promise((r) => setTimeout(r, 10));
    expect(a.lines[0]).toMatch(/^kubeloop control plane ready in \d+ ms$/);
    expect(a.lines).toContain("  controllers  application, deployment, replicaset, garbage collector, endpoints, simulated kubelet, namespace");
    expect(a.lines.some((l) => /^application\/web {2}3\/3 available {2}image nginx:1\.27 {2}100% {2}converged$/.test(l))).toBe(true);
    const url = a.lines.find((l) => l.startsWith("  API server"))!.split(/\s+/).pop()!;
    const pods = (await (await fetch(`${url}/api/v1/namespaces/default/pods`)).json()) as { items: Array<{ spec: { nodeName?: string } }> };
    expect(pods.items).toHaveLength(3);
    expect(pods.items.every((p) => p.spec.nodeName?.startsWith("kubeloop-node-"))).toBe(true);
    stop("SIGINT");
    expect(await done).toBe(0);
  });

  it("controller rejects an unknown controller name", async () => {
    const a = io(new Promise(() => {}));
    expect(await runCli(["controller", "nope"], a)).toBe(1);
    expect(a.errors.join("\n")).toContain('unknown controller "nope": expected one of deployment, replicaset, garbagecollector, endpoints, podlifecycle, application, namespace');
  });

  it("serves https by default, with a kubeconfig that verifies the CA", async () => {
    let stop!: (s: string) => void;
    const a = io(new Promise((r) => (stop = r)));
    const done = runCli(["apiserver", "--port", "0"], a);
    for (let i = 0; i < 500 && !a.lines.some((l) => l.startsWith("try:")); i++) await new Promise((r) => setTimeout(r, 10));
    expect(a.lines[0]).toMatch(/^kubeloop API server listening on https:\/\/127\.0\.0\.1:\d+$/);
    const kubeconfig = a.lines.find((l) => l.startsWith("kubeconfig: "))!.slice("kubeconfig: ".length);
    const text = await readFile(kubeconfig, "utf8");
    expect(text).toContain("certificate-authority-data");
    expect(text).toContain("client-certificate-data");
    stop("SIGTERM");
    expect(await done).toBe(0);
  });
});
