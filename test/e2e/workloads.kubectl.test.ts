/**
 * Issue 14's referee: the workload-side resources through stock kubectl v1.35 — the commands that
 * touch them (create job / cronjob, autoscale, expose, apply --prune with its default allowlist,
 * describe svc, cluster-info dump, drain and eviction against a PodDisruptionBudget, get all,
 * scale). The server runs without controllers, so status that a controller would write (pod
 * readiness, the PDB's disruptionsAllowed) is set through the status subresource.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";
import { Kubectl } from "./kubectl.js";

let api: RunningApiServer;
let k: Kubectl;

beforeAll(async () => {
  api = await startApiServer({ port: 0 });
  k = new Kubectl(api.kubeconfigPath);
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

const json = async (args: string[]) => JSON.parse(await k.ok([...args, "-o", "json"]));

/** A pod on `node`, Running and Ready (as a kubelet would report). */
async function readyPod(name: string, node: string, labels: Record<string, string>): Promise<void> {
  const manifest = await k.manifest(
    `${name}.json`,
    JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name, labels }, spec: { nodeName: node, containers: [{ name: "c", image: "nginx" }] } }),
  );
  await k.ok(["create", "-f", manifest]);
  const status = { status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } };
  await k.ok(["patch", "pod", name, "--subresource=status", "--type=merge", "-p", JSON.stringify(status)]);
}

/** What a disruption controller would write for `healthy` of `expected` pods. */
async function pdbStatus(name: string, s: { allowed: number; healthy: number; desired: number; expected: number }): Promise<void> {
  const pdb = await json(["get", "pdb", name]);
  const status = {
    status: {
      observedGeneration: pdb.metadata.generation,
      disruptionsAllowed: s.allowed,
      currentHealthy: s.healthy,
      desiredHealthy: s.desired,
      expectedPods: s.expected,
      conditions: [
        {
          type: "DisruptionAllowed",
          status: s.allowed > 0 ? "True" : "False",
          reason: s.allowed > 0 ? "SufficientPods" : "InsufficientPods",
          message: "",
          lastTransitionTime: "2026-01-01T00:00:00Z",
          observedGeneration: pdb.metadata.generation,
        },
      ],
    },
  };
  await k.ok(["patch", "pdb", name, "--subresource=status", "--type=merge", "-p", JSON.stringify(status)]);
}

describe("kubectl 1.35: workload-side resources", () => {
  it("create job: selector and labels generated from the uid, upstream's defaults", async () => {
    expect((await k.ok(["create", "job", "pi", "--image=busybox", "--", "echo", "hi"])).trim()).toBe("job.batch/pi created");
    const job = await json(["get", "job", "pi"]);
    const uid = job.metadata.uid;
    expect(job.spec.selector).toEqual({ matchLabels: { "batch.kubernetes.io/controller-uid": uid } });
    expect(job.spec.template.metadata.labels).toMatchObject({ "batch.kubernetes.io/controller-uid": uid, "controller-uid": uid, "batch.kubernetes.io/job-name": "pi", "job-name": "pi" });
    expect(job.spec).toMatchObject({ completionMode: "NonIndexed", podReplacementPolicy: "TerminatingOrFailed", backoffLimit: 6, completions: 1, parallelism: 1, suspend: false, manualSelector: false });
    const out = await k.ok(["get", "jobs"]);
    expect(out).toMatch(/^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE/m);
    expect(out).toMatch(/^pi\s+Running\s+0\/1\s+\S+/m);
    const bad = await k.run(["patch", "job", "pi", "--type=merge", "-p", '{"spec":{"template":{"spec":{"containers":[{"name":"pi","image":"alpine"}]}}}}']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('The Job "pi" is invalid: spec.template: Invalid value:');
    expect(bad.stderr).toContain("field is immutable");
  });

  it("create cronjob, a job from it, and upstream's schedule and time zone errors", async () => {
    expect((await k.ok(["create", "cronjob", "cj", "--image=busybox", "--schedule=*/5 * * * *", "--", "date"])).trim()).toBe("cronjob.batch/cj created");
    const out = await k.ok(["get", "cronjobs"]);
    expect(out).toMatch(/^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE/m);
    expect(out).toMatch(/^cj\s+\*\/5 \* \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\S+/m);
    expect((await k.ok(["create", "job", "manual", "--from=cronjob/cj"])).trim()).toBe("job.batch/manual created");
    const job = await json(["get", "job", "manual"]);
    expect(job.metadata.annotations).toMatchObject({ "cronjob.kubernetes.io/instantiate": "manual" });
    expect(job.metadata.ownerReferences[0]).toMatchObject({ kind: "CronJob", name: "cj", controller: true });

    const bad = await k.run(["create", "cronjob", "bad", "--image=busybox", "--schedule=* * *"]);
    expect(bad.stderr.trim()).toBe('error: failed to create cronjob: CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]');
    const tz = await k.manifest(
      "tz.yaml",
      `apiVersion: batch/v1
kind: CronJob
metadata: { name: tz }
spec:
  schedule: "0 * * * *"
  timeZone: Mars/Olympus
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{ name: c, image: busybox }]
`,
    );
    const tzr = await k.run(["create", "-f", tz]);
    expect(tzr.stderr).toContain('The CronJob "tz" is invalid: spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus');
  });

  it("autoscale a deployment (autoscaling/v2), read it back through autoscaling/v1", async () => {
    await k.ok(["create", "deployment", "web", "--image=nginx", "--replicas=2", "--port=80"]);
    expect((await k.ok(["autoscale", "deployment", "web", "--min=2", "--max=5", "--cpu-percent=80"])).trim()).toBe("horizontalpodautoscaler.autoscaling/web autoscaled");
    const out = await k.ok(["get", "hpa"]);
    expect(out).toMatch(/^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE/m);
    expect(out).toMatch(/^web\s+Deployment\/web\s+cpu: <unknown>\/80%\s+2\s+5\s+0\s+\S+/m);
    const v1 = await json(["get", "horizontalpodautoscalers.v1.autoscaling", "web"]);
    expect(v1).toMatchObject({ apiVersion: "autoscaling/v1", spec: { minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 80 } });
    const v2 = await json(["get", "horizontalpodautoscalers.v2.autoscaling", "web"]);
    expect(v2.spec.metrics).toEqual([{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }]);
  });

  it("expose, then describe svc reads its EndpointSlices", async () => {
    expect((await k.ok(["expose", "deployment", "web", "--port=80", "--target-port=8080"])).trim()).toBe("service/web exposed");
    const slice = await k.manifest(
      "slice.yaml",
      `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-abc
  labels: { kubernetes.io/service-name: web }
addressType: IPv4
ports: [{ name: "", port: 8080, protocol: TCP }]
endpoints:
- addresses: ["10.244.0.5"]
  conditions: { ready: true }
- addresses: ["10.244.0.6"]
  conditions: { ready: false }
`,
    );
    expect((await k.ok(["apply", "-f", slice])).trim()).toBe("endpointslice.discovery.k8s.io/web-abc created");
    const described = await k.ok(["describe", "svc", "web"]);
    expect(described).toMatch(/^Endpoints:\s+10\.244\.0\.5:8080$/m);
    expect(described).toMatch(/^Selector:\s+app=web$/m);
    expect(await k.ok(["get", "endpointslices"])).toMatch(/^web-abc\s+IPv4\s+8080\s+10\.244\.0\.5,10\.244\.0\.6\s+\S+/m);
  });

  it("apply --prune walks its default allowlist and prunes a Job and a PVC", async () => {
    const all = await k.manifest(
      "prune-all.yaml",
      `apiVersion: v1
kind: ConfigMap
metadata: { name: pr-cfg, labels: { set: pr } }
data: { a: "1" }
---
apiVersion: batch/v1
kind: Job
metadata: { name: pr-job, labels: { set: pr } }
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{ name: c, image: busybox }]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: pr-pvc, labels: { set: pr } }
spec:
  accessModes: [ReadWriteOnce]
  resources: { requests: { storage: 1Gi } }
`,
    );
    const created = await k.run(["apply", "--prune", "-l", "set=pr", "-f", all]);
    expect(created.stderr).not.toMatch(/error/i);
    expect(created.stdout).toContain("job.batch/pr-job created");
    const only = await k.manifest("prune-one.yaml", `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: pr-cfg, labels: { set: pr } }\ndata: { a: "1" }\n`);
    const pruned = await k.run(["apply", "--prune", "-l", "set=pr", "-f", only]);
    expect(pruned.code).toBe(0);
    expect(pruned.stdout.split("\n").filter(Boolean).sort()).toEqual(["configmap/pr-cfg unchanged", "job.batch/pr-job pruned", "persistentvolumeclaim/pr-pvc pruned"]);
  });

  it("drain --dry-run=server is blocked by a PodDisruptionBudget, then allowed", async () => {
    await k.ok(["create", "-f", await k.manifest("node.yaml", "apiVersion: v1\nkind: Node\nmetadata: { name: worker-1 }\n")]);
    await readyPod("db-0", "worker-1", { app: "db" });
    await readyPod("db-1", "worker-1", { app: "db" });
    expect((await k.ok(["create", "pdb", "db", "--selector=app=db", "--min-available=2"])).trim()).toBe("poddisruptionbudget.policy/db created");
    await pdbStatus("db", { allowed: 0, healthy: 2, desired: 2, expected: 2 });
    expect(await k.ok(["get", "pdb"])).toMatch(/^db\s+2\s+N\/A\s+0\s+\S+/m);

    // kubectl retries a 429 every 5s until its --timeout; the run takes that long, whatever the timeout.
    const blocked = await k.run(["drain", "worker-1", "--dry-run=server", "--force", "--timeout=1s"]);
    expect(blocked.code).not.toBe(0);
    expect(blocked.stderr).toContain("Cannot evict pod as it would violate the pod's disruption budget.");
    // Eviction as a client sends it: 429 with the budget's cause.
    const eviction = await k.manifest(
      "eviction.json",
      JSON.stringify({ apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "db-0", namespace: "default" } }),
    );
    const raw = await k.run(["create", "--raw", "/api/v1/namespaces/default/pods/db-0/eviction", "-f", eviction]);
    expect(raw.code).not.toBe(0);
    expect(raw.stderr).toContain("Error from server (TooManyRequests): Cannot evict pod as it would violate the pod's disruption budget.");
    // Nothing moved: the node is still schedulable and both pods are there.
    expect((await json(["get", "node", "worker-1"])).spec?.unschedulable).toBeUndefined();

    await pdbStatus("db", { allowed: 2, healthy: 4, desired: 2, expected: 4 });
    const allowed = await k.run(["drain", "worker-1", "--dry-run=server", "--force"]);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain("node/worker-1 cordoned (server dry run)");
    expect(allowed.stdout).toContain("evicting pod default/db-0 (server dry run)");
    expect(allowed.stdout).toContain("node/worker-1 drained (server dry run)");
    expect((await json(["get", "pdb", "db"])).status.disruptionsAllowed).toBe(2);

    // A real eviction decrements the budget and marks the pod with DisruptionTarget.
    const real = await k.run(["create", "--raw", "/api/v1/namespaces/default/pods/db-0/eviction", "-f", eviction]);
    expect(real.code).toBe(0);
    expect(JSON.parse(real.stdout)).toMatchObject({ kind: "Status", status: "Success" });
    expect((await json(["get", "pdb", "db"])).status.disruptionsAllowed).toBe(1);
    // Bound to a node, the pod is deleted gracefully: it stays, terminating, until its kubelet confirms.
    const evicted = await json(["get", "pod", "db-0"]);
    expect(evicted.metadata.deletionTimestamp).toEqual(expect.any(String));
    expect(evicted.status.conditions).toContainEqual(
      expect.objectContaining({ type: "DisruptionTarget", status: "True", reason: "EvictionByEvictionAPI", message: "Eviction API: evicting" }),
    );
  }, 90_000);

  it("statefulsets and replicationcontrollers scale through kubectl scale", async () => {
    const manifest = await k.manifest(
      "scalable.yaml",
      `apiVersion: apps/v1
kind: StatefulSet
metadata: { name: db }
spec:
  serviceName: db
  replicas: 1
  selector: { matchLabels: { app: sts } }
  template:
    metadata: { labels: { app: sts } }
    spec: { containers: [{ name: c, image: postgres }] }
---
apiVersion: v1
kind: ReplicationController
metadata: { name: legacy }
spec:
  replicas: 1
  selector: { app: legacy }
  template:
    metadata: { labels: { app: legacy } }
    spec: { containers: [{ name: c, image: nginx }] }
`,
    );
    await k.ok(["apply", "-f", manifest]);
    expect((await k.ok(["scale", "statefulset", "db", "--replicas=3"])).trim()).toBe("statefulset.apps/db scaled");
    expect((await k.ok(["scale", "rc", "legacy", "--replicas=2"])).trim()).toBe("replicationcontroller/legacy scaled");
    expect((await json(["get", "sts", "db"])).spec.replicas).toBe(3);
    expect((await json(["get", "rc", "legacy"])).spec.replicas).toBe(2);
    const scale = JSON.parse(await k.ok(["get", "--raw", "/api/v1/namespaces/default/replicationcontrollers/legacy/scale"]));
    expect(scale).toMatchObject({ apiVersion: "autoscaling/v1", kind: "Scale", spec: { replicas: 2 }, status: { selector: "app=legacy" } });
    const stsScale = JSON.parse(await k.ok(["get", "--raw", "/apis/apps/v1/namespaces/default/statefulsets/db/scale"]));
    expect(stsScale.status.selector).toBe("app=sts");
  });

  it("get all lists every kind in the category", async () => {
    const out = await k.ok(["get", "all"]);
    for (const name of [
      "pod/db-1",
      "replicationcontroller/legacy",
      "service/web",
      "deployment.apps/web",
      "statefulset.apps/db",
      "horizontalpodautoscaler.autoscaling/web",
      "cronjob.batch/cj",
      "job.batch/pi",
    ]) {
      expect(out).toContain(name);
    }
  });

  it("describe works for every kind made above", async () => {
    for (const target of ["job/pi", "cronjob/cj", "hpa/web", "pdb/db", "statefulset/db", "rc/legacy", "endpointslice/web-abc", "node/worker-1"]) {
      const r = await k.run(["describe", target]);
      expect({ target, code: r.code, stderr: r.stderr }).toEqual({ target, code: 0, stderr: "" });
      expect(r.stdout).toMatch(/^Name:\s+\S+/m);
    }
  });

  it("cluster-info dump reads the workload kinds", async () => {
    const r = await k.run(["cluster-info", "dump", "--namespaces=default"], undefined, 60_000);
    expect(r.code).toBe(0);
    for (const kind of ["ReplicationControllerList", "DaemonSetList", "DeploymentList", "ReplicaSetList", "ServiceList", "PodList", "EventList"]) expect(r.stdout).toContain(`"kind": "${kind}"`);
  });

  it("get componentstatuses answers healthy components with the deprecation warning", async () => {
    const r = await k.run(["get", "cs"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("Warning: v1 ComponentStatus is deprecated in v1.19+");
    expect(r.stdout).toMatch(/^NAME\s+STATUS\s+MESSAGE\s+ERROR/m);
    for (const name of ["controller-manager", "scheduler", "etcd-0"]) expect(r.stdout).toMatch(new RegExp(`^${name}\\s+Healthy\\s+ok`, "m"));
  });
});
