/**
 * The live view of `kubeloop up`: the object tree (Deployment → ReplicaSets → Pods) with ready
 * counts and a progress bar per rollout, redrawn in place on a TTY and reduced to one log line
 * per change otherwise. `renderTree` is a pure function of the cached objects, so it is tested
 * without a terminal.
 */
import type { Deployment, ReplicaSet } from "../apimachinery/api/apps/v1.js";
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

/** Lines of one Deployment's subtree: its summary, ReplicaSets (newest first) and their Pods. */
function deploymentLines(d: Deployment, rsByOwner: Map<string, ReplicaSet[]>, podsByOwner: Map<string, Pod[]>): string[] {
  const lines: string[] = [];
  const rss = [...(rsByOwner.get(d.metadata?.uid ?? "") ?? [])].sort(
    (a, b) => Number(b.metadata?.annotations?.[REVISION] ?? 0) - Number(a.metadata?.annotations?.[REVISION] ?? 0),
  );
  lines.push(deploymentSummary(d, rss.length > 0 ? (rss[0].status?.availableReplicas ?? 0) : undefined).line);
  rss.forEach((rs, i) => {
    const lastRs = i === rss.length - 1;
    const want = rs.spec?.replicas ?? 0;
    const ready = rs.status?.readyReplicas ?? 0;
    lines.push(
      `${lastRs ? "└─" : "├─"} replicaset/${rs.metadata?.name}  rev ${rs.metadata?.annotations?.[REVISION] ?? "?"}  ${ready}/${want} ready${i === 0 ? "  (new)" : ""}`,
    );
    const pods = [...(podsByOwner.get(rs.metadata?.uid ?? "") ?? [])].sort(byName);
    pods.forEach((p, j) => {
      const indent = lastRs ? "   " : "│  ";
      const node = p.spec?.nodeName ?? "<unscheduled>";
      const ip = p.status?.podIP ?? "";
      lines.push(`${indent}${j === pods.length - 1 ? "└─" : "├─"} pod/${p.metadata?.name}  ${podState(p)}${podReady(p) ? "  ready" : ""}  ${node}${ip ? `  ${ip}` : ""}`.trimEnd());
    });
  });
  return lines;
}

function serviceLine(svc: Service, eps: Endpoints | undefined): string {
  const ports = (svc.spec?.ports ?? []).map((p) => `${p.port}/${p.protocol ?? "TCP"}`).join(",");
  const ready = (eps?.subsets ?? []).reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
  const notReady = (eps?.subsets ?? []).reduce((n, s) => n + (s.notReadyAddresses?.length ?? 0), 0);
  return `service/${svc.metadata?.name}  ${svc.spec?.type ?? "ClusterIP"} ${svc.spec?.clusterIP ?? ""}  ${ports}  endpoints: ${ready} ready${notReady ? `, ${notReady} not ready` : ""}`;
}

/** Renders the tree; `namespace` prefixes are left out (the view is per namespace). */
export function renderTree(input: TreeInput): string {
  const lines: string[] = [];
  const rsByOwner = byControllerUID(input.replicaSets);
  const podsByOwner = byControllerUID(input.pods);
  const deployments = [...input.deployments].sort(byName);
  if (input.applications) {
    const depsByOwner = byControllerUID(deployments);
    const svcsByOwner = byControllerUID(input.services ?? []);
    const eps = new Map((input.endpoints ?? []).map((e) => [e.metadata?.name ?? "", e]));
    for (const app of [...input.applications].sort(byName)) {
      lines.push(applicationSummary(app).line);
      const children: string[][] = [];
      for (const d of depsByOwner.get(app.metadata?.uid ?? "") ?? []) children.push(deploymentLines(d, rsByOwner, podsByOwner));
      for (const svc of svcsByOwner.get(app.metadata?.uid ?? "") ?? []) children.push([serviceLine(svc, eps.get(svc.metadata?.name ?? ""))]);
      children.forEach((child, i) => {
        const last = i === children.length - 1;
        child.forEach((l, j) => lines.push(`${j === 0 ? (last ? "└─ " : "├─ ") : last ? "   " : "│  "}${l}`));
      });
    }
    return lines.join("\n");
  }
  for (const d of deployments) lines.push(...deploymentLines(d, rsByOwner, podsByOwner));
  return lines.join("\n");
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
    const roots = input.applications ? input.applications.map((a) => applicationSummary(a).line) : input.deployments.map((d) => deploymentSummary(d).line);
    const summaries = new Set(roots.map((l) => l.replace(/\[[█░]+\]\s+/, "")));
    for (const s of summaries) if (!this.lastSummary.has(s)) this.sink.write(`${s}\n`);
    this.lastSummary = summaries;
  }
}
