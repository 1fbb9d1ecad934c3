import type { CronJob, Job } from "../../apimachinery/api/batch/v1.js";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../apimachinery/clock.js";
import { formatTime } from "../../apimachinery/time.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { JobController } from "../job/controller.js";
import { PodLifecycleSimulator } from "../podlifecycle/simulator.js";
import { CronJobController, getJobName, mostRecentScheduleTime } from "./controller.js";
import { parseSchedule } from "./schedule.js";

const NOW = Date.UTC(2026, 0, 1, 12, 0, 30); // 12:00:30 UTC
const H = 3_600_000;

function cronJob(o: Partial<CronJob["spec"]> & { created?: number; lastScheduleTime?: number; active?: Job[]; deleting?: boolean } = {}): CronJob {
  const { created, lastScheduleTime, active, deleting, ...spec } = o;
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: {
      name: "mycronjob",
      namespace: "default",
      uid: "uid-cj",
      creationTimestamp: formatTime(created ?? NOW - 2 * H),
      ...(deleting ? { deletionTimestamp: formatTime(NOW), finalizers: ["test/keep"] } : {}),
    },
    spec: {
      schedule: "0 * * * *",
      concurrencyPolicy: "Allow",
      jobTemplate: {
        metadata: { labels: { app: "cron" }, annotations: { note: "x" } },
        spec: { template: { spec: { restartPolicy: "OnFailure", containers: [{ name: "c", image: "busybox", command: ["true"] }] } } },
      },
      ...spec,
    },
    status: {
      ...(lastScheduleTime !== undefined ? { lastScheduleTime: formatTime(lastScheduleTime) } : {}),
      ...(active ? { active: active.map((j) => ({ apiVersion: "batch/v1", kind: "Job", namespace: "default", name: j.metadata?.name, uid: j.metadata?.uid })) } : {}),
    },
  };
}

function job(name: string, o: { finished?: "Complete" | "Failed"; start?: number } = {}): Job {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name,
      namespace: "default",
      uid: `uid-${name}`,
      ownerReferences: [{ apiVersion: "batch/v1", kind: "CronJob", name: "mycronjob", uid: "uid-cj", controller: true, blockOwnerDeletion: true }],
    },
    spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }] } } },
    status: {
      ...(o.start !== undefined ? { startTime: formatTime(o.start) } : {}),
      ...(o.finished
        ? { conditions: [{ type: o.finished, status: "True" }], ...(o.finished === "Complete" ? { completionTime: formatTime((o.start ?? NOW) + 60_000) } : {}) }
        : {}),
    },
  };
}

function setup(cj: CronJob, jobs: Job[] = []) {
  const f = new ControllerFixture({ clock: new FakeClock(NOW) });
  const c = new CronJobController(f.manager);
  f.seed(builtin.cronJobs, cj);
  if (jobs.length > 0) f.seed(builtin.jobs, ...jobs);
  const sync = () => f.reconcile(c.controller, "default/mycronjob");
  const cj$ = () => f.client.tracker.get(builtin.cronJobs, "default", "mycronjob") as unknown as CronJob;
  const created = () => f.actions().filter((a) => a.verb === "create" && a.resource === "jobs").map((a) => a.object as Job);
  const deleted = () => f.actions().filter((a) => a.verb === "delete" && a.resource === "jobs").map((a) => a.name);
  return { f, sync, cj$, created, deleted };
}

const noon = Date.UTC(2026, 0, 1, 12);
const thisJob = getJobName(cronJob(), noon);

describe("syncCronJob (upstream TestControllerV2SyncCronJob)", () => {
  it("not time yet: nothing created, requeued at the next schedule + 100 ms", async () => {
    const { sync, created } = setup(cronJob({ lastScheduleTime: noon }));
    expect(await sync()).toEqual({ requeueAfterMs: H - 30_000 + 100 });
    expect(created()).toEqual([]);
  });

  it("time to run (Allow): creates <name>-<minutes> from the template, active and lastScheduleTime set", async () => {
    const { f, sync, cj$, created } = setup(cronJob({ lastScheduleTime: noon - H }));
    expect(await sync()).toEqual({ requeueAfterMs: H - 30_000 + 100 });
    const [j] = created();
    expect(j.metadata?.name).toBe(`mycronjob-${noon / 60_000}`);
    expect(j.metadata?.name).toBe(thisJob);
    expect(j.metadata?.labels).toEqual({ app: "cron" });
    expect(j.metadata?.annotations).toEqual({ note: "x", "batch.kubernetes.io/cronjob-scheduled-timestamp": "2026-01-01T12:00:00Z" });
    expect(j.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "CronJob", name: "mycronjob", uid: "uid-cj", controller: true });
    expect(cj$().status?.lastScheduleTime).toBe("2026-01-01T12:00:00Z");
    expect(cj$().status?.active?.map((r) => r.name)).toEqual([thisJob]);
    expect(f.recorder.events).toContain(`Normal SuccessfulCreate Created job ${thisJob}`);
  });

  it("Allow with an active job still creates", async () => {
    const prev = job("prev", { start: noon - H });
    const { sync, cj$ } = setup(cronJob({ lastScheduleTime: noon - H, active: [prev] }), [prev]);
    await sync();
    expect(cj$().status?.active?.map((r) => r.name)).toEqual(["prev", thisJob]);
  });

  it("Forbid with an active job: not started, JobAlreadyActive", async () => {
    const prev = job("prev", { start: noon - H });
    const { f, sync, created } = setup(cronJob({ concurrencyPolicy: "Forbid", lastScheduleTime: noon - H, active: [prev] }), [prev]);
    await sync();
    expect(created()).toEqual([]);
    expect(f.recorder.events).toContain("Normal JobAlreadyActive Not starting job because prior execution is running and concurrency policy is Forbid");
  });

  it("Replace with an active job: deletes it, then creates", async () => {
    const prev = job("prev", { start: noon - H });
    const { f, sync, cj$, created, deleted } = setup(cronJob({ concurrencyPolicy: "Replace", lastScheduleTime: noon - H, active: [prev] }), [prev]);
    await sync();
    expect(deleted()).toEqual(["prev"]);
    expect(created()).toHaveLength(1);
    expect(cj$().status?.active?.map((r) => r.name)).toEqual([thisJob]);
    expect(f.recorder.events).toContain("Normal SuccessfulDelete Deleted job prev");
  });

  it("suspended: nothing", async () => {
    const { sync, created } = setup(cronJob({ suspend: true, lastScheduleTime: noon - H }));
    expect(await sync()).toEqual({});
    expect(created()).toEqual([]);
  });

  it("deleting: nothing new", async () => {
    const { sync, created } = setup(cronJob({ deleting: true, lastScheduleTime: noon - H }));
    await sync();
    expect(created()).toEqual([]);
  });

  it("startingDeadlineSeconds passed: the missed time is not started (the search begins at now - deadline)", async () => {
    const { f, sync, created } = setup(cronJob({ startingDeadlineSeconds: 10, lastScheduleTime: noon - H }));
    expect(await sync()).toEqual({ requeueAfterMs: H - 30_000 + 100 });
    expect(created()).toEqual([]);
    expect(f.recorder.events).toEqual([]);
  });

  it("startingDeadlineSeconds not yet passed: created", async () => {
    const { sync, created } = setup(cronJob({ startingDeadlineSeconds: 60, lastScheduleTime: noon - H }));
    await sync();
    expect(created()).toHaveLength(1);
  });

  it("too many missed start times: TooManyMissedTimes, the most recent one still starts", async () => {
    const { f, sync, created } = setup(cronJob({ schedule: "* * * * *", created: NOW - 5 * H }));
    await sync();
    expect(f.recorder.events).toContain("Warning TooManyMissedTimes too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew");
    expect(created().map((j) => j.metadata?.name)).toEqual([getJobName(cronJob(), noon)]);
  });

  it("a finished active job leaves active (SawCompletedJob) and sets lastSuccessfulTime", async () => {
    const prev = job("prev", { start: noon - H, finished: "Complete" });
    const { f, sync, cj$ } = setup(cronJob({ lastScheduleTime: noon, active: [prev] }), [prev]);
    await sync();
    expect(cj$().status?.active).toBeUndefined();
    expect(cj$().status?.lastSuccessfulTime).toBe(formatTime(noon - H + 60_000));
    expect(f.recorder.events).toContain("Normal SawCompletedJob Saw completed job: prev, condition: Complete");
  });

  it("an active job gone from the API leaves active (MissingJob)", async () => {
    const gone = job("gone");
    const { f, sync, cj$ } = setup(cronJob({ lastScheduleTime: noon, active: [gone] }));
    await sync();
    expect(cj$().status?.active).toBeUndefined();
    expect(f.recorder.events).toContain("Normal MissingJob Active job went missing: gone");
  });

  it("an unfinished job it did not start is reported (UnexpectedJob)", async () => {
    const { f, sync } = setup(cronJob({ lastScheduleTime: noon }), [job("stray")]);
    await sync();
    expect(f.recorder.events).toContain("Warning UnexpectedJob Saw a job that the controller did not create or forgot: stray");
  });

  it("history limits delete the oldest finished jobs", async () => {
    const ok = [1, 2, 3, 4].map((i) => job(`ok-${i}`, { start: noon - (10 - i) * H, finished: "Complete" }));
    const bad = [1, 2].map((i) => job(`bad-${i}`, { start: noon - (10 - i) * H, finished: "Failed" }));
    const { sync, deleted } = setup(cronJob({ lastScheduleTime: noon, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 }), [...ok, ...bad]);
    await sync();
    expect(deleted()).toEqual(["ok-1", "bad-1"]);
  });

  it("an unknown time zone: UnknownTimeZone, nothing created", async () => {
    const { f, sync, created } = setup(cronJob({ timeZone: "Mars/Olympus", lastScheduleTime: noon - H }));
    await sync();
    expect(created()).toEqual([]);
    expect(f.recorder.events.some((e) => e.startsWith('Warning UnknownTimeZone invalid timeZone: "Mars/Olympus"'))).toBe(true);
  });

  it("an unparseable schedule: UnparseableSchedule", async () => {
    const { f, sync } = setup(cronJob({ schedule: "every day", lastScheduleTime: noon - H }));
    expect(await sync()).toEqual({});
    expect(f.recorder.events).toEqual(['Warning UnparseableSchedule unparseable schedule: "every day" : expected exactly 5 fields, found 2: every day']);
  });

  it("timeZone: 21:00 in Tokyo is 12:00 UTC; the annotation carries the zone's offset", async () => {
    const { sync, created } = setup(cronJob({ schedule: "0 21 * * *", timeZone: "Asia/Tokyo", lastScheduleTime: noon - 24 * H }));
    await sync();
    expect(created()[0]?.metadata?.annotations?.["batch.kubernetes.io/cronjob-scheduled-timestamp"]).toBe("2026-01-01T21:00:00+09:00");
  });
});

describe("mostRecentScheduleTime (upstream TestMostRecentScheduleTime)", () => {
  const hourly = parseSchedule("0 * * * *");
  const at = (h: number, m = 0) => Date.UTC(2026, 0, 1, h, m);
  const cases: Array<{ name: string; created: number; last?: number; now: number; deadline?: number; want?: number; missed: string }> = [
    { name: "now before the next schedule", created: at(10), now: at(10, 30), missed: "none" },
    { name: "now just after the next schedule", created: at(10), now: at(11, 1), want: at(11), missed: "none" },
    { name: "missed 5 schedules", created: at(10), now: at(15, 1), want: at(15), missed: "few" },
    { name: "from lastScheduleTime", created: at(1), last: at(14), now: at(15, 1), want: at(15), missed: "none" },
    { name: "startingDeadlineSeconds bounds the search", created: at(1), now: at(15, 1), deadline: 300, want: at(15), missed: "none" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const cj = cronJob({ created: c.created, lastScheduleTime: c.last, startingDeadlineSeconds: c.deadline });
      const r = mostRecentScheduleTime(cj, c.now, hourly, true);
      expect(r.mostRecent).toBe(c.want);
      expect(r.missed).toBe(c.missed);
    });
  }

  it("many missed schedules", () => {
    const r = mostRecentScheduleTime(cronJob({ created: at(0) }), at(3, 30), parseSchedule("* * * * *"), true);
    expect(r).toMatchObject({ mostRecent: at(3, 30), missed: "many" });
  });

  it("a schedule that never fires is an error", () => {
    expect(() => mostRecentScheduleTime(cronJob({ created: at(0) }), at(3), parseSchedule("59 23 31 2 *"), true)).toThrow(/less than 1 second/);
  });
});

describe("a day of schedules on the fake clock", () => {
  it("*/30 * * * * with the Job controller and kubelet: 49 jobs run, history keeps 3", async () => {
    const start = Date.UTC(2026, 0, 1);
    const f = new ControllerFixture({ clock: new FakeClock(start) });
    new CronJobController(f.manager);
    new JobController(f.manager);
    new PodLifecycleSimulator(f.manager, { heartbeatIntervalMs: 0, delays: { schedule: 0, containerCreating: 0, running: 0 } });
    const cj = cronJob({ schedule: "*/30 * * * *", created: start - 1000, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    const j = cj.spec!.jobTemplate.spec!;
    j.selector = undefined;
    f.seedAPI(builtin.cronJobs, cj);
    // The API server generates a Job's selector; the fake client does not: a reactor does it here.
    f.client.prependReactor("create", "jobs", (a) => {
      const o = a.object as Job;
      const uid = `uid-${o.metadata?.name}`;
      o.metadata = { ...o.metadata, uid };
      o.spec = { ...o.spec!, selector: { matchLabels: { "batch.kubernetes.io/controller-uid": uid } } };
      o.spec.template = { ...o.spec.template, metadata: { ...o.spec.template.metadata, labels: { ...o.spec.template.metadata?.labels, "batch.kubernetes.io/controller-uid": uid } } };
      return { handled: true, result: f.client.tracker.create(builtin.jobs, "default", o as unknown as Record<string, unknown>) };
    });
    await f.start();
    const cj$ = () => f.client.tracker.get(builtin.cronJobs, "default", "mycronjob") as unknown as CronJob;
    const dayEnd = start + 24 * H;
    await f.eventually(() => f.clock.now() >= dayEnd + 60_000 && (cj$().status?.active ?? []).length === 0, { maxSteps: 40_000, stepMs: 30_000 });
    const creates = f.recorder.events.filter((e) => e.startsWith("Normal SuccessfulCreate Created job mycronjob-"));
    // 00:00, 00:30 … 24:00: 49 activations, each a Job run to Complete by the Job controller and kubelet.
    expect(creates).toHaveLength(49);
    const jobs = f.client.tracker.list(builtin.jobs, "default") as unknown as Job[];
    expect(jobs.length).toBeLessThanOrEqual(4);
    expect(cj$().status?.lastSuccessfulTime).toBeDefined();
    expect(Date.parse(cj$().status!.lastScheduleTime!)).toBe(dayEnd);
    await f.stop();
  }, 120_000);
});

describe("cronjob_controller_job_creation_skew_duration_seconds", () => {
  const skew = async (f: ControllerFixture) => {
    const { values } = await f.registry.getSingleMetric("cronjob_controller_job_creation_skew_duration_seconds")!.get();
    const get = (name: string, le?: number) => values.find((v) => (v as { metricName?: string }).metricName === name && (le === undefined || v.labels.le === le))?.value;
    return { count: get("cronjob_controller_job_creation_skew_duration_seconds_count"), sum: get("cronjob_controller_job_creation_skew_duration_seconds_sum"), le16: get("cronjob_controller_job_creation_skew_duration_seconds_bucket", 16), le32: get("cronjob_controller_job_creation_skew_duration_seconds_bucket", 32) };
  };

  it("observes how long after its scheduled time a Job was created (12:00 job created at 12:00:30: 30 s)", async () => {
    const { f, sync } = setup(cronJob({ lastScheduleTime: noon - H }));
    await sync();
    expect(await skew(f)).toEqual({ count: 1, sum: 30, le16: 0, le32: 1 });
    const text = await f.registry.metrics();
    expect(text).toContain("# HELP cronjob_controller_job_creation_skew_duration_seconds [STABLE] Time between when a cronjob is scheduled to be run, and when the corresponding job is created");
    expect(text).toContain('cronjob_controller_job_creation_skew_duration_seconds_bucket{le="512"} 1');
  });

  it("a Job found already created (a lost status write) is adopted without an observation or a SuccessfulCreate event", async () => {
    const { f, sync, cj$ } = setup(cronJob({ lastScheduleTime: noon - H }));
    f.seedAPI(builtin.jobs, job(thisJob));
    await sync();
    expect(cj$().status?.active?.map((r) => r.name)).toEqual([thisJob]);
    expect((await skew(f)).count ?? 0).toBe(0);
    expect(f.recorder.events.filter((e) => e.includes("SuccessfulCreate"))).toEqual([]);
  });
});
