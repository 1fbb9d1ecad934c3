/** The simulated kubelet and scheduler (kwok-style) for clusters without real nodes. */
export { PodLifecycleSimulator, DEFAULT_DELAYS, DEFAULT_HEARTBEAT_INTERVAL_MS, DEFAULT_SPEED_FACTOR } from "./simulator.js";
export type { PodLifecycleSimulatorOptions, PodLifecycleDelays, PodBinder } from "./simulator.js";
export { detectFault, parseFault, faultFromImage, FAULT_ANNOTATION, InvalidFaultError } from "./faults.js";
export type { Fault } from "./faults.js";
export {
  buildNode,
  buildLease,
  nodeStatus,
  isSimulatedNode,
  heartbeatStopped,
  SIMULATED_ANNOTATION,
  HEARTBEAT_ANNOTATION,
  HEARTBEAT_STOPPED,
  NODE_LEASE_NAMESPACE,
  DEFAULT_NODE_CAPACITY,
  DEFAULT_NODE_PREFIX,
  KUBELET_VERSION,
} from "./nodes.js";
export type { NodeCapacity } from "./nodes.js";
export { pickNode, podRequests, toleratesTaint } from "./scheduler.js";
export type { NodeUsage, ScheduleResult, Resources } from "./scheduler.js";
export { observeStage, assignedNode } from "./podstatus.js";
export type { Stage } from "./podstatus.js";
export { apiBinder } from "./binder.js";
export { programOf, podPrograms, annotationProgram, EXIT_CODE_ANNOTATION, RUN_SECONDS_ANNOTATION, InvalidProgramAnnotationError } from "./programs.js";
export type { Program, PodPrograms } from "./programs.js";
export { containerBackOffMs, CONTAINER_BACKOFF_INITIAL_MS, CONTAINER_BACKOFF_MAX_MS } from "./workload.js";
export { simulatedContainerLog } from "./logs.js";
export type { SimulatedLogLine } from "./logs.js";
export { interpretScript, containerScript } from "./programs.js";
export type { ScriptContext, OutputLine } from "./programs.js";
export {
  simulatedPodUsage,
  simulatedResourceMetrics,
  parseContainerUsage,
  CPU_USAGE_ANNOTATION,
  MEMORY_USAGE_ANNOTATION,
  CONTAINER_USAGE_ANNOTATION_PREFIX,
  DEFAULT_CPU_USAGE,
  DEFAULT_MEMORY_USAGE,
  DEFAULT_METRICS_WINDOW_MS,
} from "./usage.js";
export type { SimulatedContainerUsage } from "./usage.js";
export { PROBE_ANNOTATION_PREFIX, PROBE_DEFAULTS, InvalidProbeAnnotationError } from "./probes.js";
export { HOOK_ANNOTATION_PREFIX, InvalidHookAnnotationError } from "./hooks.js";
