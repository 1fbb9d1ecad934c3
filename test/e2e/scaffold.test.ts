/**
 * `kubeloop init` and `kubeloop create api` as a newcomer meets them: kubeloop packed as npm
 * publishes it, the packed bin scaffolds `demo` into a temporary directory and adds a second,
 * cluster-scoped kind; the scaffold installs the tarball and its toolchain (from the npm cache:
 * the same versions kubeloop's lock file holds), then runs its own scripts — build (tsc),
 * typecheck, the CRD check, and `npm test` (unit tests on the fake client, integration tests on
 * startTestEnv) — and its manager, built, runs against `kubeloop up` and reconciles the samples
 * applied with the real kubectl; `kubectl apply -k deploy/` installs the controller there under
 * the restricted Pod Security profile.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { ensureKubectl } from "../../scripts/kubectl.mjs";
import { npm, packKubeloop } from "./pack.js";
import { root } from "./pod.js";

const work = mkdtempSync(join(tmpdir(), "kubeloop-scaffold-"));
const project = join(work, "demo");
let bin: string;
let tarball: string;

/** The environment of the scaffold's own tools: this test runner's variables removed, so its vitest is its own. */
const env: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST") && !["NODE_OPTIONS", "TEST", "FORCE_COLOR"].includes(k))),
  NO_COLOR: "1",
};
/** Terminal colours, whatever a tool decided. */
// eslint-disable-next-line no-control-regex -- the ESC of a colour sequence
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");

function run(cmd: string, args: string[], cwd: string): string {
  try {
    return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(" ")} failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }
}

const children: ChildProcess[] = [];
const exitCode = (c: ChildProcess) => new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.on("exit", (code) => r(code))));
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
});

beforeAll(() => {
  const packed = packKubeloop(work);
  tarball = packed.tarball;
  // The packed files, run with the checkout's dependencies (what `npm install` would bring).
  const unpacked = join(work, "unpacked");
  mkdirSync(unpacked);
  execFileSync("tar", ["-xzf", tarball, "-C", unpacked]);
  symlinkSync(join(root, "node_modules"), join(unpacked, "package", "node_modules"));
  bin = join(unpacked, "package", "dist", "cli", "main.js");
}, 600_000);

describe("a project made by kubeloop init", () => {
  it("scaffolds, installs against the packed package, builds, and passes its own tests", () => {
    const init = run(process.execPath, [bin, "init", "demo", "--dir", project], work);
    expect(init).toContain("created src/controllers/demo.ts");
    const api = run(process.execPath, [bin, "create", "api", "--group", "ops", "--version", "v1", "--kind", "Policy", "--cluster"], project);
    expect(api).toContain("updated src/main.ts");

    npm(["install", "--prefer-offline", "--no-audit", "--no-fund", tarball], project, env);
    const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8")) as { packages: Record<string, { version?: string }> };
    const ours = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as { packages: Record<string, { version?: string }> };
    for (const d of ["typescript", "vitest", "@types/node"]) expect(lock.packages[`node_modules/${d}`]?.version, d).toBe(ours.packages[`node_modules/${d}`]?.version);

    run("npm", ["run", "build"], project);
    run("npm", ["run", "typecheck"], project);
    // `npm run crd:gen` (kubeloop crd gen on the built declarations) reproduces the committed YAML.
    expect(run(join(project, "node_modules", ".bin", "kubeloop"), ["crd", "gen", "--check", "dist/api/index.js"], project).trim()).toBe("4 CRD file(s) up to date");
    const test = plain(run("npm", ["test"], project));
    expect(test).toMatch(/Test Files\s+5 passed \(5\)/);
  }, 600_000);

  it("runs its manager against kubeloop up, and reconciles the sample applied with kubectl", async () => {
    const kubectl = ensureKubectl();
    const kubeconfig = join(work, "kubeconfig");
    const up = spawn(process.execPath, [bin, "up", "--port", "0", "--no-demo", "--heartbeat-interval", "0", "--kubeconfig-out", kubeconfig, "--kubeconfig-update-default=false"], {
      cwd: work,
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    children.push(up);
    let upOut = "";
    up.stdout!.on("data", (d: Buffer) => (upOut += d.toString()));
    up.stderr!.on("data", (d: Buffer) => (upOut += d.toString()));
    const deadline = Date.now() + 120_000;
    const waitFor = async (what: string, probe: () => boolean) => {
      while (!probe()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${upOut}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    await waitFor("kubeloop up's kubeconfig", () => upOut.includes(kubeconfig));

    const manager = spawn(process.execPath, ["dist/main.js", "--kubeconfig", kubeconfig, "--install-crds", "--metrics-bind-address=0", "--health-probe-bind-address=0", "--log-level", "info"], {
      cwd: project,
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    children.push(manager);
    let managerOut = "";
    manager.stdout!.on("data", (d: Buffer) => (managerOut += d.toString()));
    manager.stderr!.on("data", (d: Buffer) => (managerOut += d.toString()));
    const k = (...args: string[]) => run(kubectl, ["--kubeconfig", kubeconfig, ...args], project);
    try {
      await waitFor("the manager to install the CRDs", () => {
        try {
          k("get", "crd", "demos.demo.example.com", "policies.ops.example.com");
          return true;
        } catch {
          return false;
        }
      });
      k("apply", "-f", "examples/");
      k("wait", "--for=condition=Ready", "--timeout=60s", "demo/demo-sample", "-n", "default");
      k("wait", "--for=condition=Ready", "--timeout=60s", "policy/policy-sample");
      expect(k("get", "configmap", "demo-sample-demo", "-n", "default", "-o", "jsonpath={.data.message}")).toBe("Hello from demo-sample");
      // deploy/ as shipped: the namespace enforces the restricted Pod Security profile, and admits the controller's pods.
      k("apply", "-k", "deploy/");
      k("wait", "--for=condition=Available", "--timeout=90s", "deployment/demo-controller", "-n", "demo-system");
    } catch (err) {
      throw new Error(`${(err as Error).message}\nmanager output:\n${managerOut}`);
    } finally {
      manager.kill("SIGTERM");
    }
    expect(await exitCode(manager), managerOut).toBe(0);

    // The RBAC of deploy/ is enough: the manager, as its ServiceAccount (impersonated), reconciles a change.
    const saKubeconfig = join(work, "kubeconfig-sa");
    const cfg = parse(readFileSync(kubeconfig, "utf8")) as { users: Array<{ user: Record<string, unknown> }> };
    const sa = parse(readFileSync(join(project, "deploy/serviceaccount.yaml"), "utf8")) as { metadata: { name: string; namespace: string } };
    for (const u of cfg.users) u.user.as = `system:serviceaccount:${sa.metadata.namespace}:${sa.metadata.name}`;
    writeFileSync(saKubeconfig, stringify(cfg));
    const asSA = spawn(process.execPath, ["dist/main.js", "--kubeconfig", saKubeconfig, "--metrics-bind-address=0", "--health-probe-bind-address=0", "--log-level", "info"], {
      cwd: project,
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    children.push(asSA);
    let saOut = "";
    asSA.stdout!.on("data", (d: Buffer) => (saOut += d.toString()));
    asSA.stderr!.on("data", (d: Buffer) => (saOut += d.toString()));
    try {
      k("patch", "demo/demo-sample", "-n", "default", "--type=merge", "-p", '{"spec":{"message":"Hello as the ServiceAccount"}}');
      await waitFor("the ServiceAccount's manager to reconcile the change", () => {
        try {
          return k("get", "configmap", "demo-sample-demo", "-n", "default", "-o", "jsonpath={.data.message}") === "Hello as the ServiceAccount";
        } catch {
          return false;
        }
      });
      expect(saOut).not.toMatch(/forbidden/i);
    } catch (err) {
      throw new Error(`${(err as Error).message}\nmanager (as its ServiceAccount) output:\n${saOut}`);
    } finally {
      asSA.kill("SIGTERM");
      up.kill("SIGINT");
    }
    expect(await exitCode(asSA), saOut).toBe(0);
  }, 300_000);
});
