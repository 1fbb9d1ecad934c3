/**
 * helm 4 and helm 3 drive the control plane as they drive a cluster: a chart with the kinds real
 * charts use (test/fixtures/charts/workloads: Deployment, Service, Ingress, HPA v2, PDB,
 * NetworkPolicy, a StatefulSet with its headless Service, a post-install hook Job and a test pod)
 * installs into a namespace helm creates (the hook Job must complete for `install` to return),
 * `helm test` runs its test pod to success, `upgrade` re-runs the hook, `uninstall` removes the
 * release's objects.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBinary } from "../../scripts/kubectl.mjs";
import type { RunningControlPlane } from "../../src/controlplane/index.js";
import { startTestControlPlane } from "./controlplane-env.js";
import type { Kubectl } from "./kubectl.js";

const run = promisify(execFile);
const chart = fileURLToPath(new URL("../fixtures/charts/workloads", import.meta.url));

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  ({ cp, k } = await startTestControlPlane());
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

describe.each([
  ["helm 4", "v35" as const, "rel4", "apps4"],
  ["helm 3", "v24" as const, "rel3", "apps3"],
])("%s", (_, layer, release, namespace) => {
  const helm = () => {
    const bin = ensureBinary("helm", layer);
    const home = mkdtempSync(join(tmpdir(), `kubeloop-${release}-`));
    const env = {
      ...process.env,
      KUBECONFIG: cp.api.kubeconfigPath,
      HOME: home,
      HELM_CACHE_HOME: join(home, "cache"),
      HELM_CONFIG_HOME: join(home, "config"),
      HELM_DATA_HOME: join(home, "data"),
    };
    return (args: string[]) => run(bin, [...args, "--namespace", namespace], { cwd: home, env, timeout: 90_000 });
  };

  it("installs (waiting for the hook Job), tests, upgrades and uninstalls the workloads chart", async () => {
    const h = helm();
    const install = await h(["install", release, chart, "--create-namespace", "--timeout", "60s"]);
    expect(install.stdout).toMatch(/^STATUS: deployed$/m);
    for (const kind of ["deployment", "service", "ingress", "hpa", "pdb", "networkpolicy", "statefulset", "configmap"]) {
      expect(await k.ok(["get", kind, "-n", namespace, "-l", `app.kubernetes.io/instance=${release}`, "-o", "name"])).not.toBe("");
    }
    expect(await k.ok(["get", "job", `${release}-migrate`, "-n", namespace, "-o", "jsonpath={.status.succeeded}"])).toBe("1");

    const test = await h(["test", release, "--timeout", "60s"]);
    expect(test.stdout).toMatch(/Phase:\s+Succeeded/);

    const upgrade = await h(["upgrade", release, chart, "--set", "replicaCount=3", "--timeout", "60s"]);
    expect(upgrade.stdout).toMatch(/^REVISION: 2$/m);
    expect(await k.ok(["get", "deployment", `${release}-web`, "-n", namespace, "-o", "jsonpath={.spec.replicas}"])).toBe("3");

    const uninstall = await h(["uninstall", release, "--timeout", "60s"]);
    expect(uninstall.stdout).toContain(`release "${release}" uninstalled`);
    expect(await k.ok(["get", "deployment,service,statefulset,hpa,pdb", "-n", namespace, "-l", `app.kubernetes.io/instance=${release}`, "-o", "name"])).toBe("");
  }, 240_000);
});
