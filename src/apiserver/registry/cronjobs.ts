/**
 * batch/v1 CronJobs: SetDefaults_CronJob (concurrencyPolicy Allow, suspend false, history limits
 * 3 and 1; the job template gets its pod template's defaults but not SetDefaults_Job, as
 * upstream's defaulter), validation (ValidateCronJobCreate / ValidateCronJobUpdate): the schedule
 * parses as robfig/cron's standard format and carries no TZ= or CRON_TZ= (unless it already did,
 * then not together with timeZone), timeZone names a zone of the tz database (not "Local"), the
 * name leaves room for the 11-character suffix of its Jobs (52 characters at most, checked on
 * create only), the job template is a valid Job spec whose selector is left to be generated.
 */
import type { CronJob, JobSpec } from "../../apimachinery/api/batch/v1.js";
import type { PodTemplateSpec } from "../../apimachinery/api/core/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { cronScheduleError, loadLocationError } from "./cronschedule.js";
import { defineStrategy } from "./define.js";
import { defaultPodFailurePolicy, validateJobSpecCommon } from "./jobs.js";
import { validateNonnegative } from "./meta.js";
import { defaultPodTemplateSpec } from "./poddefaults.js";
import { rec, ensureRecord } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

const asCronJob = (o: KubeObject) => o as unknown as CronJob;

export function defaultCronJob(obj: KubeObject): void {
  const spec = ensureRecord(obj, "spec") as NonNullable<CronJob["spec"]> | undefined;
  if (!spec) return;
  spec.concurrencyPolicy ||= "Allow";
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  const jobSpec = rec(rec(spec.jobTemplate)?.spec) as JobSpec | undefined;
  if (jobSpec) {
    defaultPodFailurePolicy(jobSpec);
    if (rec(jobSpec.template)) defaultPodTemplateSpec(jobSpec.template as PodTemplateSpec);
  }
}

/** Characters of a tz database name component (validTimeZoneCharacters). */
const validTimeZoneCharacters = /^[A-Za-z.\-_0-9+]{1,14}$/;

/** validateTimeZone. */
export function validateTimeZone(tz: unknown, field: string): FieldError[] {
  if (tz === undefined || tz === null) return [];
  if (typeof tz !== "string" || tz.length === 0) return [fieldErrors.invalid(field, tz, "timeZone must be nil or non-empty string")];
  for (const part of tz.split("/")) {
    if (part === "." || part === ".." || part.startsWith("-") || !validTimeZoneCharacters.test(part)) {
      return [fieldErrors.invalid(field, tz, `unknown time zone ${tz}`)];
    }
  }
  const errs: FieldError[] = [];
  if (tz.toLowerCase() === "local") errs.push(fieldErrors.invalid(field, tz, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"));
  const err = loadLocationError(tz);
  if (err) errs.push(fieldErrors.invalid(field, tz, err));
  return errs;
}

/** validateScheduleFormat. */
function validateSchedule(schedule: string, allowTZ: boolean, timeZone: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const err = cronScheduleError(schedule);
  if (err) errs.push(fieldErrors.invalid(field, schedule, err));
  if (allowTZ && schedule.includes("TZ") && timeZone != null) {
    errs.push(fieldErrors.invalid(field, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"));
  } else if (!allowTZ && schedule.includes("TZ")) {
    errs.push(fieldErrors.invalid(field, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"));
  }
  return errs;
}

/** validateCronJobSpec. */
export function validateCronJobSpec(obj: KubeObject, old: KubeObject | undefined): FieldError[] {
  const spec = asCronJob(obj).spec;
  const oldSpec = old ? asCronJob(old).spec : undefined;
  const errs: FieldError[] = [];
  const schedule = typeof spec?.schedule === "string" ? spec.schedule : "";
  if (schedule === "") errs.push(fieldErrors.required("spec.schedule", ""));
  else errs.push(...validateSchedule(schedule, (oldSpec?.schedule ?? "").includes("TZ"), spec?.timeZone, "spec.schedule"));
  if (spec?.startingDeadlineSeconds != null) errs.push(...validateNonnegative(spec.startingDeadlineSeconds, "spec.startingDeadlineSeconds"));
  if (!old || (oldSpec?.timeZone ?? null) !== (spec?.timeZone ?? null)) errs.push(...validateTimeZone(spec?.timeZone, "spec.timeZone"));
  const cp = spec?.concurrencyPolicy ?? "";
  if (cp === "") errs.push(fieldErrors.required("spec.concurrencyPolicy", ""));
  else if (!["Allow", "Forbid", "Replace"].includes(cp)) errs.push(fieldErrors.notSupported("spec.concurrencyPolicy", cp, ["Allow", "Forbid", "Replace"]));
  // ValidateJobTemplateSpec.
  const jobSpec = spec?.jobTemplate?.spec;
  errs.push(...validateJobSpecCommon(jobSpec, "spec.jobTemplate.spec"));
  if (jobSpec?.selector != null) errs.push(fieldErrors.invalid("spec.jobTemplate.spec.selector", jobSpec.selector, "`selector` will be auto-generated"));
  if (jobSpec?.manualSelector === true) errs.push(fieldErrors.notSupported("spec.jobTemplate.spec.manualSelector", jobSpec.manualSelector, ["nil", "false"]));
  if (spec?.successfulJobsHistoryLimit != null) errs.push(...validateNonnegative(spec.successfulJobsHistoryLimit, "spec.successfulJobsHistoryLimit"));
  if (spec?.failedJobsHistoryLimit != null) errs.push(...validateNonnegative(spec.failedJobsHistoryLimit, "spec.failedJobsHistoryLimit"));
  return errs;
}

/** Jobs are named <cronjob>-<11-character timestamp>: 63 - 11. */
const maxCronJobNameLength = 52;

export const cronJobStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "batch",
    version: "v1",
    kind: "CronJob",
    resource: "cronjobs",
    singular: "cronjob",
    listKind: "CronJobList",
    shortNames: ["cj"],
    categories: ["all"],
    namespaced: true,
  },
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  defaults: defaultCronJob,
  validateCreate: (obj) => {
    const errs = validateCronJobSpec(obj, undefined);
    const name = obj.metadata?.name ?? "";
    if (name.length > maxCronJobNameLength) errs.push(fieldErrors.invalid("metadata.name", name, "must be no more than 52 characters"));
    return errs;
  },
  validateUpdate: (obj, old) => validateCronJobSpec(obj, old),
});
