/**
 * Issue 8, end to end: the real kubectl v1.35 driving rollouts against the embedded control plane
 * (API server + Deployment, ReplicaSet, garbage collector, simulated kubelet and Endpoints
 * controllers in one process). Every test works in its own namespace.
 *
 * These run in real time (kubectl is a separate process): waits poll the API with a deadline
 * instead of sleeping for fixed periods.
 */
import type { Deployment, DeploymentCondition, ReplicaSet } from "../../src/apimachinery/api/apps/v1.js";
import type { Pod } from "../../src/apimachinery/api/core/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtin } from "../../src/client/typed.js";
import type { RunningControlPlane } from "../../src/controlplane/index.js";
import { eventually, sleep, startTestControlPlane } from "./controlplane-env.js";
import type { Kubectl } from "./kubectl.js";

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  ({ cp, k } = await startTestControlPlane());
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

async function namespace(name: string): Promise<string> {
  await k.ok(["create", "namespace", name]);
  return name;
}

const deployments = (ns: string) => cp.client.resource<Deployment>(builtin.deployments, ns);
const replicaSets = (ns: string) => cp.client.resource<ReplicaSet>(builtin.replicaSets, ns);
const pods = (ns: string) => cp.client.resource<Pod>(builtin.pods, ns);

function progressing(d: Deployment): DeploymentCondition | undefined {
  return d.status?.conditions?.find((c) => c.type === "Progressing");
}

function revisionOf(rs: ReplicaSet): string | undefined {
  return rs.metadata?.annotations?.["deployment.kubernetes.io/revision"];
}

/** The ReplicaSets of a namespace, oldest revision first. */
async function rsByRevision(ns: string): Promise<ReplicaSet[]> {
  const list = await replicaSets(ns).list();
  return [...list.items].sort((a, b) => Number(revisionOf(a)) - Number(revisionOf(b)));
}

async function rolloutStatus(ns: string, name: string): Promise<void> {
  const r = await k.run(["-n", ns, "rollout", "status", `deployment/${name}`, "--timeout=60s"], undefined, 70_000);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`deployment "${name}" successfully rolled out`);
}

const deploymentYaml = (o: {
  ns: string;
  name: string;
  replicas: number;
  image: string;
  maxSurge?: number | string;
  maxUnavailable?: number | string;
  progressDeadlineSeconds?: number;
}) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${o.name}
  namespace: ${o.ns}
spec:
  replicas: ${o.replicas}
${o.progressDeadlineSeconds !== undefined ? `  progressDeadlineSeconds: ${o.progressDeadlineSeconds}\n` : ""}  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: ${JSON.stringify(o.maxSurge ?? "25%")}
      maxUnavailable: ${JSON.stringify(o.maxUnavailable ?? "25%")}
  selector:
    matchLabels: { app: ${o.name} }
  template:
    metadata:
      labels: { app: ${o.name} }
    spec:
      terminationGracePeriodSeconds: 5
      containers:
      - name: ${o.name}
        image: ${o.image}
`;

describe("kubectl rollouts against the embedded control plane", () => {
  it("create deployment --replicas=3 → rollout status succeeds; Available and NewReplicaSetAvailable", async () => {
    const ns = await namespace("e2e-create");
    await k.ok(["-n", ns, "create", "deployment", "web", "--image=nginx:1.27", "--replicas=3"]);
    await rolloutStatus(ns, "web");
    const d = await deployments(ns).get("web");
    expect(d.status).toMatchObject({ replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });
    expect(d.status?.conditions?.find((c) => c.type === "Available")).toMatchObject({ status: "True", reason: "MinimumReplicasAvailable" });
    expect(progressing(d)).toMatchObject({ status: "True", reason: "NewReplicaSetAvailable" });
    const rss = await rsByRevision(ns);
    expect(rss).toHaveLength(1);
    expect(revisionOf(rss[0])).toBe("1");
    expect(rss[0].metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Deployment", name: "web", controller: true, uid: d.metadata?.uid });
    const podList = await pods(ns).list();
    expect(podList.items).toHaveLength(3);
    for (const p of podList.items) {
      expect(p.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "ReplicaSet", name: rss[0].metadata?.name });
      expect(p.status?.phase).toBe("Running");
    }
  }, 90_000);

  it("kubectl wait --for=condition=Available succeeds", async () => {
    const ns = await namespace("e2e-wait");
    await k.ok(["-n", ns, "create", "deployment", "app", "--image=nginx", "--replicas=2"]);
    const r = await k.run(["-n", ns, "wait", "--for=condition=Available", "deployment/app", "--timeout=60s"], undefined, 70_000);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("deployment.apps/app condition met");
    const d = await deployments(ns).get("app");
    expect(d.status?.availableReplicas).toBe(2);
  }, 90_000);

  it("set image → a new ReplicaSet; undo → the first ReplicaSet reused as revision 3; history with CHANGE-CAUSE and --revision", async () => {
    const ns = await namespace("e2e-undo");
    await k.ok(["apply", "-f", await k.manifest("undo.yaml", deploymentYaml({ ns, name: "web", replicas: 3, image: "nginx:1.27" }))]);
    await rolloutStatus(ns, "web");
    const [first] = await rsByRevision(ns);

    // The change cause travels from the Deployment's annotations to the new ReplicaSet (as in
    // upstream's docs, annotated after the change: the controller copies the Deployment's
    // annotations to whichever ReplicaSet is new at the time).
    expect((await k.ok(["-n", ns, "set", "image", "deployment/web", "web=nginx:1.28"])).trim()).toBe("deployment.apps/web image updated");
    await k.ok(["-n", ns, "annotate", "deployment/web", "kubernetes.io/change-cause=image updated to 1.28"]);
    await rolloutStatus(ns, "web");
    let rss = await rsByRevision(ns);
    expect(rss).toHaveLength(2);
    const second = rss[1];
    expect(rss[0].metadata?.uid).toBe(first.metadata?.uid);
    expect(rss[0].spec?.replicas).toBe(0);
    expect(second.spec?.replicas).toBe(3);
    expect(revisionOf(second)).toBe("2");
    expect(second.spec?.template?.spec?.containers[0].image).toBe("nginx:1.28");
    expect(second.metadata?.annotations?.["kubernetes.io/change-cause"]).toBe("image updated to 1.28");
    const afterSet = await pods(ns).list();
    expect(afterSet.items.filter((p) => !p.metadata?.deletionTimestamp).map((p) => p.spec?.containers[0].image)).toEqual(["nginx:1.28", "nginx:1.28", "nginx:1.28"]);

    const history = await k.ok(["-n", ns, "rollout", "history", "deployment/web"]);
    expect(history).toMatch(/^deployment\.apps\/web\s*$/m);
    expect(history).toMatch(/^REVISION\s+CHANGE-CAUSE\s*$/m);
    expect(history).toMatch(/^1\s+<none>\s*$/m);
    expect(history).toMatch(/^2\s+image updated to 1\.28\s*$/m);

    const rev1 = await k.ok(["-n", ns, "rollout", "history", "deployment/web", "--revision=1"]);
    expect(rev1).toContain("deployment.apps/web with revision #1");
    expect(rev1).toMatch(/Pod Template:/);
    expect(rev1).toMatch(/Image:\s+nginx:1\.27/);
    expect(rev1).toMatch(/pod-template-hash=/);
    const rev2 = await k.ok(["-n", ns, "rollout", "history", "deployment/web", "--revision=2"]);
    expect(rev2).toMatch(/Image:\s+nginx:1\.28/);
    expect(rev2).toMatch(/kubernetes\.io\/change-cause: image updated to 1\.28/);

    expect((await k.ok(["-n", ns, "rollout", "undo", "deployment/web"])).trim()).toBe("deployment.apps/web rolled back");
    await rolloutStatus(ns, "web");
    const d = await deployments(ns).get("web");
    expect(d.spec?.template?.spec?.containers[0].image).toBe("nginx:1.27");
    expect(d.metadata?.annotations?.["deployment.kubernetes.io/revision"]).toBe("3");
    rss = await rsByRevision(ns);
    // No third ReplicaSet: the first one is the new one again, renumbered to revision 3.
    expect(rss).toHaveLength(2);
    expect(rss.map((rs) => [rs.metadata?.uid, revisionOf(rs), rs.spec?.replicas])).toEqual([
      [second.metadata?.uid, "2", 0],
      [first.metadata?.uid, "3", 3],
    ]);
    const history2 = await k.ok(["-n", ns, "rollout", "history", "deployment/web"]);
    expect(history2).not.toMatch(/^1\s/m);
    expect(history2).toMatch(/^2\s+image updated to 1\.28\s*$/m);
    expect(history2).toMatch(/^3\s+/m);

    // Undo to an explicit revision: back to nginx:1.28, the second ReplicaSet renumbered to 4.
    expect((await k.ok(["-n", ns, "rollout", "undo", "deployment/web", "--to-revision=2"])).trim()).toBe("deployment.apps/web rolled back");
    await rolloutStatus(ns, "web");
    rss = await rsByRevision(ns);
    expect(rss.map((rs) => [rs.metadata?.uid, revisionOf(rs), rs.spec?.replicas])).toEqual([
      [first.metadata?.uid, "3", 0],
      [second.metadata?.uid, "4", 3],
    ]);
    // A revision that does not exist is refused by kubectl, and nothing changes.
    const bad = await k.run(["-n", ns, "rollout", "undo", "deployment/web", "--to-revision=7"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("unable to find specified revision 7 in history");
  }, 120_000);

  it("rollout pause holds a template change until resume; Progressing reasons DeploymentPaused then DeploymentResumed", async () => {
    const ns = await namespace("e2e-pause");
    await k.ok(["-n", ns, "create", "deployment", "web", "--image=nginx:1.27", "--replicas=2"]);
    await rolloutStatus(ns, "web");

    // Every Progressing reason the Deployment goes through, in order, straight from a watch.
    const ac = new AbortController();
    const start = await deployments(ns).get("web");
    const reasons: string[] = [progressing(start)?.reason ?? ""];
    const watching = (async () => {
      const stream = await deployments(ns).watch({ resourceVersion: start.metadata?.resourceVersion, fieldSelector: "metadata.name=web", signal: ac.signal });
      try {
        for await (const ev of stream) {
          if (ev.type !== "MODIFIED") continue;
          const reason = progressing(ev.object)?.reason;
          if (reason && reasons[reasons.length - 1] !== reason) reasons.push(reason);
        }
      } catch (err) {
        if (!ac.signal.aborted) throw err;
      }
    })();

    expect((await k.ok(["-n", ns, "rollout", "pause", "deployment/web"])).trim()).toBe("deployment.apps/web paused");
    const paused = await eventually("the DeploymentPaused condition", async () => {
      const d = await deployments(ns).get("web");
      return progressing(d)?.reason === "DeploymentPaused" ? d : undefined;
    });
    expect(progressing(paused)).toMatchObject({ status: "Unknown", message: "Deployment is paused" });

    await k.ok(["-n", ns, "set", "image", "deployment/web", "nginx=nginx:1.28"]);
    // The controller observes the new generation while paused, yet creates no ReplicaSet.
    const observed = await eventually("the paused deployment's new generation to be observed", async () => {
      const d = await deployments(ns).get("web");
      return d.status?.observedGeneration === d.metadata?.generation ? d : undefined;
    });
    expect(observed.spec?.paused).toBe(true);
    await sleep(300);
    expect((await replicaSets(ns).list()).items).toHaveLength(1);
    expect((await pods(ns).list()).items.every((p) => p.spec?.containers[0].image === "nginx:1.27")).toBe(true);
    const status = await k.run(["-n", ns, "rollout", "status", "deployment/web", "--timeout=1s"]);
    expect(status.code).not.toBe(0);

    expect((await k.ok(["-n", ns, "rollout", "resume", "deployment/web"])).trim()).toBe("deployment.apps/web resumed");
    await rolloutStatus(ns, "web");
    const rss = await rsByRevision(ns);
    expect(rss).toHaveLength(2);
    expect(rss[1].spec?.template?.spec?.containers[0].image).toBe("nginx:1.28");
    expect(rss[1].spec?.replicas).toBe(2);
    expect(rss[0].spec?.replicas).toBe(0);
    const done = await deployments(ns).get("web");
    expect(progressing(done)?.reason).toBe("NewReplicaSetAvailable");
    ac.abort();
    await watching;
    expect(reasons.slice(0, 3)).toEqual(["NewReplicaSetAvailable", "DeploymentPaused", "DeploymentResumed"]);
    expect(reasons.indexOf("NewReplicaSetCreated")).toBeGreaterThan(2);
    expect(reasons[reasons.length - 1]).toBe("NewReplicaSetAvailable");
  }, 120_000);

  it("rollout restart → a new ReplicaSet whose template carries kubectl.kubernetes.io/restartedAt", async () => {
    const ns = await namespace("e2e-restart");
    await k.ok(["-n", ns, "create", "deployment", "web", "--image=nginx:1.27", "--replicas=2"]);
    await rolloutStatus(ns, "web");
    const before = new Set((await pods(ns).list()).items.map((p) => p.metadata?.uid));
    expect((await k.ok(["-n", ns, "rollout", "restart", "deployment/web"])).trim()).toBe("deployment.apps/web restarted");
    await rolloutStatus(ns, "web");
    const rss = await rsByRevision(ns);
    expect(rss).toHaveLength(2);
    expect(revisionOf(rss[1])).toBe("2");
    expect(rss[1].spec?.replicas).toBe(2);
    expect(rss[0].spec?.replicas).toBe(0);
    const restartedAt = rss[1].spec?.template?.metadata?.annotations?.["kubectl.kubernetes.io/restartedAt"];
    expect(restartedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    expect(rss[1].spec?.template?.spec?.containers[0].image).toBe("nginx:1.27");
    // Every running pod is a new one.
    const after = (await pods(ns).list()).items.filter((p) => !p.metadata?.deletionTimestamp);
    expect(after).toHaveLength(2);
    for (const p of after) expect(before.has(p.metadata?.uid)).toBe(false);
  }, 120_000);

  it("scaling during a paused rollout is proportional (upstream's example: 10 replicas at 8/5 → 15 gives 11/7)", async () => {
    const ns = await namespace("e2e-proportional");
    await k.ok([
      "apply",
      "-f",
      await k.manifest("prop.yaml", deploymentYaml({ ns, name: "web", replicas: 10, image: "nginx:1.27", maxSurge: 3, maxUnavailable: 2 })),
    ]);
    await rolloutStatus(ns, "web");
    // The new pods never become ready: the rollout stops with the old ReplicaSet at
    // 10 - maxUnavailable = 8 and the new one at 10 + maxSurge - 8 = 5.
    await k.ok(["-n", ns, "set", "image", "deployment/web", "web=example/never-ready:1"]);
    const sizes = async (): Promise<[number, number]> => {
      const rss = await rsByRevision(ns);
      return [rss[0]?.spec?.replicas ?? -1, rss[1]?.spec?.replicas ?? -1];
    };
    await eventually("the rollout to stall at 8/5", async () => {
      const [o, n] = await sizes();
      return o === 8 && n === 5 ? true : undefined;
    });
    await k.ok(["-n", ns, "rollout", "pause", "deployment/web"]);
    await eventually("the paused condition", async () => (progressing(await deployments(ns).get("web"))?.reason === "DeploymentPaused" ? true : undefined));
    expect(await sizes()).toEqual([8, 5]);

    expect((await k.ok(["-n", ns, "scale", "deployment/web", "--replicas=15"])).trim()).toBe("deployment.apps/web scaled");
    // allowed = 15 + 3 = 18, 5 to add; max-replicas annotation 13:
    // old: round(8 × 18 / 13) − 8 = 3, new: round(5 × 18 / 13) − 5 = 2.
    await eventually("a proportional scale to 11/7", async () => {
      const [o, n] = await sizes();
      return o === 11 && n === 7 ? true : undefined;
    });
    const rss = await rsByRevision(ns);
    for (const rs of rss) {
      expect(rs.metadata?.annotations?.["deployment.kubernetes.io/desired-replicas"]).toBe("15");
      expect(rs.metadata?.annotations?.["deployment.kubernetes.io/max-replicas"]).toBe("18");
    }
    const settled = await eventually("the old ReplicaSet's 11 pods to be available", async () => {
      const d = await deployments(ns).get("web");
      return d.status?.availableReplicas === 11 && d.status.replicas === 18 ? d : undefined;
    });
    expect(settled.status).toMatchObject({ replicas: 18, updatedReplicas: 7, availableReplicas: 11, unavailableReplicas: 7 });

    // Scaling down while paused is proportional too: 18 → 8 + 3 = 11 allowed, 7 to remove:
    // old (the larger, removed from first): round(11 × 11 / 18) − 11 = −4, new: round(7 × 11 / 18) − 7 = −3.
    await k.ok(["-n", ns, "scale", "deployment/web", "--replicas=8"]);
    await eventually("a proportional scale down to 7/4", async () => {
      const [o, n] = await sizes();
      return o === 7 && n === 4 ? true : undefined;
    });
    // Still paused: the sizes stay where scaling left them.
    await sleep(300);
    expect(await sizes()).toEqual([7, 4]);
  }, 120_000);

  it("a never-ready image with progressDeadlineSeconds: 2 → Progressing=False ProgressDeadlineExceeded; rollout status fails with upstream's message", async () => {
    const ns = await namespace("e2e-deadline");
    await k.ok(["apply", "-f", await k.manifest("deadline.yaml", deploymentYaml({ ns, name: "stuck", replicas: 2, image: "nginx:1.27", progressDeadlineSeconds: 2 }))]);
    await rolloutStatus(ns, "stuck");
    await k.ok(["-n", ns, "set", "image", "deployment/stuck", "stuck=registry.example/never-ready:2"]);
    const w = await k.run(["-n", ns, "wait", "--for=condition=Progressing=False", "deployment/stuck", "--timeout=30s"], undefined, 40_000);
    expect(w.stderr).toBe("");
    expect(w.code).toBe(0);
    expect(w.stdout.trim()).toBe("deployment.apps/stuck condition met");
    const d = await deployments(ns).get("stuck");
    expect(progressing(d)).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded" });
    expect(progressing(d)?.message).toMatch(/^ReplicaSet "stuck-[a-z0-9]+" has timed out progressing\.$/);
    // 2 replicas at 25%/25%: maxSurge 1, maxUnavailable 0 — both old pods stay available.
    expect(d.status).toMatchObject({ replicas: 3, updatedReplicas: 1, availableReplicas: 2 });

    const r = await k.run(["-n", ns, "rollout", "status", "deployment/stuck", "--timeout=20s"], undefined, 30_000);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('error: deployment "stuck" exceeded its progress deadline');

    const events = await k.ok(["-n", ns, "get", "events", "--field-selector=involvedObject.kind=Deployment,involvedObject.name=stuck", "-o", "json"]);
    const reasons = (JSON.parse(events) as { items: Array<{ reason?: string }> }).items.map((e) => e.reason);
    expect(reasons).toContain("ScalingReplicaSet");
  }, 120_000);
});

describe("control-plane metrics", () => {
  it("every controller's reconciles are counted in the control plane's registry (controller_runtime_reconcile_total)", async () => {
    const ns = await namespace("e2e-metrics");
    await k.ok(["-n", ns, "create", "deployment", "counted", "--image=nginx", "--replicas=1"]);
    await rolloutStatus(ns, "counted");
    const metric = await cp.registry.getSingleMetricAsString("controller_runtime_reconcile_total");
    const total = (controller: string) =>
      metric
        .split("\n")
        .filter((l) => l.startsWith("controller_runtime_reconcile_total{") && l.includes(`controller="${controller}"`))
        .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
    for (const c of ["deployment", "replicaset", "podlifecycle"]) expect(total(c), c).toBeGreaterThan(0);
  }, 60_000);
});
