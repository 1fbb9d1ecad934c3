/**
 * Pod status as a kubelet writes it, stage by stage, and the stage a pod is in as read back from
 * its status (so the simulator is level-triggered: it decides from what the API shows, never from
 * a private record of what it did).
 *
 * Stages (the state machine the simulator drives):
 *
 *   Unscheduled ──bind──▶ Scheduled ──▶ Creating ──▶ Ready                      (no fault)
 *                                          │       └──▶ RunningNotReady            (never-ready)
 *                                          │              │ crash
 *                                          │              ▼
 *                                          │         CrashBackOff ──restart──▶ RunningNotReady …  (crash-loop)
 *                                          └──▶ Ready ──after s──▶ Terminal (phase Failed)       (fail-after)
 *
 * Terminal (Succeeded/Failed) is final. A pod with a deletionTimestamp leaves the machine: it is
 * stopped after its grace period and deleted.
 */
import { createHash } from "node:crypto";
import type { Container, ContainerStatus, Pod, PodCondition, PodStatus } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { formatTime } from "../../apimachinery/time.js";

export type Stage = "Unscheduled" | "Scheduled" | "Creating" | "RunningNotReady" | "Ready" | "CrashBackOff" | "Terminal";

export const CONTAINER_CREATING = "ContainerCreating";
export const CRASH_LOOP_BACK_OFF = "CrashLoopBackOff";

/** The node a pod was placed on: spec.nodeName, or (status placement) a PodScheduled nominatedNodeName. */
export function assignedNode(pod: Pod): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const scheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled")?.status === "True";
  return scheduled && pod.status?.nominatedNodeName ? pod.status.nominatedNodeName : undefined;
}

/** The stage the pod's status shows. */
export function observeStage(pod: Pod): Stage {
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed") return "Terminal";
  if (!assignedNode(pod)) return "Unscheduled";
  const statuses = pod.status?.containerStatuses ?? [];
  const containers = pod.spec?.containers ?? [];
  if (statuses.length === 0 || statuses.length !== containers.length) return "Scheduled";
  if (statuses.some((s) => s.state?.waiting?.reason === CRASH_LOOP_BACK_OFF)) return "CrashBackOff";
  if (statuses.some((s) => s.state?.waiting?.reason === CONTAINER_CREATING)) return "Creating";
  if (phase === "Running" && statuses.every((s) => s.state?.running)) {
    const ready = pod.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
    return ready && statuses.every((s) => s.ready) ? "Ready" : "RunningNotReady";
  }
  return "Scheduled";
}

function sha256(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}

/** A pullable-looking image ID: the fully qualified image with a digest derived from its name. */
export function imageID(image: string): string {
  const name = image.split("@")[0];
  const repo = name.replace(/:[^/]*$/, "");
  const first = repo.split("/")[0];
  const hasRegistry = repo.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost");
  const qualified = hasRegistry ? repo : repo.includes("/") ? `docker.io/${repo}` : `docker.io/library/${repo}`;
  return `${qualified}@sha256:${sha256(image)}`;
}

export function containerID(podUID: string, name: string, restartCount: number): string {
  return `containerd://${sha256(`${podUID}/${name}/${restartCount}`)}`;
}

/** Sets a condition, keeping its lastTransitionTime when the status did not change. */
export function setCondition(conds: PodCondition[], type: string, status: string, nowMs: number, reason?: string, message?: string): PodCondition[] {
  const prev = conds.find((c) => c.type === type);
  const since = prev && prev.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : formatTime(nowMs);
  const next: PodCondition = { type, status, lastTransitionTime: since };
  if (reason) next.reason = reason;
  if (message) next.message = message;
  return [...conds.filter((c) => c.type !== type), next];
}

const conditionOrder = ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"];

export function ordered(conds: PodCondition[]): PodCondition[] {
  const rank = (t: string) => {
    const i = conditionOrder.indexOf(t);
    return i < 0 ? conditionOrder.length : i;
  };
  return [...conds].sort((a, b) => rank(a.type) - rank(b.type));
}

export function notReadyMessage(containers: readonly Container[]): string {
  return `containers with unready status: [${containers.map((c) => c.name).join(" ")}]`;
}

export interface Placement {
  hostIP: string;
  podIP?: string;
  nowMs: number;
}

export function baseStatus(pod: Pod, p: Placement): PodStatus {
  const prev = pod.status ?? {};
  const s: PodStatus = deepCopy(prev);
  s.hostIP = p.hostIP;
  s.hostIPs = [{ ip: p.hostIP }];
  s.startTime = prev.startTime ?? formatTime(p.nowMs);
  if (p.podIP) {
    s.podIP = p.podIP;
    s.podIPs = [{ ip: p.podIP }];
  }
  return s;
}

function initStatuses(pod: Pod, nowMs: number): ContainerStatus[] | undefined {
  const inits = pod.spec?.initContainers ?? [];
  if (inits.length === 0) return undefined;
  const prev = pod.status?.initContainerStatuses ?? [];
  return inits.map((c) => {
    const old = prev.find((s) => s.name === c.name);
    const t = old?.state?.terminated?.finishedAt ?? formatTime(nowMs);
    return {
      name: c.name,
      image: c.image ?? "",
      imageID: imageID(c.image ?? ""),
      containerID: containerID(pod.metadata?.uid ?? "", c.name, 0),
      ready: true,
      restartCount: 0,
      started: false,
      state: { terminated: { exitCode: 0, reason: "Completed", startedAt: t, finishedAt: t, containerID: containerID(pod.metadata?.uid ?? "", c.name, 0) } },
    };
  });
}

/** Pending, containers waiting in ContainerCreating, PodScheduled and Initialized True. */
export function containerCreatingStatus(pod: Pod, p: Placement): PodStatus {
  const s = baseStatus(pod, p);
  const containers = pod.spec?.containers ?? [];
  s.phase = "Pending";
  let conds = s.conditions ?? [];
  conds = setCondition(conds, "PodReadyToStartContainers", "False", p.nowMs);
  conds = setCondition(conds, "Initialized", "True", p.nowMs);
  conds = setCondition(conds, "Ready", "False", p.nowMs, "ContainersNotReady", notReadyMessage(containers));
  conds = setCondition(conds, "ContainersReady", "False", p.nowMs, "ContainersNotReady", notReadyMessage(containers));
  conds = setCondition(conds, "PodScheduled", "True", p.nowMs);
  s.conditions = ordered(conds);
  const inits = initStatuses(pod, p.nowMs);
  if (inits) s.initContainerStatuses = inits;
  s.containerStatuses = containers.map((c) => ({
    name: c.name,
    image: c.image ?? "",
    imageID: "",
    ready: false,
    restartCount: 0,
    started: false,
    state: { waiting: { reason: CONTAINER_CREATING } },
  }));
  return s;
}

/** Running, every container running (started); ready when `ready`. Restart counts are kept. */
export function runningStatus(pod: Pod, p: Placement & { ready: boolean }): PodStatus {
  const s = baseStatus(pod, p);
  const containers = pod.spec?.containers ?? [];
  const prev = pod.status?.containerStatuses ?? [];
  const uid = pod.metadata?.uid ?? "";
  s.phase = "Running";
  let conds = s.conditions ?? [];
  conds = setCondition(conds, "PodReadyToStartContainers", "True", p.nowMs);
  conds = setCondition(conds, "Initialized", "True", p.nowMs);
  if (p.ready) {
    conds = setCondition(conds, "Ready", "True", p.nowMs);
    conds = setCondition(conds, "ContainersReady", "True", p.nowMs);
  } else {
    conds = setCondition(conds, "Ready", "False", p.nowMs, "ContainersNotReady", notReadyMessage(containers));
    conds = setCondition(conds, "ContainersReady", "False", p.nowMs, "ContainersNotReady", notReadyMessage(containers));
  }
  conds = setCondition(conds, "PodScheduled", "True", p.nowMs);
  s.conditions = ordered(conds);
  const inits = initStatuses(pod, p.nowMs);
  if (inits) s.initContainerStatuses = inits;
  s.containerStatuses = containers.map((c) => {
    const old = prev.find((x) => x.name === c.name);
    const restarts = old?.restartCount ?? 0;
    const startedAt = old?.state?.running?.startedAt ?? formatTime(p.nowMs);
    const cs: ContainerStatus = {
      name: c.name,
      image: c.image ?? "",
      imageID: imageID(c.image ?? ""),
      containerID: containerID(uid, c.name, restarts),
      ready: p.ready,
      restartCount: restarts,
      started: true,
      state: { running: { startedAt } },
    };
    if (old?.lastState?.terminated) cs.lastState = deepCopy(old.lastState);
    return cs;
  });
  return s;
}

/**
 * The containers exited with an error and wait to be restarted: CrashLoopBackOff, restartCount
 * one higher, lastState terminated (exit code 1), not ready. The phase stays Running.
 */
export function crashLoopStatus(pod: Pod, p: Placement & { backOffMs: number }): PodStatus {
  const s = baseStatus(pod, p);
  const containers = pod.spec?.containers ?? [];
  const prev = pod.status?.containerStatuses ?? [];
  const uid = pod.metadata?.uid ?? "";
  const now = formatTime(p.nowMs);
  s.phase = "Running";
  let conds = s.conditions ?? [];
  conds = setCondition(conds, "PodReadyToStartContainers", "True", p.nowMs);
  conds = setCondition(conds, "Initialized", "True", p.nowMs);
  conds = setCondition(conds, "Ready", "False", p.nowMs, "ContainersNotReady", notReadyMessage(containers));
  conds = setCondition(conds, "ContainersReady", "False", p.nowMs, "ContainersNotReady", notReadyMessage(containers));
  conds = setCondition(conds, "PodScheduled", "True", p.nowMs);
  s.conditions = ordered(conds);
  s.containerStatuses = containers.map((c) => {
    const old = prev.find((x) => x.name === c.name);
    const restarts = old?.restartCount ?? 0;
    const startedAt = old?.state?.running?.startedAt ?? now;
    const backOff = `${Math.round(p.backOffMs / 1000)}s`;
    return {
      name: c.name,
      image: c.image ?? "",
      imageID: imageID(c.image ?? ""),
      containerID: containerID(uid, c.name, restarts),
      ready: false,
      restartCount: restarts + 1,
      started: false,
      state: {
        waiting: {
          reason: CRASH_LOOP_BACK_OFF,
          message: `back-off ${backOff} restarting failed container=${c.name} pod=${pod.metadata?.name ?? ""}_${pod.metadata?.namespace ?? ""}(${uid})`,
        },
      },
      lastState: { terminated: { exitCode: 1, reason: "Error", startedAt, finishedAt: now, containerID: containerID(uid, c.name, restarts) } },
    };
  });
  return s;
}

/** The pod failed: phase Failed, containers terminated with exit code 1, not ready. */
export function failedStatus(pod: Pod, p: Placement): PodStatus {
  const s = baseStatus(pod, p);
  const containers = pod.spec?.containers ?? [];
  const prev = pod.status?.containerStatuses ?? [];
  const uid = pod.metadata?.uid ?? "";
  const now = formatTime(p.nowMs);
  s.phase = "Failed";
  let conds = s.conditions ?? [];
  conds = setCondition(conds, "PodReadyToStartContainers", "False", p.nowMs);
  conds = setCondition(conds, "Ready", "False", p.nowMs, "PodFailed");
  conds = setCondition(conds, "ContainersReady", "False", p.nowMs, "PodFailed");
  s.conditions = ordered(conds);
  s.containerStatuses = containers.map((c) => {
    const old = prev.find((x) => x.name === c.name);
    const restarts = old?.restartCount ?? 0;
    return {
      name: c.name,
      image: c.image ?? "",
      imageID: imageID(c.image ?? ""),
      containerID: containerID(uid, c.name, restarts),
      ready: false,
      restartCount: restarts,
      started: false,
      state: {
        terminated: { exitCode: 1, reason: "Error", startedAt: old?.state?.running?.startedAt ?? now, finishedAt: now, containerID: containerID(uid, c.name, restarts) },
      },
    };
  });
  return s;
}

/**
 * The status the kubelet writes when it has stopped a deleted pod's containers (terminal phase on
 * deletion, as kubelets do since 1.27): containers still running are terminated with 137 (killed
 * at the end of the grace period), the phase is Succeeded when every container exited 0, else
 * Failed. Conditions the pod carries (e.g. DisruptionTarget) stay.
 */
export function killedStatus(pod: Pod, nowMs: number): PodStatus {
  const s: PodStatus = deepCopy(pod.status ?? {});
  const now = formatTime(nowMs);
  const uid = pod.metadata?.uid ?? "";
  const prev = s.containerStatuses ?? [];
  s.containerStatuses = (pod.spec?.containers ?? []).map((c) => {
    const old = prev.find((x) => x.name === c.name);
    const restarts = old?.restartCount ?? 0;
    if (old?.state?.terminated) return { ...old, ready: false, started: false };
    return {
      name: c.name,
      image: c.image ?? "",
      imageID: old?.imageID ?? imageID(c.image ?? ""),
      containerID: old?.containerID ?? containerID(uid, c.name, restarts),
      ready: false,
      restartCount: restarts,
      started: false,
      state: { terminated: { exitCode: 137, reason: "Error", startedAt: old?.state?.running?.startedAt ?? now, finishedAt: now, containerID: old?.containerID ?? containerID(uid, c.name, restarts) } },
    };
  });
  const succeeded = s.containerStatuses.length > 0 && s.containerStatuses.every((c) => c.state?.terminated?.exitCode === 0);
  s.phase = succeeded ? "Succeeded" : "Failed";
  const reason = succeeded ? "PodCompleted" : "PodFailed";
  let conds = s.conditions ?? [];
  conds = setCondition(conds, "PodReadyToStartContainers", "False", nowMs);
  conds = setCondition(conds, "Ready", "False", nowMs, reason);
  conds = setCondition(conds, "ContainersReady", "False", nowMs, reason);
  s.conditions = ordered(conds);
  return s;
}

/** The FailedScheduling condition (PodScheduled False, reason Unschedulable). */
export function unschedulableStatus(pod: Pod, message: string, nowMs: number): PodStatus {
  const s: PodStatus = deepCopy(pod.status ?? {});
  s.phase ??= "Pending";
  s.conditions = ordered(setCondition(s.conditions ?? [], "PodScheduled", "False", nowMs, "Unschedulable", message));
  return s;
}

/** Status placement: the pod is on `node` though spec.nodeName could not be set. */
export function placedStatus(pod: Pod, node: string, nowMs: number): PodStatus {
  const s: PodStatus = deepCopy(pod.status ?? {});
  s.phase ??= "Pending";
  s.nominatedNodeName = node;
  s.conditions = ordered(setCondition(s.conditions ?? [], "PodScheduled", "True", nowMs));
  return s;
}

/** When the Ready condition last turned True (ms), if it is True. */
export function readySince(pod: Pod): number | undefined {
  const c = pod.status?.conditions?.find((x) => x.type === "Ready");
  if (c?.status !== "True" || !c.lastTransitionTime) return undefined;
  const t = Date.parse(c.lastTransitionTime);
  return Number.isNaN(t) ? undefined : t;
}
