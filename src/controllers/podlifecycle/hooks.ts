/**
 * Simulated container lifecycle hooks (`lifecycle.postStart`, `lifecycle.preStop`) with the
 * kubelet's semantics (pkg/kubelet/lifecycle handlers.go; kuberuntime startContainer,
 * killContainer, executePreStopHook).
 *
 * What a hook does — how long it runs and whether it fails — has to be decidable without a
 * process, so it comes from a convention, the probes' one (probes.ts):
 *
 * | where                                                           | outcome                                 |
 * |-----------------------------------------------------------------|-----------------------------------------|
 * | annotation `sim.kubeloop.dev/hook.<container>.<postStart\|preStop>` (wins) | `pass`, `fail` (at once), `pass-after=<s>`, `fail-after=<s>` (runs s seconds, then succeeds / fails) |
 * | `exec` whose command is a script programs.ts understands        | runs for the script's sleeps; exit status 0 succeeds, any other fails |
 * | any other `exec`, `httpGet`                                     | succeeds at once                        |
 * | `sleep` (`seconds`, 0 included: PodLifecycleSleepActionAllowZero is GA since 1.34) | runs that long, succeeds |
 * | `tcpSocket`                                                     | fails at once: the kubelet has no TCP handler ("Cannot run handler: invalid handler: …") |
 *
 * An exec hook has no timeout (the kubelet passes none). A failed hook's message is the
 * kubelet's (`Exec lifecycle hook ([sh -c exit 1]) for Container "c" in Pod "p_ns(uid)" failed -
 * error: command 'sh -c exit 1' exited with 1: , message: ""`); it shows in a PostStartHookError
 * waiting state, while the events say only "PostStartHook failed" / "PreStopHook failed" (the
 * kubelet keeps hook output out of events).
 *
 * Kills (killTimeline): the kubelet gives a preStop hook the whole grace period; when it
 * returns, the container gets what is left — the grace period less the hook's whole seconds —
 * but never less than minimumGracePeriodInSeconds (2 s); a hook still running at the end of the
 * grace period is left behind and the container gets those 2 s. Simulated programs ignore
 * SIGTERM, so the container is killed (137) when that time is over, unless its program ends
 * sooner; the kubelet still waits for the hook before it reports the container stopped.
 */
import type { Container, LifecycleHandler, Pod } from "../../apimachinery/api/core/v1.js";
import { parseOutcomeAnnotation } from "./outcomeannotation.js";
import { containerScript, interpretScript } from "./programs.js";

export type HookType = "postStart" | "preStop";

export const HOOK_ANNOTATION_PREFIX = "sim.kubeloop.dev/hook.";
/** The kubelet's minimum stop window after a preStop hook (kuberuntime minimumGracePeriodInSeconds). */
export const MINIMUM_GRACE_PERIOD_SECONDS = 2;
/** Event reasons and messages (pkg/kubelet/events; kuberuntime startContainer / executePreStopHook). */
export const FAILED_POST_START_HOOK = "FailedPostStartHook";
export const FAILED_PRE_STOP_HOOK = "FailedPreStopHook";
export const POST_START_HOOK_FAILED_MESSAGE = "PostStartHook failed";
export const PRE_STOP_HOOK_FAILED_MESSAGE = "PreStopHook failed";
/** The waiting reason of a container whose postStart hook failed (kuberuntime ErrPostStartHook). */
export const POST_START_HOOK_ERROR = "PostStartHookError";

export class InvalidHookAnnotationError extends Error {
  constructor(
    readonly annotation: string,
    readonly value: string,
  ) {
    super(`invalid ${annotation} annotation ${JSON.stringify(value)}: want pass, fail, pass-after=<seconds> or fail-after=<seconds>`);
    this.name = "InvalidHookAnnotationError";
  }
}

/** What one run of a hook does. */
export interface HookOutcome {
  ok: boolean;
  /** How long it runs (ms, unscaled). */
  runMs: number;
  /** The kubelet's message for a failure; "" when it succeeds. */
  message: string;
}

/** The pod as the kubelet names it in messages (format.Pod): name_namespace(uid). */
function podName(pod: Pod): string {
  return `${pod.metadata?.name ?? ""}_${pod.metadata?.namespace ?? ""}(${pod.metadata?.uid ?? ""})`;
}

/** An IntOrString as Go's %v prints it: {Type IntVal StrVal}. */
function goIntOrString(v: number | string): string {
  return typeof v === "number" ? `{0 ${v} }` : `{1 0 ${v}}`;
}

/** The message of a handler of the given kind failing with `error` (handlers.go Run). */
function failureMessage(pod: Pod, container: Container, handler: LifecycleHandler, error: string): string {
  const where = `for Container ${JSON.stringify(container.name)} in Pod ${JSON.stringify(podName(pod))} failed - error: `;
  if (handler.exec) return `Exec lifecycle hook ([${(handler.exec.command ?? []).join(" ")}]) ${where}${error}`;
  if (handler.httpGet) return `HTTP lifecycle hook (${handler.httpGet.path ?? ""}) ${where}${error}`;
  if (handler.sleep) return `Sleep lifecycle hook (${handler.sleep.seconds}) ${where}${error}`;
  return `Cannot run handler: ${error}`;
}

/** The error a handler reports when made to fail (by annotation), or when it fails by itself. */
function failureError(pod: Pod, container: Container, handler: LifecycleHandler, exitCode = 1, output = ""): string {
  if (handler.exec) return `command '${(handler.exec.command ?? []).join(" ")}' exited with ${exitCode}: , message: ${JSON.stringify(output)}`;
  if (handler.httpGet) {
    const g = handler.httpGet;
    const port = typeof g.port === "number" ? g.port : ((container.ports ?? []).find((p) => p.name === g.port)?.containerPort ?? g.port);
    const host = g.host || pod.status?.podIP || "";
    const target = `${host}:${port}`;
    return `Get "${(g.scheme ?? "HTTP").toLowerCase()}://${target}${g.path ?? ""}": dial tcp ${target}: connect: connection refused`;
  }
  if (handler.sleep) return "container terminated before sleep hook finished";
  const tcp = handler.tcpSocket ? `&TCPSocketAction{Port:${goIntOrString(handler.tcpSocket.port)},Host:${handler.tcpSocket.host ?? ""},}` : "nil";
  return `invalid handler: &LifecycleHandler{Exec:nil,HTTPGet:nil,TCPSocket:${tcp},Sleep:nil,}`;
}

/** What the handler does by itself (no annotation). */
function handlerOutcome(pod: Pod, container: Container, handler: LifecycleHandler): HookOutcome {
  const ok: HookOutcome = { ok: true, runMs: 0, message: "" };
  if (handler.exec) {
    const command = handler.exec.command ?? [];
    // The same reading as a container's command and an exec probe's.
    const script = containerScript({ name: container.name, command });
    const r = script === undefined ? undefined : interpretScript(script, { hostname: pod.metadata?.name });
    if (!r) return ok;
    if (r.exitCode === 0) return { ok: true, runMs: r.runMs, message: "" };
    const output = r.output.map((l) => `${l.text}\n`).join("");
    return { ok: false, runMs: r.runMs, message: failureMessage(pod, container, handler, failureError(pod, container, handler, r.exitCode, output)) };
  }
  if (handler.httpGet) return ok;
  if (handler.sleep) return { ok: true, runMs: Math.max(0, handler.sleep.seconds) * 1000, message: "" };
  return { ok: false, runMs: 0, message: failureMessage(pod, container, handler, failureError(pod, container, handler)) };
}

/** The outcome an annotation value describes (`failing`: the handler's failure message); undefined when invalid. */
export function parseHookAnnotation(value: string, failing: string): HookOutcome | undefined {
  const a = parseOutcomeAnnotation(value);
  if (!a) return undefined;
  return a.outcome === "pass" ? { ok: true, runMs: a.afterMs, message: "" } : { ok: false, runMs: a.afterMs, message: failing };
}

/** The outcome of the container's `type` hook, or undefined when it has none. */
export function hookOutcome(pod: Pod, container: Container, type: HookType, onInvalid?: (err: InvalidHookAnnotationError) => void): HookOutcome | undefined {
  const handler = container.lifecycle?.[type];
  if (!handler) return undefined;
  const own = handlerOutcome(pod, container, handler);
  const annotation = `${HOOK_ANNOTATION_PREFIX}${container.name}.${type}`;
  const value = pod.metadata?.annotations?.[annotation];
  if (value === undefined) return own;
  const failing = own.ok ? failureMessage(pod, container, handler, failureError(pod, container, handler)) : own.message;
  const parsed = parseHookAnnotation(value, failing);
  if (parsed) return parsed;
  onInvalid?.(new InvalidHookAnnotationError(annotation, value));
  return own;
}

/** Whether any container of the pod (sidecars included) has a postStart hook. */
export function podHasPostStart(pod: Pod): boolean {
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].some((c) => c.lifecycle?.postStart !== undefined);
}

/** A kill of one container, in ms from the moment it is decided (scaled by the speed factor). */
export interface KillTimeline {
  /** When the preStop hook returns or is left behind, if one runs. */
  hookEndMs?: number;
  /** When the preStop hook fails (FailedPreStopHook), if it fails within the grace period. */
  hookFailedMs?: number;
  /** When the container is killed (137) if its program has not ended by then. */
  killMs: number;
}

/**
 * How a kill with `graceSeconds` unfolds (kuberuntime killContainer): the preStop hook, if any
 * and the grace period is positive, runs first within the grace period; the container then gets
 * the rest of it in whole seconds, at least 2 s. Without a hook, the grace period as it is.
 * Every duration is multiplied by `speedFactor`.
 */
export function killTimeline(graceSeconds: number, preStop: HookOutcome | undefined, speedFactor: number): KillTimeline {
  const scale = 1000 * speedFactor;
  const grace = Math.max(0, graceSeconds);
  if (!preStop || grace <= 0) return { killMs: grace * scale };
  const hookSeconds = preStop.runMs / 1000;
  const cutOff = hookSeconds > grace;
  const ran = cutOff ? grace : hookSeconds;
  const left = Math.max(grace - Math.floor(ran), MINIMUM_GRACE_PERIOD_SECONDS);
  return {
    hookEndMs: ran * scale,
    ...(!preStop.ok && !cutOff ? { hookFailedMs: ran * scale } : {}),
    killMs: (ran + left) * scale,
  };
}
