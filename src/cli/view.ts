/**
 * The live view of `kubeloop up`: the object tree (Deployment → ReplicaSets → Pods) with ready
 * counts and a progress bar per rollout, redrawn in place on a TTY and reduced to one log line
 * per change otherwise. `renderTree` is a pure function of the cached objects, so it is tested
 * without a terminal.
 */
import type { Deployment, ReplicaSet } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { getControllerOf } from "../apimachinery/ownerrefs.js";

export interface TreeInput {
  deployments: readonly Deployment[];
  replicaSets: readonly ReplicaSet[];
  pods: readonly Pod[];
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

/** Renders the tree; `namespace` prefixes are left out (the view is per namespace). */
export function renderTree(input: TreeInput): string {
  const lines: string[] = [];
  const byOwner = new Map<string, ReplicaSet[]>();
  for (const rs of input.replicaSets) {
    const ref = getControllerOf(rs);
    if (!ref?.uid) continue;
    const list = byOwner.get(ref.uid) ?? [];
    list.push(rs);
    byOwner.set(ref.uid, list);
  }
  const podsByOwner = new Map<string, Pod[]>();
  for (const p of input.pods) {
    const ref = getControllerOf(p);
    if (!ref?.uid) continue;
    const list = podsByOwner.get(ref.uid) ?? [];
    list.push(p);
    podsByOwner.set(ref.uid, list);
  }
  const deployments = [...input.deployments].sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
  for (const d of deployments) {
    const rss = (byOwner.get(d.metadata?.uid ?? "") ?? []).sort(
      (a, b) => Number(b.metadata?.annotations?.[REVISION] ?? 0) - Number(a.metadata?.annotations?.[REVISION] ?? 0),
    );
    lines.push(deploymentSummary(d, rss.length > 0 ? (rss[0].status?.availableReplicas ?? 0) : undefined).line);
    rss.forEach((rs, i) => {
      const lastRs = i === rss.length - 1;
      const want = rs.spec?.replicas ?? 0;
      const ready = rs.status?.readyReplicas ?? 0;
      const isNew = i === 0;
      lines.push(
        `${lastRs ? "└─" : "├─"} replicaset/${rs.metadata?.name}  rev ${rs.metadata?.annotations?.[REVISION] ?? "?"}  ${ready}/${want} ready${isNew ? "  (new)" : ""}`,
      );
      const pods = (podsByOwner.get(rs.metadata?.uid ?? "") ?? []).sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
      pods.forEach((p, j) => {
        const lastPod = j === pods.length - 1;
        const indent = lastRs ? "   " : "│  ";
        const node = p.spec?.nodeName ?? "<unscheduled>";
        const ip = p.status?.podIP ?? "";
        lines.push(`${indent}${lastPod ? "└─" : "├─"} pod/${p.metadata?.name}  ${podState(p)}${podReady(p) ? "  ready" : ""}  ${node}${ip ? `  ${ip}` : ""}`.trimEnd());
      });
    });
  }
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
    const summaries = new Set(input.deployments.map((d) => deploymentSummary(d).line.replace(/\[[█░]+\]\s+/, "")));
    for (const s of summaries) if (!this.lastSummary.has(s)) this.sink.write(`${s}\n`);
    this.lastSummary = summaries;
  }
}
