/** The CronJob controller (kube-controller-manager's pkg/controller/cronjob). */
export {
  CronJobController,
  CRONJOB_GVK,
  CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION,
  DEFAULT_CRONJOB_WORKERS,
  getJobName,
  getJobFromTemplate,
  mostRecentScheduleTime,
  formatRFC3339In,
} from "./controller.js";
export type { CronJobControllerOptions } from "./controller.js";
export { parseSchedule, CronParseError, CronSchedule, ConstantDelaySchedule, parseGoDuration } from "./schedule.js";
export type { Schedule } from "./schedule.js";
