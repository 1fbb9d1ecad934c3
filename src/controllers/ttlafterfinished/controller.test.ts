import type { Job } from "../../apimachinery/api/batch/v1.js";
import { describe, expect, it } from "vitest";
import { formatTime } from "../../apimachinery/time.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture, FIXTURE_START_TIME } from "../../testing/fixture.js";
import { TTLAfterFinishedController } from "./controller.js";

function job(o: { ttl?: number; finishedAgo?: number; type?: string }): Job {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "j", namespace: "default", uid: "uid-j" },
    spec: { ...(o.ttl !== undefined ? { ttlSecondsAfterFinished: o.ttl } : {}), template: { spec: { containers: [] } } },
    status: o.finishedAgo !== undefined ? { conditions: [{ type: o.type ?? "Complete", status: "True", lastTransitionTime: formatTime(FIXTURE_START_TIME - o.finishedAgo) }] } : {},
  };
}

describe("ttl-after-finished (upstream TestTimeLeft / processJob)", () => {
  const cases: Array<{ name: string; job: Job; requeueAfterMs?: number; deleted: boolean }> = [
    { name: "no TTL: kept", job: job({ finishedAgo: 100_000 }), deleted: false },
    { name: "not finished: kept", job: job({ ttl: 0 }), deleted: false },
    { name: "finished, TTL not reached: requeued at expiry", job: job({ ttl: 60, finishedAgo: 20_000 }), requeueAfterMs: 40_000, deleted: false },
    { name: "Complete, TTL passed: deleted", job: job({ ttl: 60, finishedAgo: 60_000 }), deleted: true },
    { name: "Failed, TTL 0: deleted at once", job: job({ ttl: 0, finishedAgo: 0, type: "Failed" }), deleted: true },
    { name: "finished in the future (clock skew): deferred", job: job({ ttl: 10, finishedAgo: -5000 }), requeueAfterMs: 15_000, deleted: false },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const f = new ControllerFixture();
      const t = new TTLAfterFinishedController(f.manager);
      f.seed(builtin.jobs, c.job);
      const r = await f.reconcile(t.controller, "default/j");
      expect(r.requeueAfterMs).toBe(c.requeueAfterMs);
      const del = f.actions().filter((a) => a.verb === "delete");
      expect(del.length).toBe(c.deleted ? 1 : 0);
      if (c.deleted) expect(del[0].options).toMatchObject({ propagationPolicy: "Foreground", preconditions: { uid: "uid-j" } });
    });
  }

  it("re-reads the Job: a TTL raised since the cache was filled defers the deletion", async () => {
    const f = new ControllerFixture();
    const t = new TTLAfterFinishedController(f.manager);
    f.seedCache(builtin.jobs, { ...job({ ttl: 10, finishedAgo: 60_000 }), metadata: { name: "j", namespace: "default", uid: "uid-j" } });
    f.seedAPI(builtin.jobs, job({ ttl: 120, finishedAgo: 60_000 }));
    expect(await f.reconcile(t.controller, "default/j")).toEqual({ requeueAfterMs: 60_000 });
    expect(f.actions().filter((a) => a.verb === "delete")).toEqual([]);
  });
});
