/** The TTL-after-finished controller (kube-controller-manager's pkg/controller/ttlafterfinished). */
export { TTLAfterFinishedController, DEFAULT_TTL_AFTER_FINISHED_WORKERS, needsCleanup, jobFinishTime } from "./controller.js";
