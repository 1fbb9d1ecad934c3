/**
 * A CronJob firing on a fake clock, end to end with the real kubectl: the whole control plane (API
 * server, CronJob and Job controllers, simulated kubelet, garbage collector) runs on one FakeClock
 * that the test moves forward, so minutes of schedules pass in a few real seconds. kubectl's
 * tables are printed by the server, so their ages (LAST SCHEDULE, AGE) are on the fake clock too.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { FakeClock } from "../../src/apimachinery/clock.js";
import { startControlPlane, type RunningControlPlane } from "../../src/controlplane/index.js";
import { Kubectl } from "./kubectl.js";
import { eventually, sleep } from "./controlplane-env.js";

const MINUTE = 60_000;
/** A minute boundary; the control plane starts 30 s after it. */
const BASE = Date.UTC(2026, 0, 1);
const clock = new FakeClock(BASE + 30_000);
/** The k-th schedule time of "*\/1 * * * *" after the start. */
const scheduled = (k: number) => BASE + k * MINUTE;
/** Upstream's Job name: the CronJob's name and the scheduled time in minutes since the epoch (2026-01-01T00:0k:00Z). */
const jobName = (k: number) => `tick-${29_453_760 + k}`;

let cp: RunningControlPlane;
let k: Kubectl;
/** The fake time the pump moves the clock toward (never beyond). */
let target = clock.now();
let stopped = false;
let pumping: Promise<void> | undefined;

/** Moves the fake clock toward `target` in 250 ms steps, yielding real time between steps so the controllers and kubectl keep up. */
async function pump(): Promise<void> {
  while (!stopped) {
    const left = target - clock.now();
    if (left > 0) await clock.advance(Math.min(250, left));
    await sleep(5);
  }
}

beforeAll(async () => {
  cp = await startControlPlane({
    port: 0,
    clock,
    kubelet: { heartbeatIntervalMs: 0, delays: { schedule: 0, containerCreating: 100, running: 100 } },
  });
  pumping = pump();
  await cp.ready;
  k = new Kubectl(cp.api.kubeconfigPath);
}, 60_000);

afterAll(async () => {
  stopped = true;
  await pumping;
  await cp?.stop();
});

interface JobList {
  items: Array<{ metadata: { name: string; ownerReferences?: Array<{ kind: string; name: string }> }; status: { succeeded?: number; conditions?: Array<{ type: string; status: string }> } }>;
}

const complete = (j: JobList["items"][number]) => (j.status.conditions ?? []).some((c) => c.type === "Complete" && c.status === "True");

async function jobs(): Promise<JobList["items"]> {
  return (JSON.parse(await k.ok(["get", "jobs", "-o", "json"])) as JobList).items;
}

it("kubectl create cronjob: Jobs named <cronjob>-<scheduled minutes> at each schedule time, LAST SCHEDULE, and successfulJobsHistoryLimit prunes old Jobs", async () => {
  await k.ok(["create", "cronjob", "tick", "--image=busybox", "--schedule=*/1 * * * *", "--", "sh", "-c", "exit 0"]);
  await k.ok(["patch", "cronjob", "tick", "--type=merge", "-p", '{"spec":{"successfulJobsHistoryLimit":2}}']);
  // Before the first schedule time nothing runs.
  expect(await jobs()).toEqual([]);
  expect(await k.ok(["get", "cronjob", "tick"])).toMatch(/^tick\s+\*\/1 \* \* \* \*\s+<none>\s+False\s+0\s+<none>\s+/m);

  // Past the first schedule time: one Job, which the simulated kubelet runs to completion.
  target = scheduled(1) + 30_000;
  const first = await eventually("the first scheduled Job completes", async () => {
    const items = await jobs();
    return items.length === 1 && complete(items[0]) ? items : undefined;
  });
  expect(first[0].metadata.name).toBe(jobName(1));
  expect(first[0].metadata.ownerReferences).toEqual([expect.objectContaining({ kind: "CronJob", name: "tick" })]);
  const cj = JSON.parse(await k.ok(["get", "cronjob", "tick", "-o", "json"])) as { status: { lastScheduleTime?: string; lastSuccessfulTime?: string; active?: unknown[] } };
  expect(cj.status.lastScheduleTime).toBe(new Date(scheduled(1)).toISOString().replace(".000Z", "Z"));
  expect(cj.status.lastSuccessfulTime).toBeDefined();
  await eventually("the fake clock reaches 30 s past the schedule time", async () => (clock.now() === target ? true : undefined));
  // LAST SCHEDULE is the age of lastScheduleTime on the server's (fake) clock; the CronJob was created at the start.
  expect(await k.ok(["get", "cronjob", "tick"])).toMatch(/^tick\s+\*\/1 \* \* \* \*\s+<none>\s+False\s+0\s+30s\s+60s\s*$/m);

  // Three more schedule times: four Jobs in all, of which the two newest successful ones are kept.
  target = scheduled(4) + 30_000;
  const kept = await eventually(
    "the history limit keeps the two newest Jobs",
    async () => {
      const items = await jobs();
      const names = items.map((j) => j.metadata.name).sort();
      return names.length === 2 && names[0] === jobName(3) && names[1] === jobName(4) && items.every(complete) ? names : undefined;
    },
    60_000,
  );
  expect(kept).toEqual([jobName(3), jobName(4)]);
  const after = JSON.parse(await k.ok(["get", "cronjob", "tick", "-o", "json"])) as { status: { lastScheduleTime?: string } };
  expect(after.status.lastScheduleTime).toBe(new Date(scheduled(4)).toISOString().replace(".000Z", "Z"));
  const events = await k.ok(["get", "events", "--field-selector", "involvedObject.kind=CronJob,involvedObject.name=tick", "-o", "custom-columns=REASON:.reason,MESSAGE:.message", "--no-headers"]);
  for (const i of [1, 2, 3, 4]) expect(events).toMatch(new RegExp(`SuccessfulCreate\\s+Created job ${jobName(i)}`));
  for (const i of [1, 2]) expect(events).toMatch(new RegExp(`SuccessfulDelete\\s+Deleted job ${jobName(i)}`));
  // Each of the four Jobs was created and measured: its skew from the schedule time is on the control plane's registry.
  const skew = await cp.registry.getSingleMetricAsString("cronjob_controller_job_creation_skew_duration_seconds");
  expect(skew).toMatch(/^cronjob_controller_job_creation_skew_duration_seconds_count 4$/m);
  // The pruned Jobs' pods went with them (background propagation through the garbage collector).
  await eventually("the pruned Jobs' pods are gone", async () => {
    const pods = JSON.parse(await k.ok(["get", "pods", "-o", "json"])) as { items: Array<{ metadata: { labels?: Record<string, string> } }> };
    const owners = new Set(pods.items.map((p) => p.metadata.labels?.["batch.kubernetes.io/job-name"]));
    return !owners.has(jobName(1)) && !owners.has(jobName(2)) ? true : undefined;
  });
}, 120_000);
