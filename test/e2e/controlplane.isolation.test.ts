/**
 * The control plane with its API server in a process or thread of its own, as built (dist/: the
 * host is started from built JavaScript) and as `kubeloop up` runs it: a Deployment rolls out
 * through the real kubectl, stop() leaves no process behind, the server's start errors reject
 * the start, a killed parent takes its API server with it, and `kubeloop up
 * --apiserver-isolation=process` says which pid serves, stops cleanly on SIGINT and exits
 * non-zero when its API server dies.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../../scripts/build.mjs";
import type * as ControlPlane from "../../src/controlplane/index.js";
import { eventually } from "./application-env.js";
import { Kubectl } from "./kubectl.js";
import { root } from "./pod.js";

let dist: typeof ControlPlane;
const work = mkdtempSync(join(tmpdir(), "kubeloop-isolation-"));
const fastKubelet = { nodes: 2, heartbeatIntervalMs: 0, delays: { schedule: 0, containerCreating: 10, running: 10 } };

beforeAll(async () => {
  ensureBuilt({ log: () => {} });
  dist = (await import(pathToFileURL(join(root, "dist", "controlplane", "index.js")).href)) as typeof ControlPlane;
}, 600_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.each(["process", "thread"] as const)("startControlPlane({ apiServerIsolation: %s })", (isolation) => {
  it("rolls a Deployment out through kubectl, and stop() leaves nothing running", async () => {
    const cp = await dist.startControlPlane({ port: 0, apiServerIsolation: isolation, kubelet: fastKubelet });
    try {
      await cp.ready;
      expect(cp.api.isolation).toBe(isolation);
      if (isolation === "process") {
        expect(cp.api.pid).not.toBe(process.pid);
        expect(alive(cp.api.pid!)).toBe(true);
      } else {
        expect(cp.api.threadId).toBeGreaterThan(0);
      }
      const k = new Kubectl(cp.api.kubeconfigPath);
      await k.ok(["create", "deployment", "web", "--image=nginx", "--replicas=3"]);
      const r = await k.run(["rollout", "status", "deployment/web", "--timeout=120s"], undefined, 130_000);
      expect(r.stdout).toContain('deployment "web" successfully rolled out');
      const pods = JSON.parse(await k.ok(["get", "pods", "-o", "json"])) as { items: Array<{ status: { phase: string; conditions?: Array<{ type: string; status: string }> } }> };
      expect(pods.items).toHaveLength(3);
      for (const p of pods.items) expect(p.status.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
      // kubeconfigForUser issues from the server's CA as an inline server's does.
      const alice = cp.api.kubeconfigForUser!("alice", ["dev"]);
      const ak = new Kubectl(join(work, `alice-${isolation}`));
      writeFileSync(ak.kubeconfigPath, alice);
      expect((await ak.run(["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"])).stdout).toBe("alice");
    } finally {
      await cp.stop();
    }
    if (isolation === "process") expect(alive(cp.api.pid!)).toBe(false);
  }, 240_000);

  it("rejects the start with the server's own error (the data directory in use)", async () => {
    const dataDir = join(work, `data-${isolation}`);
    const first = await dist.startControlPlane({ port: 0, apiServerIsolation: isolation, dataDir, controllers: [] });
    try {
      const second = dist.startControlPlane({ port: 0, apiServerIsolation: isolation, dataDir, controllers: [] });
      await expect(second).rejects.toMatchObject({ name: "DataDirInUseError" });
    } finally {
      await first.stop();
    }
  }, 120_000);
});

it("refuses options that cannot cross to the API server's own process", async () => {
  await expect(dist.startControlPlane({ port: 0, apiServerIsolation: "process", server: { podLogs: () => [] } })).rejects.toMatchObject({
    name: "ApiServerIsolationError",
    message: expect.stringContaining("options.server.podLogs") as unknown,
  });
});

const started: ChildProcess[] = [];
// Whatever a failed test left running (its API server child exits with it).
afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

/** Starts `node args…`, collecting stdout lines; resolves `line(re)` once a line matches. */
function run(args: string[]): { child: ChildProcess; line(re: RegExp): Promise<RegExpMatchArray>; exit: Promise<number | null>; output(): string } {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  started.push(child);
  let out = "";
  const waiters: Array<{ re: RegExp; resolve(m: RegExpMatchArray): void }> = [];
  const check = () => {
    for (const w of [...waiters]) {
      const m = out.match(w.re);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  child.stdout!.on("data", (d: Buffer) => ((out += d.toString()), check()));
  child.stderr!.on("data", (d: Buffer) => ((out += d.toString()), check()));
  const exit = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return {
    child,
    line: (re) =>
      new Promise((resolve, reject) => {
        waiters.push({ re, resolve });
        check();
        void exit.then((code) => reject(new Error(`exited (${code}) before ${re}: ${out}`)));
      }),
    exit,
    output: () => out,
  };
}

it("a killed parent takes its API server process with it", async () => {
  const script = `
    const { startControlPlane } = await import(${JSON.stringify(pathToFileURL(join(root, "dist", "controlplane", "index.js")).href)});
    const cp = await startControlPlane({ port: 0, apiServerIsolation: "process", controllers: [] });
    console.log("apiserver pid " + cp.api.pid);
    setInterval(() => {}, 1000);`;
  const p = run(["--input-type=module", "-e", script]);
  const pid = Number((await p.line(/apiserver pid (\d+)/))[1]);
  expect(alive(pid)).toBe(true);
  p.child.kill("SIGKILL");
  await p.exit;
  await eventually("the API server process exits", () => !alive(pid), 60_000);
}, 120_000);

describe("kubeloop up --apiserver-isolation=process", () => {
  const up = (kubeconfig: string) =>
    run([
      join(root, "dist", "cli", "main.js"),
      "up",
      "--port",
      "0",
      "--no-demo",
      "--heartbeat-interval",
      "0",
      "--kubeconfig-out",
      kubeconfig,
      "--kubeconfig-update-default=false",
      "--apiserver-isolation",
      "process",
    ]);

  it("serves from its own process, and stops it on SIGINT", async () => {
    const kubeconfig = join(work, "up-kubeconfig");
    const p = up(kubeconfig);
    const pid = Number((await p.line(/API server\s+https:\/\/\S+ \(own process, pid (\d+)\)/))[1]);
    await p.line(/try\s+kubectl/);
    // The simulated kubelet registers its three nodes once the controllers run.
    const k = new Kubectl(kubeconfig);
    await eventually("three nodes", async () => (await k.ok(["get", "nodes", "-o", "name"])).trim().split("\n").length === 3, 60_000);
    p.child.kill("SIGINT");
    expect(await p.exit).toBe(0);
    expect(p.output()).toContain("received SIGINT, stopping");
    expect(alive(pid)).toBe(false);
  }, 180_000);

  it("exits non-zero, saying so, when its API server dies", async () => {
    const p = up(join(work, "up-kubeconfig-crash"));
    const pid = Number((await p.line(/own process, pid (\d+)/))[1]);
    await p.line(/try\s+kubectl/);
    process.kill(pid, "SIGKILL");
    expect(await p.exit).not.toBe(0);
    expect(p.output()).toMatch(/the API server's process ended unexpectedly \(killed by SIGKILL\)/);
  }, 180_000);
});
