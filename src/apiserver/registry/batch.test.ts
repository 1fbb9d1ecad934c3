/**
 * batch/v1 Jobs and CronJobs: defaults (defaults_test.go), selector generation (the job
 * strategy's tests), validation (validation_test.go's TestValidateJob, TestValidateJobUpdate,
 * TestValidateCronJob*) and cron schedule parsing (robfig/cron's parser_test.go), for the cases
 * users hit.
 */
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { cronScheduleError, parseGoDuration } from "./cronschedule.js";
import { cronJobStrategy } from "./cronjobs.js";
import { jobDeleteWarning, jobStrategy } from "./jobs.js";
import type { ResourceStrategy } from "./strategy.js";

const UID = "1a2b3c4d-0000-0000-0000-000000000001";

function created(s: ResourceStrategy, obj: KubeObject, uid = UID): { obj: KubeObject; errs: string[] } {
  s.defaults(obj);
  Object.assign(obj.metadata as object, { uid });
  s.prepareForCreate(obj);
  return { obj, errs: s.validate(obj).map(String) };
}

function updated(s: ResourceStrategy, old: KubeObject, mutate: (o: KubeObject) => void): { obj: KubeObject; errs: string[] } {
  Object.assign(old.metadata as object, { resourceVersion: "1" });
  const obj = structuredClone(old);
  mutate(obj);
  s.defaults(obj);
  s.prepareForUpdate(obj, old);
  return { obj, errs: s.validateUpdate(obj, old).map(String) };
}

const podTemplate = (restartPolicy = "Never") => ({ spec: { restartPolicy, containers: [{ name: "c", image: "busybox" }] } });
const job = (spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name: "pi", namespace: "default" },
  spec: { template: podTemplate(), ...spec },
});

type Spec = Record<string, unknown> & { template: { metadata?: { labels?: Record<string, string> }; spec: Record<string, unknown> } };
const specOf = (o: KubeObject) => o.spec as Spec;

describe("Job defaults (SetDefaults_Job)", () => {
  it.each([
    ["neither completions nor parallelism", {}, { completions: 1, parallelism: 1, backoffLimit: 6 }],
    ["completions only", { completions: 5 }, { completions: 5, parallelism: 1 }],
    ["parallelism only", { parallelism: 3 }, { parallelism: 3 }],
    ["backoffLimitPerIndex sets backoffLimit to MaxInt32", { completionMode: "Indexed", completions: 2, backoffLimitPerIndex: 1 }, { backoffLimit: 2147483647 }],
    ["podFailurePolicy: podReplacementPolicy Failed", { podFailurePolicy: { rules: [] } }, { podReplacementPolicy: "Failed" }],
  ])("%s", (_name, spec, want) => {
    const { obj } = created(jobStrategy, job(spec));
    expect(obj.spec).toMatchObject({ completionMode: "completionMode" in spec ? spec.completionMode : "NonIndexed", suspend: false, manualSelector: false, ...want });
    if (!("podFailurePolicy" in spec)) expect(specOf(obj).podReplacementPolicy).toBe("TerminatingOrFailed");
  });

  it("defaults the status of onPodConditions patterns to True", () => {
    const { obj } = created(jobStrategy, job({ podFailurePolicy: { rules: [{ action: "Ignore", onPodConditions: [{ type: "DisruptionTarget" }] }] } }));
    expect(specOf(obj).podFailurePolicy).toEqual({ rules: [{ action: "Ignore", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] }] });
  });

  it("copies template labels to a Job without labels", () => {
    const j = job();
    specOf(j).template.metadata = { labels: { app: "pi" } };
    const { obj } = created(jobStrategy, j);
    expect(obj.metadata?.labels).toMatchObject({ app: "pi" });
  });
});

describe("Job selector generation", () => {
  it("labels the template with the job name and uid and selects the uid", () => {
    const { obj, errs } = created(jobStrategy, job());
    expect(errs).toEqual([]);
    expect(specOf(obj).selector).toEqual({ matchLabels: { "batch.kubernetes.io/controller-uid": UID } });
    const labels = {
      "batch.kubernetes.io/controller-uid": UID,
      "batch.kubernetes.io/job-name": "pi",
      "controller-uid": UID,
      "job-name": "pi",
    };
    expect(specOf(obj).template.metadata?.labels).toEqual(labels);
    // The Job itself reads back with those labels, as upstream's defaulting of the stored Job gives it.
    expect(obj.metadata?.labels).toEqual(labels);
  });

  it("keeps a conflicting label and rejects it", () => {
    const j = job();
    specOf(j).template.metadata = { labels: { "job-name": "other" } };
    const { obj, errs } = created(jobStrategy, j);
    expect(specOf(obj).template.metadata?.labels?.["job-name"]).toBe("other");
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^spec\.template\.metadata\.labels\[job-name\]: Invalid value: \{.*"job-name":"other".*\}: must be 'pi'$/);
  });

  it("leaves a manual selector alone, which must match the template", () => {
    const j = job({ manualSelector: true, selector: { matchLabels: { a: "b" } } });
    expect(created(jobStrategy, j).errs).toEqual(['spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`']);
    const ok = job({ manualSelector: true, selector: { matchLabels: { a: "b" } } });
    specOf(ok).template.metadata = { labels: { a: "b" } };
    expect(created(jobStrategy, ok).errs).toEqual([]);
  });
});

describe("Job validation (TestValidateJob)", () => {
  const cases: Array<[string, Record<string, unknown>, string[], (o: KubeObject) => void]> = [
    ["negative parallelism", { parallelism: -1 }, ["spec.parallelism: Invalid value: -1: must be greater than or equal to 0"], () => {}],
    ["negative completions", { completions: -1 }, ["spec.completions: Invalid value: -1: must be greater than or equal to 0"], () => {}],
    ["negative activeDeadlineSeconds", { activeDeadlineSeconds: -1 }, ["spec.activeDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0"], () => {}],
    ["negative backoffLimit", { backoffLimit: -1 }, ["spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"], () => {}],
    ["negative ttlSecondsAfterFinished", { ttlSecondsAfterFinished: -1 }, ["spec.ttlSecondsAfterFinished: Invalid value: -1: must be greater than or equal to 0"], () => {}],
    [
      "restartPolicy Always",
      {},
      ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'],
      (o) => (specOf(o).template.spec.restartPolicy = "Always"),
    ],
    ["unknown completionMode", { completionMode: "Foo" }, ['spec.completionMode: Unsupported value: "Foo": supported values: "NonIndexed", "Indexed"'], () => {}],
    ["Indexed without completions", { completionMode: "Indexed", parallelism: 2 }, ["spec.completions: Required value: when completion mode is Indexed"], () => {}],
    [
      "backoffLimitPerIndex needs Indexed",
      { completions: 2, backoffLimitPerIndex: 1 },
      ["spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode"],
      () => {},
    ],
    [
      "maxFailedIndexes without backoffLimitPerIndex",
      { completionMode: "Indexed", completions: 2, maxFailedIndexes: 1 },
      ["spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified"],
      () => {},
    ],
    [
      "podFailurePolicy with OnFailure",
      { podFailurePolicy: { rules: [{ action: "FailJob", onExitCodes: { operator: "In", values: [1] } }] } },
      ['spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified'],
      (o) => (specOf(o).template.spec.restartPolicy = "OnFailure"),
    ],
    [
      "podFailurePolicy rule without action or requirement",
      { podFailurePolicy: { rules: [{}] } },
      [
        'spec.podFailurePolicy.rules[0].action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]',
        "spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
      ],
      () => {},
    ],
    [
      "onExitCodes: zero with In, unordered, duplicated",
      { podFailurePolicy: { rules: [{ action: "FailJob", onExitCodes: { operator: "In", values: [2, 0, 2] } }] } },
      [
        "spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator",
        "spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 2",
        "spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [2,0,2]: must be ordered",
      ],
      () => {},
    ],
    [
      "successPolicy on a NonIndexed job",
      { successPolicy: { rules: [{ succeededCount: 1 }] } },
      ['spec.successPolicy: Invalid value: {"rules":[{"succeededCount":1}]}: requires indexed completion mode'],
      () => {},
    ],
    [
      "podReplacementPolicy TerminatingOrFailed with a podFailurePolicy",
      { podReplacementPolicy: "TerminatingOrFailed", podFailurePolicy: { rules: [{ action: "Ignore", onPodConditions: [{ type: "DisruptionTarget" }] }] } },
      ['spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"'],
      () => {},
    ],
    [
      "managedBy not a domain-prefixed path",
      { managedBy: "kueue" },
      ['spec.managedBy: Invalid value: "kueue": must be a domain-prefixed path (such as "acme.io/foo")'],
      () => {},
    ],
  ];
  it.each(cases)("%s", (_name, spec, want, mutate) => {
    const j = job(spec);
    mutate(j);
    expect(created(jobStrategy, j).errs).toEqual(want);
  });

  it("rejects an Indexed job whose last pod hostname is no DNS label", () => {
    const j = job({ completionMode: "Indexed", completions: 10 });
    j.metadata!.name = "a".repeat(62);
    expect(created(jobStrategy, j).errs).toContain(`metadata.name: Invalid value: "${"a".repeat(62)}": will not able to create pod with invalid DNS label: ${"a".repeat(62)}-9`);
  });
});

describe("Job updates (TestValidateJobUpdate)", () => {
  const base = () => created(jobStrategy, job()).obj;
  it("allows parallelism and suspend changes, bumping the generation", () => {
    const { obj, errs } = updated(jobStrategy, base(), (o) => Object.assign(o.spec as object, { parallelism: 3, suspend: true }));
    expect(errs).toEqual([]);
    expect(obj.metadata?.generation).toBe(2);
  });
  it("forbids selector, completions and template changes", () => {
    expect(updated(jobStrategy, base(), (o) => (specOf(o).completions = 2)).errs).toEqual(["spec.completions: Invalid value: 2: field is immutable"]);
    const t = updated(jobStrategy, base(), (o) => ((specOf(o).template.spec.containers as Array<{ image: string }>)[0].image = "alpine")).errs;
    expect(t).toHaveLength(1);
    expect(t[0]).toMatch(/^spec\.template: Invalid value: .*: field is immutable$/);
  });
  it("allows node selector changes of a suspended job that never started", () => {
    const old = created(jobStrategy, job({ suspend: true })).obj;
    expect(updated(jobStrategy, old, (o) => (specOf(o).template.spec.nodeSelector = { zone: "a" })).errs).toEqual([]);
    const started = created(jobStrategy, job({ suspend: true })).obj;
    started.status = { startTime: "2026-01-01T00:00:00Z" };
    expect(updated(jobStrategy, started, (o) => (specOf(o).template.spec.nodeSelector = { zone: "a" })).errs[0]).toMatch(/^spec\.template: Invalid value/);
  });
  it("orphans pods on deletes without a policy, with upstream's warning", () => {
    expect(jobStrategy.orphanDependentsByDefault?.warning).toBe(jobDeleteWarning);
  });
});

describe("Job status (validateJobStatus)", () => {
  it("rejects more ready pods than active ones and contradictory conditions", () => {
    const old = created(jobStrategy, job()).obj;
    const obj = structuredClone(old);
    obj.metadata = { ...obj.metadata, resourceVersion: "1" };
    obj.status = {
      active: 1,
      ready: 2,
      conditions: [
        { type: "Complete", status: "True" },
        { type: "Failed", status: "True" },
      ],
    };
    jobStrategy.prepareForStatusUpdate(obj, old);
    expect(jobStrategy.validateStatusUpdate(obj, old).map(String)).toEqual([
      "status.conditions: Invalid value: cannot set Complete=True and Failed=true conditions",
      "status.ready: Invalid value: 2: cannot set more ready pods than active",
    ]);
  });
});

const cronJob = (spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "batch/v1",
  kind: "CronJob",
  metadata: { name: "hello", namespace: "default" },
  spec: { schedule: "*/1 * * * *", jobTemplate: { spec: { template: podTemplate("OnFailure") } }, ...spec },
});

describe("CronJob defaults (SetDefaults_CronJob)", () => {
  it("fills policies and history limits, not the Job defaults of the template", () => {
    const { obj, errs } = created(cronJobStrategy, cronJob());
    expect(errs).toEqual([]);
    expect(obj.spec).toMatchObject({ concurrencyPolicy: "Allow", suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    const jobSpec = (obj.spec as { jobTemplate: { spec: Record<string, unknown> } }).jobTemplate.spec;
    expect(jobSpec.parallelism).toBeUndefined();
    expect(jobSpec.template).toMatchObject({ spec: { dnsPolicy: "ClusterFirst", terminationGracePeriodSeconds: 30 } });
    expect(obj.metadata?.generation).toBe(1);
  });
});

describe("CronJob validation (TestValidateCronJob)", () => {
  it.each([
    ["empty schedule", { schedule: "" }, ["spec.schedule: Required value"]],
    ["garbage schedule", { schedule: "error" }, ['spec.schedule: Invalid value: "error": expected exactly 5 fields, found 1: [error]']],
    ["out of range", { schedule: "61 * * * *" }, ['spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61']],
    [
      "TZ in the schedule",
      { schedule: "TZ=UTC 0 * * * *" },
      ['spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead'],
    ],
    ["unknown time zone", { timeZone: "Mars/Olympus" }, ['spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus']],
    ["empty time zone", { timeZone: "" }, ['spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string']],
    [
      "Local",
      { timeZone: "Local" },
      ['spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'],
    ],
    ["bad component", { timeZone: "America/../New_York" }, ['spec.timeZone: Invalid value: "America/../New_York": unknown time zone America/../New_York']],
    ["negative startingDeadlineSeconds", { startingDeadlineSeconds: -1 }, ["spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0"]],
    ["unknown concurrencyPolicy", { concurrencyPolicy: "Sometimes" }, ['spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"']],
    [
      "a selector in the job template",
      { jobTemplate: { spec: { selector: { matchLabels: { a: "b" } }, template: podTemplate("OnFailure") } } },
      ['spec.jobTemplate.spec.selector: Invalid value: {"matchLabels":{"a":"b"}}: `selector` will be auto-generated'],
    ],
    [
      "restartPolicy Always in the job template",
      { jobTemplate: { spec: { template: podTemplate("Always") } } },
      ['spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'],
    ],
  ])("%s", (_name, spec, want) => {
    expect(created(cronJobStrategy, cronJob(spec)).errs).toEqual(want);
  });

  it("accepts IANA zones and descriptors", () => {
    expect(created(cronJobStrategy, cronJob({ timeZone: "America/New_York", schedule: "@hourly" })).errs).toEqual([]);
    expect(created(cronJobStrategy, cronJob({ timeZone: "Etc/UTC", schedule: "@every 1h30m" })).errs).toEqual([]);
  });

  it("limits names to 52 characters on create only", () => {
    const cj = cronJob();
    cj.metadata!.name = "a".repeat(53);
    expect(created(cronJobStrategy, cj).errs).toEqual([`metadata.name: Invalid value: "${"a".repeat(53)}": must be no more than 52 characters`]);
    expect(updated(cronJobStrategy, cj, (o) => ((o.spec as Record<string, unknown>).suspend = true)).errs).toEqual([]);
  });

  it("lets a stored TZ= schedule be updated, but not together with timeZone", () => {
    const old = cronJob({ schedule: "TZ=UTC 0 * * * *" });
    expect(updated(cronJobStrategy, old, (o) => ((o.spec as Record<string, unknown>).suspend = true)).errs).toEqual([]);
    expect(updated(cronJobStrategy, old, (o) => ((o.spec as Record<string, unknown>).timeZone = "UTC")).errs).toEqual([
      'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use both timeZone field and TZ or CRON_TZ in schedule',
    ]);
  });
});

describe("cron schedules (robfig/cron v3 ParseStandard)", () => {
  it.each([
    ["*/5 * * * *", undefined],
    ["0 0 1 jan,jul mon-fri", undefined],
    ["0 0 ? * SUN", undefined],
    ["@monthly", undefined],
    ["CRON_TZ=UTC 0 * * * *", undefined],
    ["", "empty spec string"],
    ["* * * *", "expected exactly 5 fields, found 4: [* * * *]"],
    ["* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"],
    ["0 24 * * *", "end of range (24) above maximum (23): 24"],
    ["0 0 0 * *", "beginning of range (0) below minimum (1): 0"],
    ["5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"],
    ["*/0 * * * *", "step of range should be a positive number: */0"],
    ["1-2-3 * * * *", "too many hyphens: 1-2-3"],
    ["*/2/3 * * * *", "too many slashes: */2/3"],
    ["x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ["@sometimes", "unrecognized descriptor: @sometimes"],
    ["@every 5x", 'failed to parse duration @every 5x: time: unknown unit "x" in duration "5x"'],
    ["CRON_TZ=Nowhere/Land 0 * * * *", "provided bad location Nowhere/Land: unknown time zone Nowhere/Land"],
  ])("%j", (spec, want) => {
    expect(cronScheduleError(spec)).toBe(want);
  });

  it("parses Go durations", () => {
    expect(parseGoDuration("1h30m")).toBe(5400e9);
    expect(parseGoDuration("1.5s")).toBe(1.5e9);
    expect(() => parseGoDuration("1")).toThrow('time: missing unit in duration "1"');
    expect(() => parseGoDuration("")).toThrow('time: invalid duration ""');
  });
});
