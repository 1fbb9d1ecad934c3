/**
 * The pods/log subresource (GET /api/v1/namespaces/{ns}/pods/{name}/log), as kube-apiserver's
 * LogREST and the kubelet's containerLogs answer it, over a PodLogSource instead of a kubelet.
 *
 * The source is given to the server (ApiServerConfig.podLogs); kubeloop's simulated kubelet
 * provides one (controllers/podlifecycle/logs.ts) that derives a container's lines from its
 * program and the start/finish times the kubelet recorded in the pod's status, so it needs no
 * channel to the kubelet's process. Without a source the subresource answers 400 as before
 * (core/unservable.ts).
 *
 * Checks, in upstream's order and words:
 * - PodLogOptions validation (422 `PodLogOptions "x" is invalid: ...`): tailLines ≥ 0,
 *   limitBytes > 0, sinceSeconds > 0, not both sinceSeconds and sinceTime;
 * - the container (LogLocation, 400): one container, or `container` naming a container, init
 *   container or ephemeral container — "a container name must be specified for pod x, choose one
 *   of: [a b]" (plus " or one of the init containers: [..]"), "container c is not valid for pod x";
 * - the node (400): "pod x does not have a host assigned";
 * - the container's status (the kubelet's validateContainerLogStatus, 400): "container "c" in pod
 *   "x" is waiting to start: <reason>", "previous terminated container "c" in pod "x" not found",
 *   "container "c" in pod "x" is not available".
 *
 * Then the lines: sinceSeconds / sinceTime, tailLines, the RFC 3339 timestamps prefix, limitBytes
 * (cut mid-line, as the kubelet's byte limit). `follow` answers what is there now and ends the
 * response (no streaming of lines still to come).
 */
import type { ServerResponse } from "node:http";
import { StatusError } from "../../apimachinery/errors.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import { parseTime } from "../../apimachinery/time.js";
import type { KubeObject } from "../../apimachinery/types.js";

/** One line of a container's log. */
export interface PodLogLine {
  /** When it was written (ms since the epoch). */
  timeMs: number;
  text: string;
}

/** Which run of a container: its start, and its finish if it ended. */
export interface ContainerInstance {
  startedAtMs: number;
  finishedAtMs?: number;
}

/** A container run's lines, oldest first, as of `nowMs`. */
export type PodLogSource = (pod: KubeObject, container: string, instance: ContainerInstance, nowMs: number) => readonly PodLogLine[];

export interface PodLogOptions {
  container?: string;
  previous: boolean;
  timestamps: boolean;
  follow: boolean;
  tailLines?: number;
  limitBytes?: number;
  sinceSeconds?: number;
  sinceTime?: string;
}

interface ContainerShape {
  name: string;
}
interface StateShape {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { startedAt?: string; finishedAt?: string; containerID?: string };
}
interface ContainerStatusShape {
  name: string;
  state?: StateShape;
  lastState?: StateShape;
}
interface PodShape {
  metadata?: { name?: string };
  spec?: { nodeName?: string; containers?: ContainerShape[]; initContainers?: ContainerShape[]; ephemeralContainers?: ContainerShape[] };
  status?: { containerStatuses?: ContainerStatusShape[]; initContainerStatuses?: ContainerStatusShape[]; ephemeralContainerStatuses?: ContainerStatusShape[]; nominatedNodeName?: string; conditions?: Array<{ type?: string; status?: string }> };
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === "") return undefined;
  if (!/^-?[0-9]+$/.test(v)) throw StatusError.badRequest(`invalid value for ${name}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

function boolParam(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v === "true" || v === "1" || v === "True" || v === "TRUE" || v === "t" || v === "T";
}

/** The query's PodLogOptions. */
export function parsePodLogOptions(q: URLSearchParams): PodLogOptions {
  const o: PodLogOptions = { previous: boolParam(q, "previous"), timestamps: boolParam(q, "timestamps"), follow: boolParam(q, "follow") };
  const container = q.get("container");
  if (container) o.container = container;
  const tail = intParam(q, "tailLines");
  if (tail !== undefined) o.tailLines = tail;
  const limit = intParam(q, "limitBytes");
  if (limit !== undefined) o.limitBytes = limit;
  const since = intParam(q, "sinceSeconds");
  if (since !== undefined) o.sinceSeconds = since;
  const sinceTime = q.get("sinceTime");
  if (sinceTime) {
    if (parseTime(sinceTime) === undefined) throw StatusError.badRequest(`invalid value for sinceTime: parsing time ${JSON.stringify(sinceTime)} as "2006-01-02T15:04:05Z07:00": cannot parse`);
    o.sinceTime = sinceTime;
  }
  return o;
}

/** ValidatePodLogOptions. */
export function validatePodLogOptions(o: PodLogOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0) errs.push(fieldErrors.invalid("tailLines", o.tailLines, "must be greater than or equal to 0"));
  if (o.limitBytes !== undefined && o.limitBytes < 1) errs.push(fieldErrors.invalid("limitBytes", o.limitBytes, "must be greater than 0"));
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) errs.push(fieldErrors.forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified"));
  else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) errs.push(fieldErrors.invalid("sinceSeconds", o.sinceSeconds, "must be greater than 0"));
  return errs;
}

const names = (cs: ContainerShape[] | undefined) => (cs ?? []).map((c) => c.name);

/** LogLocation's choice of container (400s as upstream). */
export function logContainer(obj: KubeObject, name: string, requested: string | undefined): string {
  const pod = obj as PodShape;
  if (requested) {
    const all = [...names(pod.spec?.containers), ...names(pod.spec?.initContainers), ...names(pod.spec?.ephemeralContainers)];
    if (!all.includes(requested)) throw StatusError.badRequest(`container ${requested} is not valid for pod ${name}`);
    return requested;
  }
  const containers = names(pod.spec?.containers);
  if (containers.length === 1) return containers[0];
  const init = names(pod.spec?.initContainers);
  let msg = `a container name must be specified for pod ${name}, choose one of: [${containers.join(" ")}]`;
  if (init.length > 0) msg += ` or one of the init containers: [${init.join(" ")}]`;
  throw StatusError.badRequest(msg);
}

function nodeOf(pod: PodShape): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  // Simulated placement by status (controllers/podlifecycle): PodScheduled with a nominated node.
  const scheduled = pod.status?.conditions?.some((c) => c.type === "PodScheduled" && c.status === "True");
  return scheduled ? pod.status?.nominatedNodeName || undefined : undefined;
}

/** validateContainerLogStatus: the run to read (400s in the kubelet's words). */
export function logInstance(obj: KubeObject, name: string, container: string, previous: boolean): ContainerInstance {
  const pod = obj as PodShape;
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.ephemeralContainerStatuses ?? [])];
  const s = statuses.find((x) => x.name === container);
  if (!s) throw StatusError.badRequest(`container ${JSON.stringify(container)} in pod ${JSON.stringify(name)} is not available`);
  const lastTerminated = s.lastState?.terminated;
  const instanceOf = (t: { startedAt?: string; finishedAt?: string }): ContainerInstance => ({
    startedAtMs: parseTime(t.startedAt) ?? 0,
    ...(parseTime(t.finishedAt) !== undefined ? { finishedAtMs: parseTime(t.finishedAt) } : {}),
  });
  if (previous) {
    if (!lastTerminated) throw StatusError.badRequest(`previous terminated container ${JSON.stringify(container)} in pod ${JSON.stringify(name)} not found`);
    return instanceOf(lastTerminated);
  }
  const state = s.state ?? {};
  if (state.running) return { startedAtMs: parseTime(state.running.startedAt) ?? 0 };
  if (state.terminated) return instanceOf(state.terminated);
  if (state.waiting) {
    // A restarting container shows its last run, as the kubelet does.
    if (lastTerminated) return instanceOf(lastTerminated);
    throw StatusError.badRequest(`container ${JSON.stringify(container)} in pod ${JSON.stringify(name)} is waiting to start: ${state.waiting.reason ?? ""}`);
  }
  throw StatusError.badRequest(`container ${JSON.stringify(container)} in pod ${JSON.stringify(name)} is not available`);
}

/** RFC 3339 with nanoseconds, as the kubelet's timestamps prefix. */
function rfc3339Nano(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-01-01T00:00:00.123Z
  return `${iso.slice(0, 19)}.${iso.slice(20, 23)}000000Z`;
}

/** The body for `lines` under the options. */
export function renderLog(lines: readonly PodLogLine[], o: PodLogOptions, nowMs: number): string {
  let since: number | undefined;
  if (o.sinceSeconds !== undefined) since = nowMs - o.sinceSeconds * 1000;
  else if (o.sinceTime !== undefined) since = parseTime(o.sinceTime);
  let selected = since === undefined ? [...lines] : lines.filter((l) => l.timeMs >= since);
  if (o.tailLines !== undefined) selected = o.tailLines === 0 ? [] : selected.slice(-o.tailLines);
  let body = selected.map((l) => `${o.timestamps ? `${rfc3339Nano(l.timeMs)} ` : ""}${l.text}\n`).join("");
  if (o.limitBytes !== undefined) {
    const buf = Buffer.from(body, "utf8");
    if (buf.length > o.limitBytes) body = buf.subarray(0, o.limitBytes).toString("utf8");
  }
  return body;
}

/** Serves GET pods/{name}/log for `pod` (already read). */
export function servePodLog(source: PodLogSource, pod: KubeObject, q: URLSearchParams, nowMs: number, res: ServerResponse): void {
  const shape = pod as PodShape;
  const name = shape.metadata?.name ?? "";
  const o = parsePodLogOptions(q);
  const errs = validatePodLogOptions(o);
  if (errs.length > 0) throw StatusError.invalid({ group: "", kind: "PodLogOptions" }, name, errs);
  const container = logContainer(pod, name, o.container);
  if (!nodeOf(shape)) throw StatusError.badRequest(`pod ${name} does not have a host assigned`);
  const instance = logInstance(pod, name, container, o.previous);
  const body = renderLog(source(pod, container, instance, nowMs), o, nowMs);
  res.writeHead(200, { "Content-Type": "text/plain", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}
