/**
 * The live view of `kubeloop up`: the object trees (Application → Deployment → ReplicaSets → Pods;
 * CronJob → Jobs → Pods; StatefulSet → Pods by ordinal; DaemonSet → Pods by node) with counts and
 * a progress bar per rollout or Job, redrawn in place on a TTY and reduced to one log line per
 * change otherwise. `renderTree` is a pure function of the cached objects, so it is tested
 * without a terminal.
 *
 * What "done" means follows kubectl: a Job is done with its Complete (or Failed) condition; a
 * StatefulSet or DaemonSet rollout is complete when `kubectl rollout status` would say so
 * (observed generation, every replica ready/available and updated, current = update revision).
 */
import type { DaemonSet, Deployment, ReplicaSet, StatefulSet } from "../apimachinery/api/apps/v1.js";
import type { CronJob, Job } from "../apimachinery/api/batch/v1.js";
import type { Endpoints, Pod, Service } from "../apimachinery/api/core/v1.js";
import { getControllerOf } from "../apimachinery/ownerrefs.js";
import type { Application } from "../controllers/application/types.js";

export interface TreeInput {
  deployments: readonly Deployment[];
  replicaSets: readonly ReplicaSet[];
  pods: readonly Pod[];
  /** When given, Applications are the roots: Application → Deployment → ReplicaSets → Pods, plus Service and endpoints. */
  applications?: readonly Application[];
  services?: readonly Service[];
  endpoints?: readonly Endpoints[];
  /** Jobs (a CronJob's under it, the others as roots), CronJobs, StatefulSets and DaemonSets, when shown. */
  jobs?: readonly Job[];
  cronJobs?: readonly CronJob[];
  statefulSets?: readonly StatefulSet[];
  daemonSets?: readonly DaemonSet[];
}

const REVISION = "deployment.kubernetes.io/revision";

export function progressBar(done: number, total: number, width = 20): string {
  const frac = total <= 0 ? 1 : Math.max(0, Math.min(1, done / total));
  const full = Math.round(frac * width);
  return `[${"█".repeat(full)}${"░".repeat(width - full)}] ${String(Math.round(frac * 100)).padStart(3)}%`;
}

function podState(p: Pod): string {
  if (p.metadata?.deletionTimestamp) return "Terminating";
  const waiting = p.status?.containerStatuses?.find((c) => c.state?.waiting?.reason)?.state?.waiting?.reason;
  if (waiting) return waiting;
  return p.status?.phase ?? "Pending";
}

function podReady(p: Pod): boolean {
  return p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

/**
 * A one-line summary of a Deployment's rollout. The bar shows the new ReplicaSet's available
 * replicas against the desired count when the new ReplicaSet is known, else min(updated, available).
 */
export function deploymentSummary(d: Deployment, newRSAvailable?: number): { line: string; complete: boolean } {
  const want = d.spec?.replicas ?? 1;
  const st = d.status ?? {};
  const updated = st.updatedReplicas ?? 0;
  const available = st.availableReplicas ?? 0;
  const ready = st.readyReplicas ?? 0;
  const total = st.replicas ?? 0;
  const observed = (st.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0);
  const complete = observed && updated === want && total === want && available === want;
  const progressing = st.conditions?.find((c) => c.type === "Progressing");
  const rev = d.metadata?.annotations?.[REVISION] ?? "?";
  const updatedAvailable = newRSAvailable ?? Math.min(updated, available);
  const parts = [
    `deployment/${d.metadata?.name}`,
    `${ready}/${want} ready`,
    `rev ${rev}`,
    progressBar(updatedAvailable, want),
    complete ? "rollout complete" : progressing ? `${progressing.reason ?? ""}` : "waiting",
  ];
  if (d.spec?.paused) parts.push("(paused)");
  return { line: parts.join("  "), complete };
}

/** A one-line summary of an Application. */
export function applicationSummary(app: Application): { line: string; complete: boolean } {
  const want = app.spec?.replicas ?? 1;
  const st = app.status ?? {};
  const available = st.availableReplicas ?? 0;
  const observed = (st.observedGeneration ?? 0) >= (app.metadata?.generation ?? 0);
  const availableCond = st.conditions?.find((c) => c.type === "Available");
  const complete = observed && available === want && (st.updatedReplicas ?? 0) === want && (st.replicas ?? 0) === want && availableCond?.status === "True";
  const line = [
    `application/${app.metadata?.name}`,
    `${available}/${want} available`,
    `image ${app.spec?.image ?? "?"}`,
    progressBar(Math.min(available, st.updatedReplicas ?? 0), want),
    complete ? "converged" : (st.conditions?.find((c) => c.type === "Progressing")?.reason ?? "reconciling"),
  ].join("  ");
  return { line, complete };
}

function condition(conds: ReadonlyArray<{ type: string; status: string; reason?: string }> | undefined, type: string) {
  return conds?.find((c) => c.type === type && c.status === "True");
}

/**
 * A one-line summary of a Job: succeeded against completions as kubectl's COMPLETIONS column
 * ("2/5", or "1/1 of 3" for a Job of parallel workers without a completion count), active and
 * failed pods, and its state: Complete, Failed (with the reason), Suspended or Running.
 */
export function jobSummary(job: Job): { line: string; complete: boolean } {
  const st = job.status ?? {};
  const succeeded = st.succeeded ?? 0;
  const completions = job.spec?.completions;
  const parallelism = job.spec?.parallelism ?? 1;
  const total = completions ?? 1;
  const counts = completions !== undefined || parallelism <= 1 ? `${succeeded}/${total}` : `${succeeded}/1 of ${parallelism}`;
  const complete = condition(st.conditions, "Complete");
  const failed = condition(st.conditions, "Failed");
  const suspended = condition(st.conditions, "Suspended");
  const state = complete ? "Complete" : failed ? `Failed${failed.reason ? ` (${failed.reason})` : ""}` : suspended || job.spec?.suspend ? "Suspended" : "Running";
  const line = [`job/${job.metadata?.name}`, `${counts} succeeded`, `${st.active ?? 0} active`, `${st.failed ?? 0} failed`, progressBar(succeeded, total), state].join("  ");
  return { line, complete: complete !== undefined || failed !== undefined };
}

/** A one-line summary of a CronJob: schedule, active Jobs, the last schedule and success. */
export function cronJobSummary(cj: CronJob): { line: string; complete: boolean } {
  const st = cj.status ?? {};
  const parts = [`cronjob/${cj.metadata?.name}`, `schedule "${cj.spec?.schedule ?? ""}"${cj.spec?.timeZone ? ` ${cj.spec.timeZone}` : ""}`, `${st.active?.length ?? 0} active`];
  parts.push(`last schedule ${st.lastScheduleTime ?? "never"}`);
  if (st.lastSuccessfulTime) parts.push(`last success ${st.lastSuccessfulTime}`);
  if (cj.spec?.suspend) parts.push("(suspended)");
  return { line: parts.join("  "), complete: (st.active?.length ?? 0) === 0 };
}

/**
 * A one-line summary of a StatefulSet: ready against desired, the current revision (and the one
 * it is rolling to), a bar of updated ready replicas, and whether the rollout is complete as
 * `kubectl rollout status sts` decides it (a partitioned update: the replicas at or above the
 * partition updated).
 */
export function statefulSetSummary(sts: StatefulSet): { line: string; complete: boolean } {
  const want = sts.spec?.replicas ?? 1;
  const st = sts.status ?? { replicas: 0 };
  const ready = st.readyReplicas ?? 0;
  const updated = st.updatedReplicas ?? 0;
  const observed = (st.observedGeneration ?? 0) >= (sts.metadata?.generation ?? 0);
  const rolling = st.updateRevision !== undefined && st.currentRevision !== st.updateRevision;
  const onDelete = sts.spec?.updateStrategy?.type === "OnDelete";
  const partition = sts.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
  let complete = observed && ready === want && (st.replicas ?? 0) === want;
  if (complete && !onDelete) complete = partition > 0 ? updated >= want - partition : !rolling;
  const rev = `rev ${st.currentRevision ?? "?"}${rolling ? ` → ${st.updateRevision}` : ""}`;
  const barDone = rolling ? Math.min(updated, ready) : ready;
  const barWant = rolling && partition > 0 ? Math.max(0, want - partition) : want;
  const state = complete ? "rollout complete" : rolling ? `updating${partition > 0 ? ` (partition ${partition})` : ""}` : "waiting";
  const line = [`statefulset/${sts.metadata?.name}`, `${ready}/${want} ready`, rev, progressBar(barDone, barWant), state].join("  ");
  return { line, complete };
}

/**
 * A one-line summary of a DaemonSet, as `kubectl get ds` counts it (desired, current, ready,
 * up-to-date, available — one pod per eligible node), a bar of updated available pods and the
 * rollout's state as `kubectl rollout status ds` decides it.
 */
export function daemonSetSummary(ds: DaemonSet): { line: string; complete: boolean } {
  const st = ds.status ?? { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };
  const desired = st.desiredNumberScheduled ?? 0;
  const updated = st.updatedNumberScheduled ?? 0;
  const available = st.numberAvailable ?? 0;
  const observed = (st.observedGeneration ?? 0) >= (ds.metadata?.generation ?? 0);
  const onDelete = ds.spec?.updateStrategy?.type === "OnDelete";
  const complete = observed && (onDelete || (updated === desired && available === desired));
  const line = [
    `daemonset/${ds.metadata?.name}`,
    `desired ${desired}  current ${st.currentNumberScheduled ?? 0}  ready ${st.numberReady ?? 0}  up-to-date ${updated}  available ${available}`,
    progressBar(Math.min(updated, available), desired),
    complete ? "rollout complete" : "updating",
  ].join("  ");
  return { line, complete };
}

function byControllerUID<T extends { metadata?: { ownerReferences?: Array<{ controller?: boolean; uid: string }> } }>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const ref = getControllerOf(item as Parameters<typeof getControllerOf>[0]);
    if (!ref?.uid) continue;
    const list = out.get(ref.uid) ?? [];
    list.push(item);
    out.set(ref.uid, list);
  }
  return out;
}

const byName = (a: { metadata?: { name?: string } }, b: { metadata?: { name?: string } }) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? "");

/** The children's lines under a parent: tree branches before each child's first line. */
function nest(children: readonly string[][]): string[] {
  const out: string[] = [];
  children.forEach((child, i) => {
    const last = i === children.length - 1;
    child.forEach((l, j) => out.push(`${j === 0 ? (last ? "└─ " : "├─ ") : last ? "   " : "│  "}${l}`));
  });
  return out;
}

function podLine(p: Pod, extra: readonly string[] = []): string {
  const node = p.spec?.nodeName ?? "<unscheduled>";
  const ip = p.status?.podIP ?? "";
  return [`pod/${p.metadata?.name}`, `${podState(p)}${podReady(p) ? "  ready" : ""}`, node, ...(ip ? [ip] : []), ...extra].join("  ");
}

/** Lines of one Deployment's subtree: its summary, ReplicaSets (newest first) and their Pods. */
function deploymentLines(d: Deployment, rsByOwner: Map<string, ReplicaSet[]>, podsByOwner: Map<string, Pod[]>): string[] {
  const rss = [...(rsByOwner.get(d.metadata?.uid ?? "") ?? [])].sort(
    (a, b) => Number(b.metadata?.annotations?.[REVISION] ?? 0) - Number(a.metadata?.annotations?.[REVISION] ?? 0),
  );
  const head = deploymentSummary(d, rss.length > 0 ? (rss[0].status?.availableReplicas ?? 0) : undefined).line;
  return [
    head,
    ...nest(
      rss.map((rs, i) => {
        const want = rs.spec?.replicas ?? 0;
        const ready = rs.status?.readyReplicas ?? 0;
        const pods = [...(podsByOwner.get(rs.metadata?.uid ?? "") ?? [])].sort(byName);
        return [`replicaset/${rs.metadata?.name}  rev ${rs.metadata?.annotations?.[REVISION] ?? "?"}  ${ready}/${want} ready${i === 0 ? "  (new)" : ""}`, ...nest(pods.map((p) => [podLine(p)]))];
      }),
    ),
  ];
}

const COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";
const REVISION_HASH = "controller-revision-hash";

/** A Job and its pods (an Indexed Job's by completion index). */
function jobLines(job: Job, podsByOwner: Map<string, Pod[]>): string[] {
  const index = (p: Pod) => p.metadata?.annotations?.[COMPLETION_INDEX];
  const pods = [...(podsByOwner.get(job.metadata?.uid ?? "") ?? [])].sort((a, b) => Number(index(a) ?? 0) - Number(index(b) ?? 0) || byName(a, b));
  return [jobSummary(job).line, ...nest(pods.map((p) => [podLine(p, index(p) !== undefined ? [`index ${index(p)}`] : [])]))];
}

/** A CronJob and its Jobs, oldest first. */
function cronJobLines(cj: CronJob, jobsByOwner: Map<string, Job[]>, podsByOwner: Map<string, Pod[]>): string[] {
  const jobs = [...(jobsByOwner.get(cj.metadata?.uid ?? "") ?? [])].sort(byCreation);
  return [cronJobSummary(cj).line, ...nest(jobs.map((j) => jobLines(j, podsByOwner)))];
}

/** The pod's ordinal from its name's last dash-separated number. */
function ordinal(p: Pod): number {
  const m = /-(\d+)$/.exec(p.metadata?.name ?? "");
  return m ? Number(m[1]) : Number.MAX_SAFE_INTEGER;
}

/** A StatefulSet and its pods by ordinal, each with its revision ("old" while not the update revision). */
function statefulSetLines(sts: StatefulSet, podsByOwner: Map<string, Pod[]>): string[] {
  const pods = [...(podsByOwner.get(sts.metadata?.uid ?? "") ?? [])].sort((a, b) => ordinal(a) - ordinal(b));
  const update = sts.status?.updateRevision;
  return [
    statefulSetSummary(sts).line,
    ...nest(
      pods.map((p) => {
        const rev = p.metadata?.labels?.[REVISION_HASH];
        return [podLine(p, rev ? [`rev ${rev}${update && rev !== update ? " (old)" : ""}`] : [])];
      }),
    ),
  ];
}

/** A DaemonSet and its pods, one per node, by node name. */
function daemonSetLines(ds: DaemonSet, podsByOwner: Map<string, Pod[]>): string[] {
  const node = (p: Pod) => p.spec?.nodeName ?? "";
  const pods = [...(podsByOwner.get(ds.metadata?.uid ?? "") ?? [])].sort((a, b) => node(a).localeCompare(node(b)) || byName(a, b));
  return [daemonSetSummary(ds).line, ...nest(pods.map((p) => [podLine(p)]))];
}

function serviceLine(svc: Service, eps: Endpoints | undefined): string {
  const ports = (svc.spec?.ports ?? []).map((p) => `${p.port}/${p.protocol ?? "TCP"}`).join(",");
  const ready = (eps?.subsets ?? []).reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
  const notReady = (eps?.subsets ?? []).reduce((n, s) => n + (s.notReadyAddresses?.length ?? 0), 0);
  return `service/${svc.metadata?.name}  ${svc.spec?.type ?? "ClusterIP"} ${svc.spec?.clusterIP ?? ""}  ${ports}  endpoints: ${ready} ready${notReady ? `, ${notReady} not ready` : ""}`;
}

const byCreation = (a: { metadata?: { name?: string; creationTimestamp?: string } }, b: { metadata?: { name?: string; creationTimestamp?: string } }) =>
  (a.metadata?.creationTimestamp ?? "").localeCompare(b.metadata?.creationTimestamp ?? "") || byName(a, b);

/** Whether the object's controller is one of `owners` (by uid). */
function ownedByOneOf(obj: Parameters<typeof getControllerOf>[0], owners: ReadonlySet<string>): boolean {
  const uid = getControllerOf(obj)?.uid;
  return uid !== undefined && owners.has(uid);
}

const uids = (items: ReadonlyArray<{ metadata?: { uid?: string } }> | undefined) => new Set((items ?? []).map((i) => i.metadata?.uid ?? ""));

/**
 * The roots in order: Applications (each with its Deployment and Service), the Deployments no
 * shown Application controls, CronJobs (with their Jobs), the Jobs no shown CronJob controls,
 * StatefulSets and DaemonSets — each kind by name.
 */
function roots(input: TreeInput): Array<{ summary: () => string; lines: () => string[] }> {
  const rsByOwner = byControllerUID(input.replicaSets);
  const podsByOwner = byControllerUID(input.pods);
  const jobsByOwner = byControllerUID(input.jobs ?? []);
  const out: Array<{ summary: () => string; lines: () => string[] }> = [];
  const deployments = [...input.deployments].sort(byName);
  const appUIDs = uids(input.applications);
  if (input.applications) {
    const depsByOwner = byControllerUID(deployments);
    const svcsByOwner = byControllerUID(input.services ?? []);
    const eps = new Map((input.endpoints ?? []).map((e) => [e.metadata?.name ?? "", e]));
    for (const app of [...input.applications].sort(byName)) {
      const uid = app.metadata?.uid ?? "";
      out.push({
        summary: () => applicationSummary(app).line,
        lines: () => [
          applicationSummary(app).line,
          ...nest([
            ...(depsByOwner.get(uid) ?? []).map((d) => deploymentLines(d, rsByOwner, podsByOwner)),
            ...(svcsByOwner.get(uid) ?? []).map((svc) => [serviceLine(svc, eps.get(svc.metadata?.name ?? ""))]),
          ]),
        ],
      });
    }
  }
  for (const d of deployments) {
    if (ownedByOneOf(d, appUIDs)) continue;
    out.push({ summary: () => deploymentSummary(d).line, lines: () => deploymentLines(d, rsByOwner, podsByOwner) });
  }
  const cronJobUIDs = uids(input.cronJobs);
  for (const cj of [...(input.cronJobs ?? [])].sort(byName)) out.push({ summary: () => cronJobSummary(cj).line, lines: () => cronJobLines(cj, jobsByOwner, podsByOwner) });
  for (const job of [...(input.jobs ?? [])].sort(byName)) {
    if (ownedByOneOf(job, cronJobUIDs)) continue;
    out.push({ summary: () => jobSummary(job).line, lines: () => jobLines(job, podsByOwner) });
  }
  for (const sts of [...(input.statefulSets ?? [])].sort(byName)) out.push({ summary: () => statefulSetSummary(sts).line, lines: () => statefulSetLines(sts, podsByOwner) });
  for (const ds of [...(input.daemonSets ?? [])].sort(byName)) out.push({ summary: () => daemonSetSummary(ds).line, lines: () => daemonSetLines(ds, podsByOwner) });
  return out;
}

/** Renders the tree; `namespace` prefixes are left out (the view is per namespace). */
export function renderTree(input: TreeInput): string {
  return roots(input)
    .flatMap((r) => r.lines())
    .join("\n");
}

/** The roots' one-line summaries (what the view prints without a TTY). */
export function rootSummaries(input: TreeInput): string[] {
  return roots(input).map((r) => r.summary());
}

export interface ViewSink {
  /** A TTY: the frame is redrawn in place. */
  readonly isTTY: boolean;
  write(s: string): void;
}

/**
 * Redraws the frame in place on a TTY (moving the cursor up over the previous frame); without a
 * TTY, prints only the summary lines that changed since the last frame.
 */
export class LiveView {
  private lastLines = 0;
  private lastSummary = new Set<string>();

  constructor(private readonly sink: ViewSink) {}

  /** Draws a frame; `footer` lines follow the tree on a TTY (they are redrawn with it). */
  draw(input: TreeInput, footer: readonly string[] = []): void {
    if (this.sink.isTTY) {
      const frame = [renderTree(input), ...footer].join("\n");
      const up = this.lastLines > 0 ? `\x1b[${this.lastLines}F\x1b[J` : "";
      this.sink.write(`${up}${frame}\n`);
      this.lastLines = frame.split("\n").length;
      return;
    }
    const summaries = new Set(rootSummaries(input).map((l) => l.replace(/\[[█░]+\]\s+/, "")));
    for (const s of summaries) if (!this.lastSummary.has(s)) this.sink.write(`${s}\n`);
    this.lastSummary = summaries;
  }
}
