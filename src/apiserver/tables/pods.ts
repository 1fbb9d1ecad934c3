/**
 * Pods: NAME READY STATUS RESTARTS AGE; wide IP NODE NOMINATED NODE READINESS GATES.
 *
 * STATUS is kubectl's aggregate reason: the phase (or status.reason), overridden by init
 * container progress ("Init:1/2", "Init:CrashLoopBackOff", "Init:ExitCode:1"), then by
 * container states walked last to first (waiting reason such as ContainerCreating or
 * CrashLoopBackOff, terminated reason such as Completed or Error, "ExitCode:N"/"Signal:N"),
 * "Running"/"NotReady" when a completed container sits beside a running one,
 * "SchedulingGated", and "Terminating" (or "Unknown" for NodeLost) once deleted.
 * RESTARTS counts container restarts with the age of the last one: "3 (5m ago)".
 */
import type { Container, ContainerStatus, Pod, PodCondition } from "../../apimachinery/api/core/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { CORE, ageColumn, col, colText, nameColumn } from "./columns.js";
import { translateTimestampSince } from "./duration.js";
import type { PrintContext, PrintedRow, Printer, TableRowCondition } from "./types.js";

/** The reason the node lifecycle controller sets on pods of an unreachable node. */
const NODE_UNREACHABLE_POD_REASON = "NodeLost";

export const podSucceededConditions: TableRowCondition[] = [
  { type: "Completed", status: "True", reason: "Succeeded", message: "The pod has completed successfully." },
];
export const podFailedConditions: TableRowCondition[] = [
  { type: "Completed", status: "True", reason: "Failed", message: "The pod failed." },
];

function isRestartableInitContainer(c: Container | undefined): boolean {
  return c?.restartPolicy === "Always";
}

function hasPodReadyCondition(conditions: PodCondition[] | undefined): boolean {
  return (conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
}

function isPodInitializedConditionTrue(conditions: PodCondition[] | undefined): boolean {
  const c = (conditions ?? []).find((x) => x.type === "Initialized");
  return c?.status === "True";
}

function isTerminalPhase(phase: string | undefined): boolean {
  return phase === "Succeeded" || phase === "Failed";
}

/** The later of two RFC 3339 times (absent = the zero time). */
function later(current: number, finishedAt: string | undefined): number {
  if (!finishedAt) return current;
  const t = Date.parse(finishedAt);
  return Number.isNaN(t) || t <= current ? current : t;
}

function lastTerminatedAt(s: ContainerStatus): string | undefined {
  return s.lastState?.terminated?.finishedAt;
}

export function printPod(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const pod = obj as unknown as Pod;
  const spec = pod.spec;
  const status = pod.status ?? {};
  let restarts = 0;
  let restartableInitContainerRestarts = 0;
  let totalContainers = spec?.containers?.length ?? 0;
  let readyContainers = 0;
  let lastRestartDate = 0;
  let lastRestartableInitContainerRestartDate = 0;

  const podPhase = status.phase ?? "";
  let reason = status.reason ? status.reason : podPhase;

  for (const c of status.conditions ?? []) {
    if (c.type === "PodScheduled" && c.reason === "SchedulingGated") reason = "SchedulingGated";
  }

  let conditions: TableRowCondition[] | undefined;
  if (podPhase === "Succeeded") conditions = podSucceededConditions;
  else if (podPhase === "Failed") conditions = podFailedConditions;

  const initContainers = new Map<string, Container>();
  for (const c of spec?.initContainers ?? []) {
    initContainers.set(c.name, c);
    if (isRestartableInitContainer(c)) totalContainers++;
  }

  let initializing = false;
  const initStatuses = status.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const container = initStatuses[i]!;
    const restartable = isRestartableInitContainer(initContainers.get(container.name));
    restarts += container.restartCount ?? 0;
    lastRestartDate = later(lastRestartDate, lastTerminatedAt(container));
    if (restartable) {
      restartableInitContainerRestarts += container.restartCount ?? 0;
      lastRestartableInitContainerRestartDate = later(lastRestartableInitContainerRestartDate, lastTerminatedAt(container));
    }
    const terminated = container.state?.terminated;
    const waiting = container.state?.waiting;
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (restartable && container.started === true) {
      if (container.ready) readyContainers++;
      continue;
    }
    if (terminated) {
      // Initialization failed.
      if (!terminated.reason) {
        reason = terminated.signal ? `Init:Signal:${terminated.signal}` : `Init:ExitCode:${terminated.exitCode ?? 0}`;
      } else {
        reason = `Init:${terminated.reason}`;
      }
    } else if (waiting?.reason && waiting.reason !== "PodInitializing") {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${spec?.initContainers?.length ?? 0}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || isPodInitializedConditionTrue(status.conditions)) {
    restarts = restartableInitContainerRestarts;
    lastRestartDate = lastRestartableInitContainerRestartDate;
    let hasRunning = false;
    const statuses = status.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const container = statuses[i]!;
      restarts += container.restartCount ?? 0;
      lastRestartDate = later(lastRestartDate, lastTerminatedAt(container));
      const waiting = container.state?.waiting;
      const terminated = container.state?.terminated;
      if (waiting?.reason) {
        reason = waiting.reason;
      } else if (terminated?.reason) {
        reason = terminated.reason;
      } else if (terminated) {
        reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode ?? 0}`;
      } else if (container.ready && container.state?.running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    // A completed container beside a running one: the pod is still running.
    if (reason === "Completed" && hasRunning) reason = hasPodReadyCondition(status.conditions) ? "Running" : "NotReady";
  }

  if (pod.metadata?.deletionTimestamp && status.reason === NODE_UNREACHABLE_POD_REASON) {
    reason = "Unknown";
  } else if (pod.metadata?.deletionTimestamp && !isTerminalPhase(podPhase)) {
    reason = "Terminating";
  }

  let restartsCell = String(restarts);
  if (restarts !== 0 && lastRestartDate !== 0) {
    restartsCell = `${restarts} (${translateTimestampSince(new Date(lastRestartDate).toISOString(), ctx.now)} ago)`;
  }

  const cells: unknown[] = [
    pod.metadata?.name ?? "",
    `${readyContainers}/${totalContainers}`,
    reason,
    restartsCell,
    translateTimestampSince(pod.metadata?.creationTimestamp, ctx.now),
  ];

  const podIP = status.podIPs?.[0]?.ip || status.podIP || "<none>";
  const nodeName = spec?.nodeName || "<none>";
  const nominatedNodeName = status.nominatedNodeName || "<none>";
  let readinessGates = "<none>";
  const gates = spec?.readinessGates ?? [];
  if (gates.length > 0) {
    let trueConditions = 0;
    for (const gate of gates) {
      const c = (status.conditions ?? []).find((x) => x.type === gate.conditionType);
      if (c?.status === "True") trueConditions++;
    }
    readinessGates = `${trueConditions}/${gates.length}`;
  }
  cells.push(podIP, nodeName, nominatedNodeName, readinessGates);
  return conditions ? { cells, conditions } : { cells };
}

export const podPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    colText("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
    colText("Status", "string", "The aggregate status of the containers in this pod."),
    colText("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
    ageColumn(),
    col("IP", "string", `${CORE}.PodStatus`, "podIP", 1),
    col("Node", "string", `${CORE}.PodSpec`, "nodeName", 1),
    col("Nominated Node", "string", `${CORE}.PodStatus`, "nominatedNodeName", 1),
    col("Readiness Gates", "string", `${CORE}.PodSpec`, "readinessGates", 1),
  ],
  print: printPod,
});
