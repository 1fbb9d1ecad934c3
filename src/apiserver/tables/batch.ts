/** Jobs and CronJobs. */
import type { CronJob, Job } from "../../apimachinery/api/batch/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { CONTAINERS_COLUMN, IMAGES_COLUMN, ageColumn, col, colText, nameColumn } from "./columns.js";
import { humanDuration, translateTimestampSince } from "./duration.js";
import { formatLabelSelector, layoutContainerCells } from "./format.js";
import type { PrintContext, PrintedRow, Printer } from "./types.js";

const BATCH = "io.k8s.api.batch.v1";

function conditionTrue(job: Job, type: string): boolean {
  const c = (job.status?.conditions ?? []).find((x) => x.type === type);
  return c?.status === "True";
}

/** The STATUS column: Complete, Failed, Terminating, Suspended, FailureTarget or Running. */
export function jobStatus(job: Job): string {
  if (conditionTrue(job, "Complete")) return "Complete";
  if (conditionTrue(job, "Failed")) return "Failed";
  if (job.metadata?.deletionTimestamp) return "Terminating";
  if (conditionTrue(job, "Suspended")) return "Suspended";
  if (conditionTrue(job, "FailureTarget")) return "FailureTarget";
  return "Running";
}

export function printJob(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const job = obj as unknown as Job;
  const succeeded = job.status?.succeeded ?? 0;
  let completions: string;
  if (job.spec?.completions != null) completions = `${succeeded}/${job.spec.completions}`;
  else {
    const parallelism = job.spec?.parallelism ?? 0;
    completions = parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
  }
  let duration = "";
  const start = job.status?.startTime ? Date.parse(job.status.startTime) : NaN;
  if (!Number.isNaN(start)) {
    const end = job.status?.completionTime ? Date.parse(job.status.completionTime) : NaN;
    duration = humanDuration((Number.isNaN(end) ? ctx.now : end) - start);
  }
  const [names, images] = layoutContainerCells(job.spec?.template?.spec?.containers);
  return {
    cells: [job.metadata?.name ?? "", jobStatus(job), completions, duration, translateTimestampSince(job.metadata?.creationTimestamp, ctx.now), names, images, formatLabelSelector(job.spec?.selector)],
  };
}

export const jobPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    colText("Status", "string", "Status of the job."),
    col("Completions", "string", `${BATCH}.JobStatus`, "succeeded"),
    colText("Duration", "string", "Time required to complete the job."),
    ageColumn(),
    CONTAINERS_COLUMN(),
    IMAGES_COLUMN(),
    col("Selector", "string", `${BATCH}.JobSpec`, "selector", 1),
  ],
  print: printJob,
});

export function printCronJob(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const cj = obj as unknown as CronJob;
  const last = cj.status?.lastScheduleTime ? translateTimestampSince(cj.status.lastScheduleTime, ctx.now) : "<none>";
  const jobSpec = cj.spec?.jobTemplate?.spec;
  const [names, images] = layoutContainerCells(jobSpec?.template?.spec?.containers);
  return {
    cells: [
      cj.metadata?.name ?? "",
      cj.spec?.schedule ?? "",
      cj.spec?.timeZone ?? "<none>",
      // printBoolPtr: "True", "False", "<unset>" for nil.
      cj.spec?.suspend == null ? "<unset>" : cj.spec.suspend ? "True" : "False",
      (cj.status?.active ?? []).length,
      last,
      translateTimestampSince(cj.metadata?.creationTimestamp, ctx.now),
      names,
      images,
      formatLabelSelector(jobSpec?.selector),
    ],
  };
}

export const cronJobPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    col("Schedule", "string", `${BATCH}.CronJobSpec`, "schedule"),
    col("Timezone", "string", `${BATCH}.CronJobSpec`, "timeZone"),
    col("Suspend", "boolean", `${BATCH}.CronJobSpec`, "suspend"),
    col("Active", "integer", `${BATCH}.CronJobStatus`, "active"),
    col("Last Schedule", "string", `${BATCH}.CronJobStatus`, "lastScheduleTime"),
    ageColumn(),
    CONTAINERS_COLUMN(),
    IMAGES_COLUMN(),
    col("Selector", "string", `${BATCH}.JobSpec`, "selector", 1),
  ],
  print: printCronJob,
});
