import { existsSync } from "node:fs";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensureKubectl } from "../../scripts/kubectl.mjs";
import { kubeloopVersion } from "../client/version.js";
import { captureIO as io } from "../../test/cli/io.js";
import { runCli } from "./main.js";



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
    const done = runCli(["up", "--port", "0", "--insecure-http", "--heartbeat-interval", "0", "--kubeconfig-update-default=false"], a);
    for (let i = 0; i < 3000 && !a.lines.some((l) => l.startsWith("The demo converged.")); i++) await new Promise((r) => setTimeout(r, 10));
    expect(a.lines[0]).toMatch(/^kubeloop control plane ready in \d+ ms$/);
    // Every controller but the root CA publisher (plain HTTP: no CA) and node lifecycle (no heartbeats).
    expect(a.lines).toContain(
      "  controllers  deployment, replicaset, job, cronjob, ttlafterfinished, garbagecollector, podlifecycle, endpoints, application, namespace, endpointslice, endpointslicemirroring, disruption, statefulset, daemonset, persistentvolume, volumeprovisioner, pvcprotection, pvprotection, serviceaccount, serviceaccounttoken, resourcequota, podgc, tainteviction, podautoscaler",
    );
    expect(a.lines.some((l) => /^application\/web {2}3\/3 available {2}image nginx:1\.27 {2}100% {2}converged$/.test(l))).toBe(true);
    const url = a.lines.find((l) => l.startsWith("  API server"))!.split(/\s+/).pop()!;
    const pods = (await (await fetch(`${url}/api/v1/namespaces/default/pods`)).json()) as { items: Array<{ spec: { nodeName?: string } }> };
    expect(pods.items).toHaveLength(3);
    expect(pods.items.every((p) => p.spec.nodeName?.startsWith("kubeloop-node-"))).toBe(true);
    stop("SIGINT");
    expect(await done).toBe(0);
    // No log lines by default: the live view is the output.
    expect(a.errors).toEqual([]);
  });

  it("up -v info writes the control plane's logs to stderr", async () => {
    let stop!: (s: string) => void;
    const a = io(new Promise((r) => (stop = r)));
    const done = runCli(["up", "--port", "0", "--no-demo", "--heartbeat-interval", "0", "--kubeconfig-update-default=false", "-v", "info"], a);
    for (let i = 0; i < 3000 && !a.lines.some((l) => l.startsWith("  try")); i++) await new Promise((r) => setTimeout(r, 10));
    stop("SIGINT");
    expect(await done).toBe(0);
    expect(a.errors.some((l) => / INFO {2}\[kubeloop\] Starting Controller controller=application/.test(l))).toBe(true);
  });

  it("refuses a data directory whose database lost committed writes, unless --accept-data-loss", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kubeloop-cli-loss-"));
    try {
      const { SqliteStorage } = await import("../apiserver/storage/sqlite.js");
      const s = SqliteStorage.open(dir);
      await s.create("/k/a", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } });
      await s.close();
      // The marker says more was committed than the database holds (e.g. a truncated WAL).
      const { CommitMarker } = await import("../apiserver/storage/commitmarker.js");
      const m = CommitMarker.open(dir, { sync: false });
      m.record(1000);
      m.close();
      const refused = io();
      expect(await runCli(["apiserver", "--port", "0", "--insecure-http", "--data-dir", dir], refused)).not.toBe(0);
      expect(refused.errors).toHaveLength(1);
      expect(refused.errors[0]).toMatch(/^error: data directory .* but revision 1000 was committed .* --accept-data-loss/);

      let stop!: (s: string) => void;
      const a = io(new Promise((r) => (stop = r)));
      const done = runCli(["apiserver", "--port", "0", "--insecure-http", "--data-dir", dir, "--accept-data-loss"], a);
      for (let i = 0; i < 500 && !a.lines.some((l) => l.startsWith("try:")); i++) await new Promise((r) => setTimeout(r, 10));
      expect(a.errors.some((l) => l.startsWith("warning: ") && l.includes("accepted: continuing from revision 1000"))).toBe(true);
      const url = a.lines[0].replace("kubeloop API server listening on ", "");
      const ns = (await (await fetch(`${url}/api/v1/namespaces/default`)).json()) as { metadata: { resourceVersion: string } };
      expect(Number(ns.metadata.resourceVersion)).toBeGreaterThan(1000);
      stop("SIGTERM");
      expect(await done).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("up --controllers selects as kube-controller-manager's flag: '*', '-name' with kubeloop's or upstream's names; no demo without the application controller", async () => {
    let stop!: (s: string) => void;
    const a = io(new Promise((r) => (stop = r)));
    const done = runCli(
      ["up", "--port", "0", "--insecure-http", "--heartbeat-interval", "0", "--kubeconfig-update-default=false", "--controllers", "-application,*,-daemonset-controller,-endpoint,podlifecycle"],
      a,
    );
    for (let i = 0; i < 3000 && !a.lines.some((l) => l.startsWith("No demo")); i++) await new Promise((r) => setTimeout(r, 10));
    expect(a.lines).toContain(
      "  controllers  deployment, replicaset, job, cronjob, ttlafterfinished, garbagecollector, podlifecycle, namespace, endpointslice, endpointslicemirroring, disruption, statefulset, persistentvolume, volumeprovisioner, pvcprotection, pvprotection, serviceaccount, serviceaccounttoken, resourcequota, podgc, tainteviction, podautoscaler",
    );
    expect(a.lines).toContain("No demo: it needs the application controller, which --controllers leaves out");
    stop("SIGINT");
    expect(await done).toBe(0);
  });

  it("up --controllers with a name no controller has: one line, exit 1, nothing started", async () => {
    const a = io(new Promise(() => {}));
    expect(await runCli(["up", "--port", "0", "--insecure-http", "--kubeconfig-update-default=false", "--controllers", "*,-nope-controller"], a)).toBe(1);
    expect(a.errors.join("\n")).toContain('"nope-controller" is not in the list of known controllers');
    expect(a.lines.some((l) => l.startsWith("kubeloop control plane ready"))).toBe(false);
  });

  it("controller rejects an unknown controller name", async () => {
    const a = io(new Promise(() => {}));
    expect(await runCli(["controller", "nope"], a)).toBe(1);
    expect(a.errors.join("\n")).toContain('unknown controller "nope": expected one of deployment, replicaset, job, cronjob, ttlafterfinished, garbagecollector, endpoints, podlifecycle, application, namespace, endpointslice, endpointslicemirroring, disruption, statefulset, daemonset, persistentvolume, volumeprovisioner, pvcprotection, pvprotection, serviceaccount, serviceaccounttoken, rootcacertpublisher, resourcequota, podgc, nodelifecycle, tainteviction, podautoscaler');
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

  it("up merges a kubeloop context into the user's kubeconfig (KUBECONFIG) and removes it on exit", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kubeloop-cli-kc-"));
    const userKubeconfig = join(dir, "config");
    await writeFile(
      userKubeconfig,
      "# mine\napiVersion: v1\nkind: Config\ncurrent-context: work\nclusters:\n- name: work\n  cluster: {server: 'https://work.example:6443'}\nusers:\n- name: work\n  user: {token: t}\ncontexts:\n- name: work\n  context: {cluster: work, user: work}\n",
    );
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = userKubeconfig;
    try {
      let stop!: (s: string) => void;
      const a = io(new Promise((r) => (stop = r)));
      const done = runCli(["up", "--port", "0", "--no-demo", "--heartbeat-interval", "0"], a);
      for (let i = 0; i < 3000 && !a.lines.some((l) => l.startsWith("  try")); i++) await new Promise((r) => setTimeout(r, 10));
      expect(a.lines).toContain(`  context      kubeloop in ${userKubeconfig} (current; removed on exit)`);
      expect(a.lines).toContain("  try          kubectl get nodes");
      // Stock kubectl, with nothing but the user's own kubeconfig, reaches the control plane.
      // (spawned asynchronously: the API server answers from this very process)
      const kubectl = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(ensureKubectl(), ["get", "namespaces", "-o", "name"], { env: { ...process.env, KUBECONFIG: userKubeconfig, HOME: dir } });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
        child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        child.on("error", reject);
        child.on("close", () => resolve({ stdout, stderr }));
      });
      expect(kubectl.stderr).toBe("");
      expect(kubectl.stdout).toContain("namespace/default");
      const merged = await readFile(userKubeconfig, "utf8");
      expect(merged).toContain("# mine");
      expect(merged).toContain("current-context: kubeloop");
      expect(merged).toContain("https://work.example:6443");
      stop("SIGINT");
      expect(await done).toBe(0);
      const after = await readFile(userKubeconfig, "utf8");
      expect(after).toContain("current-context: work");
      expect(after).not.toContain("kubeloop");
      expect(after).toContain("# mine");
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("prints its version", async () => {
    const a = io();
    expect(await runCli(["--version"], a)).toBe(0);
    expect(a.lines).toEqual([kubeloopVersion]);
  });

  it("controller validates the leader-election flags as kube-controller-manager does", async () => {
    const a = io(new Promise(() => {}));
    expect(await runCli(["controller", "deployment", "--leader-elect", "--leader-elect-lease-duration=5s", "--leader-elect-renew-deadline=10s"], a)).toBe(1);
    expect(a.errors).toEqual(["error: --leader-elect-lease-duration must be greater than --leader-elect-renew-deadline"]);
    const b = io(new Promise(() => {}));
    expect(await runCli(["controller", "deployment", "--leader-elect-retry-period=soon"], b)).not.toBe(0);
    expect(b.errors[0]).toContain('invalid duration "soon"');
    const c = io(new Promise(() => {}));
    expect(await runCli(["controller", "deployment", "--kube-api-burst=0"], c)).not.toBe(0);
    expect(c.errors[0]).toContain("must be a positive integer");
    const d = io(new Promise(() => {}));
    expect(await runCli(["controller", "deployment", "-v", "loud"], d)).not.toBe(0);
    expect(d.errors[0]).toContain('invalid log level "loud"');
  });
});
