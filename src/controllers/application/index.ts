/**
 * kubeloop/controllers/application: the Application controller (kubeloop.dev/v1alpha1), its API
 * types, the CRD installer and the process entry point the CLI runs.
 */
export * from "./types.js";
export { applicationCRD, applicationSpec, applicationStatus, applicationPort, applicationServiceSpec, applicationCondition } from "./declaration.js";
export { setupApplicationController, reconcileApplication, ResourceExistsError, isPausedByAnnotation, DEFAULT_APPLICATION_WORKERS } from "./controller.js";
export type { ApplicationControllerOptions } from "./controller.js";
export {
  installApplicationCRD,
  loadApplicationCRD,
  applicationCRDPath,
  APPLICATION_CRD_FILE,
  CRDFileNotFoundError,
  CRDNotEstablishedError,
} from "./crd.js";
export type { InstallCRDOptions } from "./crd.js";
export {
  newDeployment,
  newService,
  deploymentDiff,
  serviceDiff,
  mergeDeployment,
  mergeService,
  deploymentNameOf,
  selectorLabels,
  applicationLabels,
  desiredContainer,
  defaultedStrategy,
} from "./desired.js";
export { computeStatus, statusEqual } from "./status.js";
export type { Observation } from "./status.js";
export {
  runApplicationController,
  createApplicationManager,
  LEADER_ELECTION_ID,
  DEFAULT_METRICS_BIND_ADDRESS,
  DEFAULT_HEALTH_PROBE_BIND_ADDRESS,
} from "./run.js";
export type { RunApplicationControllerOptions, ApplicationManager } from "./run.js";
