/**
 * Simulated container probes with the kubelet's prober semantics (pkg/kubelet/prober, worker.go).
 *
 * What a probe answers has to be decidable without a process, so it comes from a convention:
 *
 * | where                                                        | answer                                  |
 * |--------------------------------------------------------------|-----------------------------------------|
 * | annotation `sim.kubeloop.dev/probe.<container>.<type>` (wins) | `pass`, `fail`, `fail-after=<s>` (passes for s seconds of the container's run, then fails), `pass-after=<s>` (the reverse) |
 * | `exec` whose command is a script programs.ts understands      | exit status 0 passes, any other fails (output: what it echoes); a script sleeping longer than timeoutSeconds fails with `command "…" timed out` |
 * | any other `exec`, `httpGet`, `tcpSocket`, `grpc`              | passes                                  |
 *
 * `<type>` is `liveness`, `readiness` or `startup`. An invalid annotation is reported and ignored.
 *
 * Timing (the worker's): a probe runs every periodSeconds (default 10); none runs before
 * initialDelaySeconds (default 0) of the container's run. The kubelet's ticker starts with the
 * worker, at a random offset; here the ticks are aligned to the container's start — at
 * start + initialDelay + k·period — so a run is reproducible on a fake clock. A result counts
 * once it repeats successThreshold (default 1) or failureThreshold (default 3) times in a row;
 * until then the previous one stands. Initial results (the worker's initialValue): readiness
 * Failure, liveness Success, startup Unknown.
 *
 * - startupProbe: until it succeeds the container is not `started`, and liveness and readiness
 *   do not run (their first tick is strictly after the startup success). Failing it kills the
 *   container as a liveness failure does.
 * - readinessProbe: the container is ready exactly while readiness is Success (no probe: ready
 *   once started).
 * - livenessProbe: once Failure counts, the container is killed ("Container c failed liveness
 *   probe, will be restarted") and the worker holds until the container is replaced.
 *
 * Every failed run records a Warning `Unhealthy` event ("Liveness probe failed: <output>").
 */
import type { Container, Pod, Probe } from "../../apimachinery/api/core/v1.js";
import { parseOutcomeAnnotation } from "./outcomeannotation.js";
import { containerScript, interpretScript } from "./programs.js";

export type ProbeType = "startup" | "liveness" | "readiness";

export const PROBE_ANNOTATION_PREFIX = "sim.kubeloop.dev/probe.";

/** The API's defaults (pkg/apis/core/v1 defaults.go SetDefaults_Probe). */
export const PROBE_DEFAULTS = Object.freeze({ initialDelaySeconds: 0, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 });

export class InvalidProbeAnnotationError extends Error {
  constructor(
    readonly annotation: string,
    readonly value: string,
  ) {
    super(`invalid ${annotation} annotation ${JSON.stringify(value)}: want pass, fail, fail-after=<seconds> or pass-after=<seconds>`);
    this.name = "InvalidProbeAnnotationError";
  }
}

/** One probe's answer, `tMs` into the container's run. */
export interface ProbeVerdict {
  ok: boolean;
  output: string;
}

/**
 * What a probe answers over the container's run: each segment's verdict from its `fromMs` (ms into
 * the run) to the next one's; the first starts at 0, and the last one holds for good.
 */
export interface ProbeBehaviour {
  segments: ReadonlyArray<{ fromMs: number; verdict: ProbeVerdict }>;
}

function verdictAt(b: ProbeBehaviour, tMs: number): ProbeVerdict {
  let v = b.segments[0].verdict;
  for (const seg of b.segments) if (seg.fromMs <= tMs) v = seg.verdict;
  return v;
}

function finalVerdict(b: ProbeBehaviour): ProbeVerdict {
  return b.segments[b.segments.length - 1].verdict;
}

/** A probe with its defaults applied, in milliseconds, and its behaviour. */
export interface SimProbe {
  type: ProbeType;
  initialDelayMs: number;
  periodMs: number;
  successThreshold: number;
  failureThreshold: number;
  /** The probe's own terminationGracePeriodSeconds (liveness and startup), if set. */
  terminationGracePeriodSeconds?: number;
  behaviour: ProbeBehaviour;
}

/** The probes of one container. */
export interface ContainerProbes {
  startup?: SimProbe;
  liveness?: SimProbe;
  readiness?: SimProbe;
}

const PASS: ProbeVerdict = Object.freeze({ ok: true, output: "" });

function constant(v: ProbeVerdict): ProbeBehaviour {
  return { segments: [{ fromMs: 0, verdict: v }] };
}

/** What a failing probe of this kind says (the prober's output for a failure). */
function failureOutput(pod: Pod, container: Container, probe: Probe): string {
  if (probe.httpGet) return "HTTP probe failed with statuscode: 500";
  if (probe.tcpSocket) {
    const port = probe.tcpSocket.port;
    const num = typeof port === "number" ? port : (container.ports ?? []).find((p) => p.name === port)?.containerPort ?? port;
    return `dial tcp ${pod.status?.podIP ?? ""}:${num}: connect: connection refused`;
  }
  if (probe.grpc) return `service unhealthy (responded with "NOT_SERVING")`;
  return "";
}

/** What the probe's handler answers by itself (no annotation). */
function handlerBehaviour(pod: Pod, probe: Probe, timeoutMs: number): ProbeBehaviour {
  const command = probe.exec?.command;
  if (!command) return constant(PASS);
  // The same reading as a container's command: a shell's -c operand, or the command itself.
  const script = containerScript({ name: "probe", command });
  const r = script === undefined ? undefined : interpretScript(script, { hostname: pod.metadata?.name });
  if (!r) return constant(PASS);
  if (r.runMs > timeoutMs) return constant({ ok: false, output: `command ${JSON.stringify(command.join(" "))} timed out` });
  const output = r.output.map((l) => `${l.text}\n`).join("");
  return constant({ ok: r.exitCode === 0, output });
}

/** The behaviour an annotation value describes; undefined when invalid. */
export function parseProbeAnnotation(value: string, failing: ProbeVerdict): ProbeBehaviour | undefined {
  const a = parseOutcomeAnnotation(value);
  if (!a) return undefined;
  if (!a.timed) return constant(a.outcome === "pass" ? PASS : failing);
  const [before, after] = a.outcome === "fail" ? [PASS, failing] : [failing, PASS];
  return { segments: [{ fromMs: 0, verdict: before }, { fromMs: a.afterMs, verdict: after }] };
}

function simProbe(pod: Pod, container: Container, type: ProbeType, probe: Probe, onInvalid?: (err: InvalidProbeAnnotationError) => void): SimProbe {
  const d = PROBE_DEFAULTS;
  const timeoutMs = (probe.timeoutSeconds ?? d.timeoutSeconds) * 1000;
  let behaviour = handlerBehaviour(pod, probe, timeoutMs);
  const annotation = `${PROBE_ANNOTATION_PREFIX}${container.name}.${type}`;
  const value = pod.metadata?.annotations?.[annotation];
  if (value !== undefined) {
    const handler = finalVerdict(behaviour);
    const failing = handler.ok ? { ok: false, output: failureOutput(pod, container, probe) } : handler;
    const parsed = parseProbeAnnotation(value, failing);
    if (parsed) behaviour = parsed;
    else onInvalid?.(new InvalidProbeAnnotationError(annotation, value));
  }
  return {
    type,
    initialDelayMs: Math.max(0, probe.initialDelaySeconds ?? d.initialDelaySeconds) * 1000,
    periodMs: Math.max(1, probe.periodSeconds ?? d.periodSeconds) * 1000,
    successThreshold: Math.max(1, probe.successThreshold ?? d.successThreshold),
    failureThreshold: Math.max(1, probe.failureThreshold ?? d.failureThreshold),
    ...(probe.terminationGracePeriodSeconds !== undefined ? { terminationGracePeriodSeconds: probe.terminationGracePeriodSeconds } : {}),
    behaviour,
  };
}

/** The container's probes, or undefined when it has none. */
export function containerProbes(pod: Pod, container: Container, onInvalid?: (err: InvalidProbeAnnotationError) => void): ContainerProbes | undefined {
  const out: ContainerProbes = {};
  if (container.startupProbe) out.startup = simProbe(pod, container, "startup", container.startupProbe, onInvalid);
  if (container.livenessProbe) out.liveness = simProbe(pod, container, "liveness", container.livenessProbe, onInvalid);
  if (container.readinessProbe) out.readiness = simProbe(pod, container, "readiness", container.readinessProbe, onInvalid);
  return out.startup || out.liveness || out.readiness ? out : undefined;
}

/** Whether any container of the pod (init containers included) has a probe. */
export function podHasProbes(pod: Pod): boolean {
  const all = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  return all.some((c) => c.startupProbe || c.livenessProbe || c.readinessProbe);
}

/** A failed probe run: when, and what it said. */
export interface ProbeFailure {
  type: ProbeType;
  atMs: number;
  output: string;
}

/** One probe worker's run over a container's life, up to some time. */
export interface ProbeRun {
  /** The result in force at the end (undefined: Unknown). */
  result?: boolean;
  /** When the result last changed to what it is. */
  sinceMs?: number;
  /** When the worker fired: startup succeeded or liveness/startup failed (and then it holds). */
  firedMs?: number;
  failures: ProbeFailure[];
  /** The next tick after `untilMs` that can change something (a result or an event); undefined when settled. */
  nextMs?: number;
}

/** At most this many failures are reported per run (older ones were reported before, or are old news). */
const MAX_REPORTED_FAILURES = 10;

/**
 * Runs one probe worker over the container started at `startMs`, counting ticks that are ≥
 * `fromMs` (`strict`: > fromMs) and ≤ `untilMs`. Failures at or before `reportedMs` are left out.
 * Liveness and startup stop when they fire (startup on success too).
 */
export function runProbe(p: SimProbe, startMs: number, fromMs: number, strict: boolean, untilMs: number, reportedMs = -Infinity): ProbeRun {
  const first = startMs + p.initialDelayMs;
  // The first tick counted.
  let k = fromMs <= first ? 0 : Math.ceil((fromMs - first) / p.periodMs);
  if (strict && first + k * p.periodMs <= fromMs) k++;
  let result: boolean | undefined = p.type === "readiness" ? false : p.type === "liveness" ? true : undefined;
  let sinceMs: number | undefined;
  let last: boolean | undefined;
  let run = 0;
  const failures: ProbeFailure[] = [];
  const switchAt = startMs + p.behaviour.segments[p.behaviour.segments.length - 1].fromMs;
  const stops = p.type !== "readiness";
  for (;;) {
    const t = first + k * p.periodMs;
    if (t > untilMs) break;
    const steady = t >= switchAt;
    const v = verdictAt(p.behaviour, t - startMs);
    if (steady && v.ok && result === true && last === true) {
      // Passing for good: nothing more happens.
      return { result, ...(sinceMs !== undefined ? { sinceMs } : {}), failures };
    }
    if (steady && !v.ok && result === false && last === false && !stops) {
      // Failing for good (readiness): only the events of the remaining ticks.
      const lastK = Math.floor((untilMs - first) / p.periodMs);
      const fromK = Math.max(k, lastK - MAX_REPORTED_FAILURES + 1, reportedMs === -Infinity ? k : Math.floor((reportedMs - first) / p.periodMs) + 1);
      for (let j = fromK; j <= lastK; j++) failures.push({ type: p.type, atMs: first + j * p.periodMs, output: v.output });
      k = lastK + 1;
      break;
    }
    if (last === v.ok) run++;
    else {
      last = v.ok;
      run = 1;
    }
    if (!v.ok && t > reportedMs) failures.push({ type: p.type, atMs: t, output: v.output });
    const counts = v.ok ? run >= p.successThreshold : run >= p.failureThreshold;
    if (counts && result !== v.ok) {
      result = v.ok;
      sinceMs = t;
    }
    if (counts && stops && (p.type === "startup" || !v.ok)) {
      return { result, sinceMs: t, firedMs: t, failures: failures.slice(-MAX_REPORTED_FAILURES) };
    }
    k++;
  }
  return { result, ...(sinceMs !== undefined ? { sinceMs } : {}), failures: failures.slice(-MAX_REPORTED_FAILURES), nextMs: first + k * p.periodMs };
}

/** What the probes make of one running container, up to `untilMs`. */
export interface ProbeTimeline {
  /** When the container counts as started (at once without a startup probe), if it did. */
  startedMs?: number;
  ready: boolean;
  /** The probe that decided to kill the container, and when. */
  kill?: { type: "liveness" | "startup"; atMs: number; gracePeriodSeconds?: number };
  failures: ProbeFailure[];
  /** The next time something may change; undefined when nothing will. */
  nextMs?: number;
}

/**
 * Runs a container's probe workers from its start (`startMs`) to `untilMs`. Failures at or
 * before `reportedMs` were reported already. No tick before `fromMs` counts (default: the
 * start): the kubelet probes a container only once its status shows it running, which a
 * postStart hook (hooks.ts) holds back; ticks stay aligned to the start.
 */
export function probeTimeline(probes: ContainerProbes, startMs: number, untilMs: number, reportedMs = -Infinity, fromMs = startMs): ProbeTimeline {
  const failures: ProbeFailure[] = [];
  const nexts: number[] = [];
  let startedMs: number | undefined = fromMs;
  let kill: ProbeTimeline["kill"];
  if (probes.startup) {
    const r = runProbe(probes.startup, startMs, fromMs, false, untilMs, reportedMs);
    failures.push(...r.failures);
    if (r.nextMs !== undefined) nexts.push(r.nextMs);
    startedMs = r.result === true ? r.firedMs : undefined;
    if (r.result === false && r.firedMs !== undefined) kill = { type: "startup", atMs: r.firedMs, gracePeriodSeconds: probes.startup.terminationGracePeriodSeconds };
  }
  let ready = false;
  if (startedMs !== undefined) {
    const strict = probes.startup !== undefined;
    if (probes.liveness) {
      const r = runProbe(probes.liveness, startMs, startedMs, strict, untilMs, reportedMs);
      failures.push(...r.failures);
      if (r.nextMs !== undefined) nexts.push(r.nextMs);
      if (r.result === false && r.firedMs !== undefined) kill = { type: "liveness", atMs: r.firedMs, gracePeriodSeconds: probes.liveness.terminationGracePeriodSeconds };
    }
    if (probes.readiness) {
      const r = runProbe(probes.readiness, startMs, startedMs, strict, untilMs, reportedMs);
      failures.push(...r.failures);
      if (r.nextMs !== undefined) nexts.push(r.nextMs);
      ready = r.result === true;
    } else ready = true;
  }
  failures.sort((a, b) => a.atMs - b.atMs);
  return { ...(startedMs !== undefined ? { startedMs } : {}), ready, ...(kill ? { kill } : {}), failures, ...(nexts.length > 0 && !kill ? { nextMs: Math.min(...nexts) } : {}) };
}

/** The `Unhealthy` event message of a failed run ("Liveness probe failed: …"). */
export function unhealthyMessage(f: ProbeFailure): string {
  return `${f.type[0].toUpperCase()}${f.type.slice(1)} probe failed: ${f.output}`;
}
