/**
 * What the simulated kubelet's containers write, for the API server's pods/log
 * (apiserver/core/podlogs.ts).
 *
 * A simulated container runs a program (programs.ts), and the program is deterministic: its
 * lines — echo, printf, hostname, pwd, whoami, `$VAR` expanded from the container's env and
 * HOSTNAME — are each written a known time after the container starts (after the sleeps before
 * them); a script the simulator models only in part (`echo ready; sleep infinity`: it then runs
 * forever) has written the lines before the first command it does not know. The kubelet records each run's start and finish in the pod's status (state and
 * lastState startedAt / finishedAt), so a run's log is a function of the pod alone: the lines
 * written by `nowMs` (every line once the run finished), each stamped startedAt + its offset.
 *
 * That makes the log reachable wherever the API server runs, in the simulated kubelet's process
 * or not (`kubeloop up`, or `kubeloop apiserver` beside `kubeloop controller podlifecycle`), and
 * it survives restarts with the pods. Containers whose program writes nothing — or whose command
 * the simulator does not model, or whose pod's sim.kubeloop.dev annotations replace the program
 * — have an empty log, like a silent process.
 */
import type { Container, Pod } from "../../apimachinery/api/core/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { annotationProgram, containerScript, interpretScript, isSidecar } from "./programs.js";

export interface SimulatedLogLine {
  timeMs: number;
  text: string;
}

function literalEnv(c: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) if (e.value !== undefined && e.value !== null) env[e.name] = e.value;
  return env;
}

/** The lines a run of `container` (started at startedAtMs, finished at finishedAtMs if it did) has written by nowMs. */
export function simulatedContainerLog(obj: KubeObject, container: string, run: { startedAtMs: number; finishedAtMs?: number }, nowMs: number): SimulatedLogLine[] {
  const pod = obj as Pod;
  const regular = (pod.spec?.containers ?? []).find((c) => c.name === container);
  const init = (pod.spec?.initContainers ?? []).find((c) => c.name === container);
  const c = regular ?? init;
  if (!c) return [];
  // The annotations replace regular containers' programs (programs.ts).
  if (regular && annotationProgram(pod) !== undefined) return [];
  if (init && isSidecar(init) && annotationProgram(pod) !== undefined) return [];
  const script = containerScript(c);
  if (script === undefined) return [];
  const r = interpretScript(script, { env: literalEnv(c), hostname: pod.spec?.hostname ?? pod.metadata?.name ?? "", partial: true });
  if (!r) return [];
  const upTo = run.finishedAtMs !== undefined ? Infinity : nowMs - run.startedAtMs;
  return r.output.filter((l) => l.atMs <= upTo).map((l) => ({ timeMs: run.startedAtMs + l.atMs, text: l.text }));
}
