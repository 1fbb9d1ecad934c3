/** kubeloop/controllers/resourcequota: the ResourceQuota controller (status.used). */
export { ResourceQuotaController, RESOURCE_QUOTA_CONTROLLER_NAME, DEFAULT_RESOURCE_QUOTA_WORKERS, RESYNC_MS } from "./controller.js";
export type { ResourceQuotaControllerOptions } from "./controller.js";
