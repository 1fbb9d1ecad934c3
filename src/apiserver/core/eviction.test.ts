/**
 * pods/eviction, table-driven after upstream's eviction_test.go (TestEviction,
 * TestEvictionIgnorePDB, TestEvictionDryRun, TestPDBProtection): which pods go without a budget,
 * how the stored PDB status decides, what is written (disruptionsAllowed, disruptedPods, the
 * DisruptionAllowed condition, the pod's DisruptionTarget condition) and the errors.
 */
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../apimachinery/clock.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { podDisruptionBudgetStrategy } from "../registry/poddisruptionbudgets.js";
import { podStrategy } from "../registry/pods.js";
import { defaultWriteContext } from "../rest/context.js";
import { ResourceStore } from "../rest/store.js";
import { MemoryStorage } from "../storage/memory.js";
import { evictPod } from "./eviction.js";
import { podHooks } from "./pods.js";

interface PodState {
  phase?: string;
  ready?: boolean;
  terminating?: boolean;
  labels?: Record<string, string>;
}

interface PDBState {
  name?: string;
  selector?: Record<string, string> | null;
  generation?: number;
  observedGeneration?: number;
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  policy?: string;
}

async function setup(pod: PodState, pdbs: PDBState[]) {
  const storage = new MemoryStorage();
  const clock = new FakeClock(Date.UTC(2026, 2, 1, 10, 0, 0));
  const pods = new ResourceStore(podStrategy, { storage, clock, hooks: podHooks() });
  const budgets = new ResourceStore(podDisruptionBudgetStrategy, { storage, clock });
  const ctx = defaultWriteContext();
  await pods.create(
    "default",
    { apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels: pod.labels ?? { app: "a" } }, spec: { nodeName: "n1", containers: [{ name: "c", image: "nginx" }] } },
    ctx,
  );
  await pods.update(
    "default",
    "p",
    (cur) => ({
      ...structuredClone(cur!),
      status: { phase: pod.phase ?? "Running", conditions: [{ type: "Ready", status: pod.ready === false ? "False" : "True" }] },
    }),
    ctx,
    { subresource: "status" },
  );
  if (pod.terminating) await pods.delete("default", "p", { dryRun: false, gracePeriodSeconds: 30 }, ctx);
  for (const [i, b] of pdbs.entries()) {
    const name = b.name ?? `pdb${i}`;
    const selector = b.selector === null ? undefined : { matchLabels: b.selector ?? { app: "a" } };
    await budgets.create("default", { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name }, spec: { minAvailable: 1, selector, unhealthyPodEvictionPolicy: b.policy } }, ctx);
    for (let g = 1; g < (b.generation ?? 1); g++) {
      await budgets.update("default", name, (cur) => ({ ...structuredClone(cur!), spec: { ...(cur!.spec as object), minAvailable: g + 1 } }), ctx);
    }
    await budgets.update(
      "default",
      name,
      (cur) => ({
        ...structuredClone(cur!),
        status: {
          observedGeneration: b.observedGeneration ?? b.generation ?? 1,
          disruptionsAllowed: b.disruptionsAllowed ?? 0,
          currentHealthy: b.currentHealthy ?? 1,
          desiredHealthy: b.desiredHealthy ?? 1,
          expectedPods: 1,
        },
      }),
      ctx,
      { subresource: "status" },
    );
  }
  const deps = { pods, podDisruptionBudgets: budgets, clock };
  const evict = (body: KubeObject = eviction(), dryRun = false) => evictPod(deps, "default", "p", body, defaultWriteContext({ dryRun }));
  return { pods, budgets, evict, clock };
}

const eviction = (extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "p", namespace: "default" }, ...extra });

async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "evicted";
  } catch (err) {
    if (err instanceof StatusError) return `${err.code} ${err.message}`;
    throw err;
  }
}

const violation = "429 Cannot evict pod as it would violate the pod's disruption budget.";

describe("pods/eviction", () => {
  it.each<[string, PodState, PDBState[], string]>([
    ["no budget", {}, [], "evicted"],
    ["budget allows", {}, [{ disruptionsAllowed: 1 }], "evicted"],
    ["budget forbids", {}, [{ disruptionsAllowed: 0 }], violation],
    ["budget not yet observed", {}, [{ generation: 2, observedGeneration: 1, disruptionsAllowed: 5 }], violation],
    ["selector does not match", { labels: { app: "other" } }, [{ disruptionsAllowed: 0 }], "evicted"],
    ["empty selector matches nothing here", {}, [{ selector: {}, disruptionsAllowed: 0 }], "evicted"],
    ["succeeded pods go regardless", { phase: "Succeeded" }, [{ disruptionsAllowed: 0 }], "evicted"],
    ["failed pods go regardless", { phase: "Failed" }, [{ disruptionsAllowed: 0 }], "evicted"],
    ["pending pods go regardless", { phase: "Pending" }, [{ disruptionsAllowed: 0 }], "evicted"],
    ["terminating pods go regardless", { terminating: true }, [{ disruptionsAllowed: 0 }], "evicted"],
    ["unready pod, healthy budget (IfHealthyBudget)", { ready: false }, [{ disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 }], "evicted"],
    ["unready pod, unhealthy budget (IfHealthyBudget)", { ready: false }, [{ disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 2 }], violation],
    ["unready pod, AlwaysAllow", { ready: false }, [{ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 2, policy: "AlwaysAllow" }], "evicted"],
    ["ready pod, AlwaysAllow still needs the budget", {}, [{ disruptionsAllowed: 0, policy: "AlwaysAllow" }], violation],
  ])("%s", async (_name, pod, pdbs, want) => {
    const t = await setup(pod, pdbs);
    expect(await outcome(t.evict())).toBe(want);
  });

  it("explains the refusal in a DisruptionBudget cause", async () => {
    const t = await setup({}, [{ disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1 }]);
    const err = await t.evict().catch((e: unknown) => e);
    expect((err as StatusError).status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: "TooManyRequests",
      details: { causes: [{ type: "DisruptionBudget", message: "The disruption budget pdb0 needs 1 healthy pods and has 1 currently" }] },
      code: 429,
    });
    const stale = await setup({}, [{ generation: 2, observedGeneration: 1 }]);
    expect(((await stale.evict().catch((e: unknown) => e)) as StatusError).status.details).toEqual({
      retryAfterSeconds: 10,
      causes: [{ type: "DisruptionBudget", message: "The disruption budget pdb0 is still being processed by the server." }],
    });
  });

  it("spends the budget, records the pod and marks it DisruptionTarget", async () => {
    const t = await setup({}, [{ disruptionsAllowed: 1 }]);
    expect(await t.evict()).toMatchObject({ status: "Success", code: 201 });
    const pdb = await t.budgets.get("default", "pdb0");
    expect(pdb.status).toMatchObject({
      disruptionsAllowed: 0,
      disruptedPods: { p: "2026-03-01T10:00:00Z" },
      conditions: [{ type: "DisruptionAllowed", status: "False", reason: "InsufficientPods", observedGeneration: 1, lastTransitionTime: "2026-03-01T10:00:00Z" }],
    });
    const pod = await t.pods.get("default", "p");
    // A bound pod is deleted gracefully: it stays, terminating, with the condition.
    expect(pod.metadata?.deletionTimestamp).toBeDefined();
    expect((pod.status as { conditions: unknown[] }).conditions).toContainEqual({
      type: "DisruptionTarget",
      status: "True",
      reason: "EvictionByEvictionAPI",
      message: "Eviction API: evicting",
      lastProbeTime: null,
      lastTransitionTime: "2026-03-01T10:00:00Z",
    });
  });

  it("changes nothing on a dry run, from the request or the body", async () => {
    for (const [body, dryRun] of [
      [eviction(), true],
      [eviction({ deleteOptions: { dryRun: ["All"] } }), false],
    ] as const) {
      const t = await setup({}, [{ disruptionsAllowed: 1 }]);
      const before = await t.pods.get("default", "p");
      expect(await t.evict(body, dryRun)).toMatchObject({ status: "Success" });
      expect(await t.pods.get("default", "p")).toEqual(before);
      expect((await t.budgets.get("default", "pdb0")).status).toMatchObject({ disruptionsAllowed: 1 });
    }
  });

  it("refuses when too many evictions wait for the disruption controller", async () => {
    const t = await setup({}, [{ disruptionsAllowed: 5 }]);
    const disruptedPods = Object.fromEntries(Array.from({ length: 2001 }, (_, i) => [`q${i}`, "2026-03-01T09:00:00Z"]));
    await t.budgets.update("default", "pdb0", (cur) => ({ ...structuredClone(cur!), status: { ...(cur!.status as object), disruptedPods } }), defaultWriteContext(), { subresource: "status" });
    expect(await outcome(t.evict())).toBe('403 poddisruptionbudget.policy "pdb0" is forbidden: DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  });

  it("refuses several budgets with upstream's 500 Status, and a name mismatch with a 400", async () => {
    const t = await setup({}, [{ disruptionsAllowed: 1 }, { disruptionsAllowed: 1 }]);
    expect(await t.evict()).toMatchObject({ status: "Failure", code: 500, message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support." });
    expect(await outcome(t.evict({ ...eviction(), metadata: { name: "q" } }))).toBe("400 name in URL does not match name in Eviction object");
  });

  it("honours a resourceVersion precondition of the delete options", async () => {
    const t = await setup({}, []);
    const got = await outcome(t.evict(eviction({ deleteOptions: { preconditions: { resourceVersion: "1" } } })));
    expect(got).toMatch(/^409 Operation cannot be fulfilled on Pod "p": the ResourceVersion in the precondition \(1\) does not match the ResourceVersion in record \(\d+\)\. The object might have been modified$/);
  });
});
