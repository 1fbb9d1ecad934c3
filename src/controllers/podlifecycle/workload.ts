/**
 * Pods whose containers finish (programs.ts): the kubelet's container state machine, one step per
 * reconcile, decided from the pod's status (level-triggered) and the exact start/finish times the
 * simulator remembers (the status holds them only to the second).
 *
 * Per container:
 *
 *   waiting (ContainerCreating | PodInitializing) ──start──▶ running ──after runMs──▶ terminated
 *        ▲                                                                                │
 *        └──────────── restart (restartCount+1) ◀── waiting CrashLoopBackOff ◀── back-off ┘
 *
 * A terminated container is restarted when the pod's restartPolicy says so (Always: any exit;
 * OnFailure: a non-zero exit; Never: not at all; init containers: on failure, unless Never). The
 * kubelet's back-off (kuberuntime's doBackOff over flowcontrol.Backoff with 10 s initial and
 * 300 s maximum): the first restart is immediate, then 10 s doubling up to 5 minutes — so before
 * restart number n+1 (n restarts done) the wait is 0 for n = 0, else min(10 s · 2^(n-1), 300 s).
 * While it waits the container shows waiting CrashLoopBackOff with its lastState terminated.
 *
 * Init containers (sidecars, restartPolicy Always, excepted) run one at a time, in order; the
 * regular containers start once all of them exited 0. A failing init container fails the pod under
 * restartPolicy Never. Phase (the kubelet's getPhase): Pending while initialising or before any
 * container started; Succeeded / Failed once every regular container terminated for good (Failed
 * when one exited non-zero); Running otherwise.
 */
import type { ContainerState, ContainerStatus, Pod, PodCondition, PodStatus } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { formatTime, parseTime } from "../../apimachinery/time.js";
import { FOREVER, isSidecar, type PodPrograms, type Program } from "./programs.js";
import { baseStatus, containerID, CRASH_LOOP_BACK_OFF, CONTAINER_CREATING, imageID, ordered, setCondition, type Placement } from "./podstatus.js";

export const POD_INITIALIZING = "PodInitializing";
/** The kubelet's container restart back-off: initial and maximum (pkg/kubelet: backOffPeriod, MaxContainerBackOff). */
export const CONTAINER_BACKOFF_INITIAL_MS = 10_000;
export const CONTAINER_BACKOFF_MAX_MS = 300_000;

type RestartPolicy = "Always" | "OnFailure" | "Never";

/** Exact start and finish times of containers, by `${containerID}/start|finish`. */
export type ContainerTimes = Map<string, number>;

export interface WorkloadEvent {
  type: "Normal" | "Warning";
  reason: string;
  message: string;
}

export interface WorkloadStep {
  status: PodStatus;
  /** The earliest time (ms) something is due, if any. */
  dueMs?: number;
  events: WorkloadEvent[];
}

/** The wait before restart number n+1 of a container that has been restarted n times. */
export function containerBackOffMs(restartCount: number): number {
  if (restartCount <= 0) return 0;
  return Math.min(CONTAINER_BACKOFF_INITIAL_MS * 2 ** (restartCount - 1), CONTAINER_BACKOFF_MAX_MS);
}

/** A duration as Go's time.Duration prints it, for whole seconds ("10s", "1m20s", "5m0s"). */
export function goDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${s % 60}s`;
  return `${Math.floor(m / 60)}h${m % 60}m${s % 60}s`;
}

function podRef(pod: Pod): string {
  return `${pod.metadata?.name ?? ""}_${pod.metadata?.namespace ?? ""}(${pod.metadata?.uid ?? ""})`;
}

function restartPolicyOf(pod: Pod): RestartPolicy {
  const p = pod.spec?.restartPolicy;
  return p === "OnFailure" || p === "Never" ? p : "Always";
}

function willRestart(policy: RestartPolicy, exitCode: number): boolean {
  return policy === "Always" || (policy === "OnFailure" && exitCode !== 0);
}

/** True when the pod's containers have not started yet (only initial waiting states). */
export function workloadNotStarted(pod: Pod): boolean {
  const all = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  if (all.length === 0) return true;
  return all.every((s) => {
    const r = s.state?.waiting?.reason;
    return (r === CONTAINER_CREATING || r === POD_INITIALIZING) && (s.restartCount ?? 0) === 0 && !s.lastState?.terminated;
  });
}

interface Ctx {
  pod: Pod;
  uid: string;
  nowMs: number;
  times: ContainerTimes;
  events: WorkloadEvent[];
  dues: number[];
}

function waitingStatus(name: string, image: string, reason: string): ContainerStatus {
  return { name, image, imageID: "", ready: false, restartCount: 0, started: false, state: { waiting: { reason } } };
}

function start(ctx: Ctx, cs: ContainerStatus, restartCount: number, ready: boolean, lastState?: ContainerState): ContainerStatus {
  const id = containerID(ctx.uid, cs.name, restartCount);
  ctx.times.set(`${id}/start`, ctx.nowMs);
  ctx.events.push({ type: "Normal", reason: "Started", message: `Started container ${cs.name}` });
  const next: ContainerStatus = {
    name: cs.name,
    image: cs.image,
    imageID: imageID(cs.image),
    containerID: id,
    ready,
    restartCount,
    started: true,
    state: { running: { startedAt: formatTime(ctx.nowMs) } },
  };
  if (lastState) next.lastState = lastState;
  return next;
}

/** After a terminated state: restart now, or wait out the back-off in CrashLoopBackOff. */
function afterExit(ctx: Ctx, cs: ContainerStatus, terminated: NonNullable<ContainerState["terminated"]>, ready: boolean): ContainerStatus {
  const n = cs.restartCount ?? 0;
  const id = terminated.containerID ?? containerID(ctx.uid, cs.name, n);
  const finished = ctx.times.get(`${id}/finish`) ?? parseTime(terminated.finishedAt) ?? ctx.nowMs;
  const backOff = containerBackOffMs(n);
  const due = finished + backOff;
  if (ctx.nowMs >= due) return start(ctx, cs, n + 1, ready, { terminated: deepCopy(terminated) });
  ctx.dues.push(due);
  if (cs.state?.waiting?.reason === CRASH_LOOP_BACK_OFF) return cs;
  ctx.events.push({ type: "Warning", reason: "BackOff", message: `Back-off restarting failed container ${cs.name} in pod ${podRef(ctx.pod)}` });
  return {
    name: cs.name,
    image: cs.image,
    imageID: cs.imageID,
    containerID: id,
    ready: false,
    restartCount: n,
    started: false,
    state: { waiting: { reason: CRASH_LOOP_BACK_OFF, message: `back-off ${goDuration(backOff)} restarting failed container=${cs.name} pod=${podRef(ctx.pod)}` } },
    lastState: { terminated: deepCopy(terminated) },
  };
}

/** One step of one container's machine. `ready`: whether it counts as ready while running. */
function advance(ctx: Ctx, cs: ContainerStatus, program: Program, policy: RestartPolicy, ready: boolean): ContainerStatus {
  const state = cs.state ?? {};
  if (state.waiting) {
    if (state.waiting.reason === CRASH_LOOP_BACK_OFF && cs.lastState?.terminated) return afterExit(ctx, cs, cs.lastState.terminated, ready);
    return start(ctx, cs, cs.restartCount ?? 0, ready, cs.lastState);
  }
  if (state.running) {
    if (program.kind === "forever") return cs;
    const id = cs.containerID ?? containerID(ctx.uid, cs.name, cs.restartCount ?? 0);
    const started = ctx.times.get(`${id}/start`) ?? parseTime(state.running.startedAt) ?? ctx.nowMs;
    const due = started + program.runMs;
    if (ctx.nowMs < due) {
      ctx.dues.push(due);
      return cs;
    }
    ctx.times.set(`${id}/finish`, ctx.nowMs);
    const next: ContainerStatus = {
      ...deepCopy(cs),
      ready: false,
      started: false,
      state: {
        terminated: {
          exitCode: program.exitCode,
          reason: program.exitCode === 0 ? "Completed" : "Error",
          startedAt: state.running.startedAt ?? formatTime(started),
          finishedAt: formatTime(ctx.nowMs),
          containerID: id,
        },
      },
    };
    return next;
  }
  if (state.terminated) {
    if (!willRestart(policy, state.terminated.exitCode)) return cs;
    return afterExit(ctx, cs, state.terminated, ready);
  }
  return cs;
}

function terminatedFor(cs: ContainerStatus, policy: RestartPolicy): boolean {
  const t = cs.state?.terminated;
  return t !== undefined && !willRestart(policy, t.exitCode);
}

function everStarted(cs: ContainerStatus): boolean {
  return cs.state?.running !== undefined || cs.state?.terminated !== undefined || cs.lastState?.terminated !== undefined;
}

/** The initial status, once the pod's sandbox is being created: every container waiting. */
export function workloadCreatingStatus(pod: Pod, p: Placement): PodStatus {
  const s = baseStatus(pod, p);
  const inits = pod.spec?.initContainers ?? [];
  const reason = inits.some((c) => !isSidecar(c)) ? POD_INITIALIZING : CONTAINER_CREATING;
  s.phase = "Pending";
  if (inits.length > 0) s.initContainerStatuses = inits.map((c) => waitingStatus(c.name, c.image ?? "", POD_INITIALIZING));
  s.containerStatuses = (pod.spec?.containers ?? []).map((c) => waitingStatus(c.name, c.image ?? "", reason));
  s.conditions = conditions(pod, s, p.nowMs, { started: false, initDone: false, incompleteInits: inits.filter((c) => !isSidecar(c)).map((c) => c.name) });
  return s;
}

function conditions(pod: Pod, s: PodStatus, nowMs: number, o: { started: boolean; initDone: boolean; incompleteInits: string[] }): PodCondition[] {
  let conds = s.conditions ?? [];
  const terminal = s.phase === "Succeeded" || s.phase === "Failed";
  conds = setCondition(conds, "PodReadyToStartContainers", o.started && !terminal ? "True" : "False", nowMs);
  conds = o.initDone
    ? setCondition(conds, "Initialized", "True", nowMs)
    : setCondition(conds, "Initialized", "False", nowMs, "ContainersNotInitialized", `containers with incomplete status: [${o.incompleteInits.join(" ")}]`);
  const unready = (s.containerStatuses ?? []).filter((c) => !c.ready).map((c) => c.name);
  if (unready.length === 0 && (s.containerStatuses ?? []).length > 0 && !terminal) {
    conds = setCondition(conds, "Ready", "True", nowMs);
    conds = setCondition(conds, "ContainersReady", "True", nowMs);
  } else if (s.phase === "Succeeded") {
    conds = setCondition(conds, "Ready", "False", nowMs, "PodCompleted");
    conds = setCondition(conds, "ContainersReady", "False", nowMs, "PodCompleted");
  } else {
    const msg = `containers with unready status: [${(unready.length > 0 ? unready : (pod.spec?.containers ?? []).map((c) => c.name)).join(" ")}]`;
    conds = setCondition(conds, "Ready", "False", nowMs, "ContainersNotReady", msg);
    conds = setCondition(conds, "ContainersReady", "False", nowMs, "ContainersNotReady", msg);
  }
  conds = setCondition(conds, "PodScheduled", "True", nowMs);
  return ordered(conds);
}

/**
 * One step of a started (or about to start) workload pod at `p.nowMs`: every container that is due
 * moves on; the result's dueMs says when to look again.
 */
export function stepWorkload(pod: Pod, programs: PodPrograms, p: Placement, times: ContainerTimes): WorkloadStep {
  const ctx: Ctx = { pod, uid: pod.metadata?.uid ?? "", nowMs: p.nowMs, times, events: [], dues: [] };
  const s = baseStatus(pod, p);
  const policy = restartPolicyOf(pod);
  const initPolicy: RestartPolicy = policy === "Never" ? "Never" : "OnFailure";
  const prevInit = new Map((pod.status?.initContainerStatuses ?? []).map((c) => [c.name, c]));
  const prev = new Map((pod.status?.containerStatuses ?? []).map((c) => [c.name, c]));

  let blocked = false;
  let initFailed = false;
  const incomplete: string[] = [];
  const inits = pod.spec?.initContainers ?? [];
  const initStatuses: ContainerStatus[] = [];
  for (const c of inits) {
    let cs = prevInit.get(c.name) ?? waitingStatus(c.name, c.image ?? "", POD_INITIALIZING);
    if (isSidecar(c)) {
      // Sidecars run beside the pod from when they start; they are not waited for here.
      if (!blocked) cs = advance(ctx, cs, FOREVER, "Always", true);
      initStatuses.push(cs);
      continue;
    }
    const done = cs.state?.terminated?.exitCode === 0;
    if (!done && !blocked) cs = advance(ctx, cs, programs.initContainers.get(c.name) ?? { kind: "finite", runMs: 0, exitCode: 0 }, initPolicy, false);
    initStatuses.push(cs);
    if (cs.state?.terminated?.exitCode === 0) continue;
    incomplete.push(c.name);
    if (cs.state?.terminated && initPolicy === "Never") initFailed = true;
    blocked = true;
  }
  if (inits.length > 0) s.initContainerStatuses = initStatuses;

  const initDone = !blocked;
  const containers = pod.spec?.containers ?? [];
  s.containerStatuses = containers.map((c) => {
    const cs = prev.get(c.name) ?? waitingStatus(c.name, c.image ?? "", initDone ? CONTAINER_CREATING : POD_INITIALIZING);
    if (!initDone || initFailed) return cs;
    return advance(ctx, cs, programs.containers.get(c.name) ?? FOREVER, policy, true);
  });

  const all = [...initStatuses, ...s.containerStatuses];
  const started = all.some(everStarted);
  if (initFailed) s.phase = "Failed";
  else if (!initDone) s.phase = "Pending";
  else if (s.containerStatuses.length > 0 && s.containerStatuses.every((c) => terminatedFor(c, policy))) {
    s.phase = s.containerStatuses.some((c) => (c.state?.terminated?.exitCode ?? 0) !== 0) ? "Failed" : "Succeeded";
  } else s.phase = s.containerStatuses.some(everStarted) ? "Running" : "Pending";
  s.conditions = conditions(pod, s, p.nowMs, { started, initDone, incompleteInits: incomplete });
  const dueMs = ctx.dues.length > 0 ? Math.min(...ctx.dues) : undefined;
  return { status: s, ...(dueMs !== undefined && s.phase !== "Succeeded" && s.phase !== "Failed" ? { dueMs } : {}), events: ctx.events };
}
