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
 * OnFailure: a non-zero exit; Never: not at all; init containers: on failure, unless Never;
 * sidecars: always). The
 * kubelet's back-off (kuberuntime's doBackOff over flowcontrol.Backoff with 10 s initial and
 * 300 s maximum): the first restart is immediate, then 10 s doubling up to 5 minutes — so before
 * restart number n+1 (n restarts done) the wait is 0 for n = 0, else min(10 s · 2^(n-1), 300 s).
 * While it waits the container shows waiting CrashLoopBackOff with its lastState terminated.
 *
 * Lifecycle hooks (hooks.ts): a postStart hook runs between the start and the running state
 * (launch) — the status shows the previous state meanwhile, the next container waits, and a
 * failure kills the container into PostStartHookError; a preStop hook runs first in every kill
 * (killTimeline), within the grace period.
 *
 * While running, a container's probes (probes.ts) decide `started` (startupProbe) and `ready`
 * (readinessProbe); a failed liveness or startup probe kills it ("Killing" event). Simulated
 * programs do not handle SIGTERM: a killed container stops when the grace period (the probe's
 * terminationGracePeriodSeconds, else the pod's, else 30 s; × speedFactor) is over, with exit
 * code 137 (reason Error) — unless its program ends sooner, with its own status.
 *
 * Init containers run one at a time, in order; the regular containers start once all of them
 * exited 0. A sidecar (an init container with restartPolicy Always) starts in that order too, and
 * the next init container waits only until it has started (running, and its startupProbe passed);
 * it then runs beside the containers, counts in the pod's readiness, and, once every regular
 * container of a Never/OnFailure pod is done for good, is stopped last-first within the pod's
 * grace period (137, as every simulated program). A failing init container fails the pod under
 * restartPolicy Never. Phase (the kubelet's getPhase): Pending while initialising or before any
 * container started; Succeeded / Failed once every regular container terminated for good (Failed
 * when one exited non-zero) and the sidecars stopped — the sidecars' exit codes do not count;
 * Running otherwise. Past spec.activeDeadlineSeconds (from status.startTime) the pod is Failed
 * with reason DeadlineExceeded and its running containers are killed.
 */
import type { Container, ContainerState, ContainerStatus, Pod, PodCondition, PodStatus } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { formatTime, parseTime } from "../../apimachinery/time.js";
import { FOREVER, isSidecar, type PodPrograms, type Program } from "./programs.js";
import { containerProbes, probeTimeline, unhealthyMessage, type ContainerProbes, type InvalidProbeAnnotationError } from "./probes.js";
import {
  FAILED_POST_START_HOOK,
  FAILED_PRE_STOP_HOOK,
  hookOutcome,
  killTimeline,
  POST_START_HOOK_ERROR,
  POST_START_HOOK_FAILED_MESSAGE,
  PRE_STOP_HOOK_FAILED_MESSAGE,
  type HookOutcome,
  type InvalidHookAnnotationError,
} from "./hooks.js";
import { baseStatus, containerID, CRASH_LOOP_BACK_OFF, CONTAINER_CREATING, imageID, ordered, setCondition, type Placement } from "./podstatus.js";

export const POD_INITIALIZING = "PodInitializing";
/** The kubelet's container restart back-off: initial and maximum (pkg/kubelet: backOffPeriod, MaxContainerBackOff). */
export const CONTAINER_BACKOFF_INITIAL_MS = 10_000;
export const CONTAINER_BACKOFF_MAX_MS = 300_000;
/** What a container killed with SIGKILL exits with (128 + 9), as the runtime reports it. */
export const KILLED_EXIT_CODE = 137;
/** spec.terminationGracePeriodSeconds when unset (the API's default). */
export const DEFAULT_TERMINATION_GRACE_SECONDS = 30;
/** The kubelet's status reason and message for a pod past spec.activeDeadlineSeconds (active_deadline.go). */
export const DEADLINE_EXCEEDED = "DeadlineExceeded";
export const DEADLINE_EXCEEDED_MESSAGE = "Pod was active on the node longer than the specified deadline";

type RestartPolicy = "Always" | "OnFailure" | "Never";

/** Exact start and finish times of containers, by `${containerID}/start|finish`. */
export type ContainerTimes = Map<string, number>;

export interface WorkloadEvent {
  type: "Normal" | "Warning";
  reason: string;
  message: string;
  /**
   * Recorded whether or not the step's status is written: what probes saw happened at its time
   * (Unhealthy, Killing). Other events go with the write that shows them.
   */
  always?: boolean;
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
  /** Scales grace periods (the simulator's speedFactor). */
  speedFactor: number;
  /**
   * A container of this step is in its postStart hook (or being killed after it failed): the
   * kubelet starts containers one after another, so no other container starts in this step.
   */
  startsBlocked: boolean;
}

/** What one container runs and how it is watched. */
interface ContainerSpec {
  program: Program;
  probes?: ContainerProbes;
  /** Counts as ready while running (and started); false for regular init containers. */
  readyWhenRunning: boolean;
  /** Its lifecycle hooks' outcomes (hooks.ts), if it has them. */
  postStart?: HookOutcome;
  preStop?: HookOutcome;
}

function waitingStatus(name: string, image: string, reason: string): ContainerStatus {
  return { name, image, imageID: "", ready: false, restartCount: 0, started: false, state: { waiting: { reason } } };
}

function start(ctx: Ctx, cs: ContainerStatus, restartCount: number, ready: boolean, lastState?: ContainerState, startedMs?: number): ContainerStatus {
  const id = containerID(ctx.uid, cs.name, restartCount);
  if (startedMs === undefined) {
    ctx.times.set(`${id}/start`, ctx.nowMs);
    ctx.events.push({ type: "Normal", reason: "Started", message: `Started container ${cs.name}` });
  }
  const at = startedMs ?? ctx.nowMs;
  const next: ContainerStatus = {
    name: cs.name,
    image: cs.image,
    imageID: imageID(cs.image),
    containerID: id,
    ready,
    restartCount,
    started: true,
    state: { running: { startedAt: formatTime(at) } },
  };
  if (lastState) next.lastState = lastState;
  return next;
}

/** Pushes an event the first time `key` is seen (events of what happened at its time). */
function once(ctx: Ctx, key: string, e: WorkloadEvent): void {
  if (ctx.times.has(key)) return;
  ctx.times.set(key, ctx.nowMs);
  ctx.events.push({ ...e, always: true });
}

/** The grace period (s) of a kill: the probe's own, else the pod's, else 30 s. */
function graceSeconds(ctx: Ctx, probeGraceSeconds?: number): number {
  return probeGraceSeconds ?? ctx.pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_TERMINATION_GRACE_SECONDS;
}

/**
 * Starts container number `restartCount` (its id follows from it). Without a postStart hook it
 * runs at once. With one, the kubelet's startContainer: the container is started ("Started"),
 * then the hook runs while the status still shows the previous state (the pod worker is blocked
 * in the hook, so no status is written); once it returns the container shows running (since its
 * start) and its probes begin. A failing hook records FailedPostStartHook and kills the
 * container ("Killing" FailedPostStartHook; its preStop hook runs, then the grace period), which
 * then waits in PostStartHookError (with the hook's message) to be restarted per the restart
 * policy — or stays terminated when it will not be.
 */
function launch(ctx: Ctx, cs: ContainerStatus, restartCount: number, spec: ContainerSpec, policy: RestartPolicy, lastState?: ContainerState): ContainerStatus {
  const id = containerID(ctx.uid, cs.name, restartCount);
  const startedMs = ctx.times.get(`${id}/start`);
  if (startedMs === undefined && ctx.startsBlocked) return cs;
  const hook = spec.postStart;
  const ready = spec.readyWhenRunning && !spec.probes;
  if (!hook) return running(ctx, start(ctx, cs, restartCount, ready, lastState), spec);
  const at = startedMs ?? ctx.nowMs;
  if (startedMs === undefined) {
    ctx.times.set(`${id}/start`, at);
    ctx.events.push({ type: "Normal", reason: "Started", message: `Started container ${cs.name}`, always: true });
  }
  const hookEnd = at + hook.runMs;
  if (ctx.nowMs < hookEnd) {
    ctx.dues.push(hookEnd);
    ctx.startsBlocked = true;
    return cs;
  }
  if (hook.ok) {
    ctx.times.set(`${id}/probesFrom`, hookEnd);
    return running(ctx, start(ctx, cs, restartCount, ready, lastState, at), spec);
  }
  once(ctx, `${id}/postStartFailed`, { type: "Warning", reason: FAILED_POST_START_HOOK, message: POST_START_HOOK_FAILED_MESSAGE });
  once(ctx, `${id}/postStartKilled`, { type: "Normal", reason: "Killing", message: FAILED_POST_START_HOOK });
  const kt = killTimeline(graceSeconds(ctx), spec.preStop, ctx.speedFactor);
  preStopFailure(ctx, id, hookEnd, kt.hookFailedMs);
  const programEnd = spec.program.kind === "finite" ? at + spec.program.runMs : Infinity;
  const killEnd = hookEnd + kt.killMs;
  const stopMs = Math.min(programEnd, killEnd);
  // The kubelet reports nothing until the hook and the kill are over.
  const reportMs = Math.max(stopMs, hookEnd + (kt.hookEndMs ?? 0));
  if (ctx.nowMs < reportMs) {
    ctx.dues.push(reportMs);
    ctx.startsBlocked = true;
    return cs;
  }
  const exitCode = stopMs === programEnd && spec.program.kind === "finite" ? spec.program.exitCode : KILLED_EXIT_CODE;
  ctx.times.set(`${id}/finish`, stopMs);
  const terminated = { exitCode, reason: exitCode === 0 ? "Completed" : "Error", startedAt: formatTime(at), finishedAt: formatTime(stopMs), containerID: id };
  const base: ContainerStatus = { name: cs.name, image: cs.image, imageID: imageID(cs.image), containerID: id, ready: false, restartCount, started: false };
  if (!willRestart(policy, exitCode)) return { ...base, state: { terminated } };
  ctx.dues.push(stopMs + containerBackOffMs(restartCount));
  return { ...base, state: { waiting: { reason: POST_START_HOOK_ERROR, message: hook.message } }, lastState: { terminated } };
}

/** Records FailedPreStopHook once, `failedMs` after a kill decided at `killAtMs`, when that time has come (else asks to look again then). */
function preStopFailure(ctx: Ctx, id: string, killAtMs: number, failedMs: number | undefined): void {
  if (failedMs === undefined) return;
  const at = killAtMs + failedMs;
  if (ctx.nowMs < at) {
    ctx.dues.push(at);
    return;
  }
  once(ctx, `${id}/preStopFailed`, { type: "Warning", reason: FAILED_PRE_STOP_HOOK, message: PRE_STOP_HOOK_FAILED_MESSAGE });
}

/** After a terminated state: restart now, or wait out the back-off in CrashLoopBackOff. */
function afterExit(ctx: Ctx, cs: ContainerStatus, terminated: NonNullable<ContainerState["terminated"]>, spec: ContainerSpec, policy: RestartPolicy): ContainerStatus {
  const n = cs.restartCount ?? 0;
  const id = terminated.containerID ?? containerID(ctx.uid, cs.name, n);
  const finished = ctx.times.get(`${id}/finish`) ?? parseTime(terminated.finishedAt) ?? ctx.nowMs;
  const backOff = containerBackOffMs(n);
  const due = finished + backOff;
  if (ctx.nowMs >= due) return launch(ctx, cs, n + 1, spec, policy, { terminated: deepCopy(terminated) });
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

/** The container stops at `atMs` with `exitCode` (137: killed; else its program's status). */
function terminate(ctx: Ctx, cs: ContainerStatus, atMs: number, exitCode: number): ContainerStatus {
  const id = cs.containerID ?? containerID(ctx.uid, cs.name, cs.restartCount ?? 0);
  ctx.times.set(`${id}/finish`, atMs);
  const startedAt = cs.state?.running?.startedAt ?? formatTime(ctx.times.get(`${id}/start`) ?? atMs);
  return {
    ...deepCopy(cs),
    ready: false,
    started: false,
    state: { terminated: { exitCode, reason: exitCode === 0 ? "Completed" : "Error", startedAt, finishedAt: formatTime(atMs), containerID: id } },
  };
}


/**
 * A running container at ctx.nowMs: its program ends, its probes decide `started` and `ready`, or
 * a failed liveness/startup probe kills it — SIGTERM, which simulated programs do not handle, so
 * it stops when the grace period is over with 137, unless its program ends sooner.
 */
function running(ctx: Ctx, cs: ContainerStatus, spec: ContainerSpec): ContainerStatus {
  const state = cs.state?.running;
  if (!state) return cs;
  const id = cs.containerID ?? containerID(ctx.uid, cs.name, cs.restartCount ?? 0);
  const startedMs = ctx.times.get(`${id}/start`) ?? parseTime(state.startedAt) ?? ctx.nowMs;
  const programEnd = spec.program.kind === "finite" ? startedMs + spec.program.runMs : Infinity;
  const exitCode = spec.program.kind === "finite" ? spec.program.exitCode : 0;
  if (!spec.probes) {
    if (ctx.nowMs < programEnd) {
      if (programEnd !== Infinity) ctx.dues.push(programEnd);
      return cs;
    }
    return terminate(ctx, cs, ctx.nowMs, exitCode);
  }
  const horizon = Math.min(ctx.nowMs, programEnd);
  const reportedKey = `${id}/probed`;
  const tl = probeTimeline(spec.probes, startedMs, horizon, ctx.times.get(reportedKey) ?? -Infinity, ctx.times.get(`${id}/probesFrom`) ?? startedMs);
  ctx.times.set(reportedKey, horizon);
  for (const f of tl.failures) ctx.events.push({ type: "Warning", reason: "Unhealthy", message: unhealthyMessage(f), always: true });
  let end = programEnd;
  let code = exitCode;
  let reportMs = programEnd;
  if (tl.kill) {
    const killedKey = `${id}/killed`;
    if (!ctx.times.has(killedKey)) {
      ctx.times.set(killedKey, tl.kill.atMs);
      const restart = ctx.pod.spec?.restartPolicy !== "Never" || isSidecarStatus(ctx, cs.name);
      const message = `Container ${cs.name} failed ${tl.kill.type} probe${restart ? ", will be restarted" : ""}`;
      ctx.events.push({ type: "Normal", reason: "Killing", message, always: true });
    }
    // The preStop hook runs first (hooks.ts killTimeline), and the kubelet waits for it.
    const kt = killTimeline(graceSeconds(ctx, tl.kill.gracePeriodSeconds), spec.preStop, ctx.speedFactor);
    preStopFailure(ctx, id, tl.kill.atMs, kt.hookFailedMs);
    const killEnd = tl.kill.atMs + kt.killMs;
    if (killEnd < end) {
      end = killEnd;
      code = KILLED_EXIT_CODE;
    }
    reportMs = Math.max(end, tl.kill.atMs + (kt.hookEndMs ?? 0));
  }
  if (ctx.nowMs >= reportMs) return terminate(ctx, cs, end, code);
  if (reportMs !== Infinity) ctx.dues.push(reportMs);
  if (tl.nextMs !== undefined) ctx.dues.push(tl.nextMs);
  const started = tl.startedMs !== undefined;
  const ready = started && spec.readyWhenRunning && tl.ready;
  if (cs.started === started && cs.ready === ready) return cs;
  return { ...deepCopy(cs), started, ready };
}

function isSidecarStatus(ctx: Ctx, name: string): boolean {
  return (ctx.pod.spec?.initContainers ?? []).some((c) => c.name === name && isSidecar(c));
}

/** One step of one container's machine. */
function advance(ctx: Ctx, cs: ContainerStatus, spec: ContainerSpec, policy: RestartPolicy): ContainerStatus {
  const state = cs.state ?? {};
  if (state.waiting) {
    const reason = state.waiting.reason;
    if ((reason === CRASH_LOOP_BACK_OFF || reason === POST_START_HOOK_ERROR) && cs.lastState?.terminated) return afterExit(ctx, cs, cs.lastState.terminated, spec, policy);
    return launch(ctx, cs, cs.restartCount ?? 0, spec, policy, cs.lastState);
  }
  if (state.running) return running(ctx, cs, spec);
  if (state.terminated) {
    if (!willRestart(policy, state.terminated.exitCode)) return cs;
    return afterExit(ctx, cs, state.terminated, spec, policy);
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
  const reason = inits.length > 0 ? POD_INITIALIZING : CONTAINER_CREATING;
  s.phase = "Pending";
  if (inits.length > 0) s.initContainerStatuses = inits.map((c) => waitingStatus(c.name, c.image ?? "", POD_INITIALIZING));
  s.containerStatuses = (pod.spec?.containers ?? []).map((c) => waitingStatus(c.name, c.image ?? "", reason));
  s.conditions = conditions(pod, s, p.nowMs, { started: false, initDone: inits.length === 0, incompleteInits: inits.map((c) => c.name) });
  return s;
}

function conditions(pod: Pod, s: PodStatus, nowMs: number, o: { started: boolean; initDone: boolean; incompleteInits: string[] }): PodCondition[] {
  let conds = s.conditions ?? [];
  const terminal = s.phase === "Succeeded" || s.phase === "Failed";
  conds = setCondition(conds, "PodReadyToStartContainers", o.started && !terminal ? "True" : "False", nowMs);
  conds = o.initDone
    ? setCondition(conds, "Initialized", "True", nowMs)
    : setCondition(conds, "Initialized", "False", nowMs, "ContainersNotInitialized", `containers with incomplete status: [${o.incompleteInits.join(" ")}]`);
  // Sidecars count in the pod's readiness (GenerateContainersReadyCondition), before the containers.
  const sidecarNames = new Set((pod.spec?.initContainers ?? []).filter(isSidecar).map((c) => c.name));
  const counted = [...(s.initContainerStatuses ?? []).filter((c) => sidecarNames.has(c.name)), ...(s.containerStatuses ?? [])];
  const unready = counted.filter((c) => !c.ready).map((c) => c.name);
  if (unready.length === 0 && (s.containerStatuses ?? []).length > 0 && !terminal) {
    conds = setCondition(conds, "Ready", "True", nowMs);
    conds = setCondition(conds, "ContainersReady", "True", nowMs);
  } else if (s.phase === "Succeeded") {
    conds = setCondition(conds, "Ready", "False", nowMs, "PodCompleted");
    conds = setCondition(conds, "ContainersReady", "False", nowMs, "PodCompleted");
  } else if (s.phase === "Failed" && s.reason === DEADLINE_EXCEEDED) {
    conds = setCondition(conds, "Ready", "False", nowMs, "PodFailed");
    conds = setCondition(conds, "ContainersReady", "False", nowMs, "PodFailed");
  } else {
    const msg = `containers with unready status: [${(unready.length > 0 ? unready : (pod.spec?.containers ?? []).map((c) => c.name)).join(" ")}]`;
    conds = setCondition(conds, "Ready", "False", nowMs, "ContainersNotReady", msg);
    conds = setCondition(conds, "ContainersReady", "False", nowMs, "ContainersNotReady", msg);
  }
  conds = setCondition(conds, "PodScheduled", "True", nowMs);
  return ordered(conds);
}

/** Options of a step. */
export interface StepOptions {
  /** Scales grace periods (the simulator's speedFactor; default 1). */
  speedFactor?: number;
  onInvalidProbe?: (err: InvalidProbeAnnotationError) => void;
  onInvalidHook?: (err: InvalidHookAnnotationError) => void;
}

/** The time (ms) a container stopped, from the exact times or its status. */
function finishedMs(ctx: Ctx, cs: ContainerStatus): number {
  const t = cs.state?.terminated;
  const id = t?.containerID ?? cs.containerID ?? "";
  return ctx.times.get(`${id}/finish`) ?? parseTime(t?.finishedAt) ?? ctx.nowMs;
}

/**
 * One step of a started (or about to start) workload pod at `p.nowMs`: every container that is due
 * moves on; the result's dueMs says when to look again.
 */
export function stepWorkload(pod: Pod, programs: PodPrograms, p: Placement, times: ContainerTimes, opts: StepOptions = {}): WorkloadStep {
  const ctx: Ctx = { pod, uid: pod.metadata?.uid ?? "", nowMs: p.nowMs, times, events: [], dues: [], speedFactor: opts.speedFactor ?? 1, startsBlocked: false };
  const s = baseStatus(pod, p);
  const policy = restartPolicyOf(pod);
  const initPolicy: RestartPolicy = policy === "Never" ? "Never" : "OnFailure";
  const prevInit = new Map((pod.status?.initContainerStatuses ?? []).map((c) => [c.name, c]));
  const prev = new Map((pod.status?.containerStatuses ?? []).map((c) => [c.name, c]));
  const probesOf = (c: Container) => containerProbes(pod, c, opts.onInvalidProbe);
  const hooksOf = (c: Container) => {
    const postStart = hookOutcome(pod, c, "postStart", opts.onInvalidHook);
    const preStop = hookOutcome(pod, c, "preStop", opts.onInvalidHook);
    return { ...(postStart ? { postStart } : {}), ...(preStop ? { preStop } : {}) };
  };

  // The active deadline (the kubelet's activeDeadlineHandler): counted from status.startTime.
  const deadlineSeconds = pod.spec?.activeDeadlineSeconds;
  const startTime = parseTime(s.startTime);
  const deadlineMs = deadlineSeconds !== undefined && startTime !== undefined ? startTime + deadlineSeconds * 1000 : undefined;
  if (deadlineMs !== undefined && ctx.nowMs >= deadlineMs) return deadlineExceeded(ctx, s, deadlineMs);
  if (deadlineMs !== undefined) ctx.dues.push(deadlineMs);

  let blocked = false;
  let initFailed = false;
  const incomplete: string[] = [];
  const inits = pod.spec?.initContainers ?? [];
  const containers = pod.spec?.containers ?? [];
  // Whether a container after init container i (a later init container or a regular one) ever started.
  const laterStarted = inits.map((_, i) => [...inits.slice(i + 1).map((c) => prevInit.get(c.name)), ...containers.map((c) => prev.get(c.name))].some((cs) => cs !== undefined && everStarted(cs)));
  // The regular containers finished for good before this step: the sidecars are being stopped.
  const mainFinished = policy !== "Always" && containers.length > 0 && containers.every((c) => { const cs = prev.get(c.name); return cs !== undefined && terminatedFor(cs, policy); });
  const initStatuses: ContainerStatus[] = [];
  inits.forEach((c, i) => {
    let cs = prevInit.get(c.name) ?? waitingStatus(c.name, c.image ?? "", POD_INITIALIZING);
    if (isSidecar(c)) {
      // A sidecar runs beside the pod from when it starts (restarted whatever the pod's policy);
      // the next init container waits until it has started (its startup probe passed).
      if (!blocked && !mainFinished) cs = advance(ctx, cs, { program: programs.sidecars.get(c.name) ?? FOREVER, probes: probesOf(c), readyWhenRunning: true, ...hooksOf(c) }, "Always");
      initStatuses.push(cs);
      if (!laterStarted[i] && !(cs.started === true && cs.state?.running)) {
        incomplete.push(c.name);
        blocked = true;
      }
      return;
    }
    const done = cs.state?.terminated?.exitCode === 0;
    if (!done && !blocked) cs = advance(ctx, cs, { program: programs.initContainers.get(c.name) ?? { kind: "finite", runMs: 0, exitCode: 0 }, readyWhenRunning: false }, initPolicy);
    initStatuses.push(cs);
    if (cs.state?.terminated?.exitCode === 0) return;
    incomplete.push(c.name);
    if (cs.state?.terminated && initPolicy === "Never") initFailed = true;
    blocked = true;
  });
  if (inits.length > 0) s.initContainerStatuses = initStatuses;

  const initDone = !blocked;
  s.containerStatuses = containers.map((c) => {
    const cs = prev.get(c.name) ?? waitingStatus(c.name, c.image ?? "", initDone ? CONTAINER_CREATING : POD_INITIALIZING);
    if (!initDone || initFailed) return cs;
    return advance(ctx, cs, { program: programs.containers.get(c.name) ?? FOREVER, probes: probesOf(c), readyWhenRunning: true, ...hooksOf(c) }, policy);
  });

  const mainDone = initDone && !initFailed && s.containerStatuses.length > 0 && s.containerStatuses.every((c) => terminatedFor(c, policy));
  // The regular containers are done for good: the sidecars are stopped, last one first, within
  // the pod's grace period; simulated programs ignore SIGTERM, so they are killed at its end.
  let sidecarsRunning = false;
  if (mainDone && inits.some(isSidecar)) {
    const doneMs = Math.max(...s.containerStatuses.map((c) => finishedMs(ctx, c)));
    const sidecars = inits.map((c, i) => ({ c, i })).filter(({ c }) => isSidecar(c)).reverse();
    for (const { c, i } of sidecars) {
      const cs = initStatuses[i];
      const id = cs.containerID ?? "";
      if (cs.state?.running && !times.has(`${id}/stopping`)) {
        times.set(`${id}/stopping`, doneMs);
        ctx.events.push({ type: "Normal", reason: "Killing", message: `Stopping container ${c.name}`, always: true });
      }
      if (cs.state?.terminated) continue;
      // Its preStop hook first, within the grace period (hooks.ts killTimeline).
      const kill = killTimeline(graceSeconds(ctx), hookOutcome(pod, c, "preStop", opts.onInvalidHook), ctx.speedFactor);
      preStopFailure(ctx, id, doneMs, kill.hookFailedMs);
      const stopAt = doneMs + kill.killMs;
      if (ctx.nowMs >= stopAt) initStatuses[i] = terminate(ctx, cs, stopAt, KILLED_EXIT_CODE);
      else {
        sidecarsRunning = true;
        ctx.dues.push(stopAt);
      }
    }
    // The sidecars' own steps may have asked to restart them: not any more.
    if (!sidecarsRunning) ctx.dues.length = 0;
  }

  const all = [...initStatuses, ...s.containerStatuses];
  const started = all.some(everStarted);
  if (initFailed) s.phase = "Failed";
  else if (!initDone) s.phase = "Pending";
  else if (mainDone && !sidecarsRunning) {
    s.phase = s.containerStatuses.some((c) => (c.state?.terminated?.exitCode ?? 0) !== 0) ? "Failed" : "Succeeded";
  } else s.phase = s.containerStatuses.some(everStarted) || mainDone ? "Running" : "Pending";
  s.conditions = conditions(pod, s, p.nowMs, { started, initDone, incompleteInits: incomplete });
  const dueMs = ctx.dues.length > 0 ? Math.min(...ctx.dues) : undefined;
  return { status: s, ...(dueMs !== undefined && s.phase !== "Succeeded" && s.phase !== "Failed" ? { dueMs } : {}), events: ctx.events };
}

/** The pod ran past spec.activeDeadlineSeconds: Failed, DeadlineExceeded, its containers killed. */
function deadlineExceeded(ctx: Ctx, s: PodStatus, deadlineMs: number): WorkloadStep {
  if (s.phase !== "Failed" || s.reason !== DEADLINE_EXCEEDED) {
    ctx.events.push({ type: "Warning", reason: DEADLINE_EXCEEDED, message: DEADLINE_EXCEEDED_MESSAGE });
  }
  s.phase = "Failed";
  s.reason = DEADLINE_EXCEEDED;
  s.message = DEADLINE_EXCEEDED_MESSAGE;
  const kill = (cs: ContainerStatus): ContainerStatus => (cs.state?.running ? terminate(ctx, cs, Math.max(deadlineMs, ctx.nowMs), KILLED_EXIT_CODE) : { ...cs, ready: false, started: false });
  if (s.initContainerStatuses) s.initContainerStatuses = s.initContainerStatuses.map(kill);
  s.containerStatuses = (s.containerStatuses ?? []).map(kill);
  const incompleteInits = (s.initContainerStatuses ?? []).filter((c) => c.state?.terminated?.exitCode !== 0).map((c) => c.name);
  const initDone = s.conditions?.find((c) => c.type === "Initialized")?.status === "True";
  s.conditions = conditions(ctx.pod, s, ctx.nowMs, { started: false, initDone, incompleteInits });
  return { status: s, events: ctx.events };
}
