/** StatefulSets, DaemonSets and ControllerRevisions (the apps/v1 kinds beyond Deployments and ReplicaSets). */
import type { ControllerRevision, DaemonSet, StatefulSet } from "../../apimachinery/api/apps/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { APPS, CONTAINERS_COLUMN, CORE, IMAGES_COLUMN, ageColumn, col, colText, nameColumn } from "./columns.js";
import { translateTimestampSince } from "./duration.js";
import { formatLabelSelector, formatLabels, layoutContainerCells } from "./format.js";
import type { PrintContext, PrintedRow, Printer } from "./types.js";

export function printStatefulSet(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const s = obj as unknown as StatefulSet;
  const [names, images] = layoutContainerCells(s.spec?.template?.spec?.containers);
  return {
    cells: [
      s.metadata?.name ?? "",
      `${s.status?.readyReplicas ?? 0}/${s.spec?.replicas ?? 0}`,
      translateTimestampSince(s.metadata?.creationTimestamp, ctx.now),
      names,
      images,
    ],
  };
}

export const statefulSetPrinter = (): Printer => ({
  columns: [nameColumn(), colText("Ready", "string", "Number of the pod with ready state"), ageColumn(), CONTAINERS_COLUMN(), IMAGES_COLUMN()],
  print: printStatefulSet,
});

export function printDaemonSet(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const d = obj as unknown as DaemonSet;
  const st = d.status;
  const [names, images] = layoutContainerCells(d.spec?.template?.spec?.containers);
  return {
    cells: [
      d.metadata?.name ?? "",
      st?.desiredNumberScheduled ?? 0,
      st?.currentNumberScheduled ?? 0,
      st?.numberReady ?? 0,
      st?.updatedNumberScheduled ?? 0,
      st?.numberAvailable ?? 0,
      formatLabels(d.spec?.template?.spec?.nodeSelector),
      translateTimestampSince(d.metadata?.creationTimestamp, ctx.now),
      names,
      images,
      formatLabelSelector(d.spec?.selector),
    ],
  };
}

export const daemonSetPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    col("Desired", "integer", `${APPS}.DaemonSetStatus`, "desiredNumberScheduled"),
    col("Current", "integer", `${APPS}.DaemonSetStatus`, "currentNumberScheduled"),
    col("Ready", "integer", `${APPS}.DaemonSetStatus`, "numberReady"),
    col("Up-to-date", "integer", `${APPS}.DaemonSetStatus`, "updatedNumberScheduled"),
    col("Available", "integer", `${APPS}.DaemonSetStatus`, "numberAvailable"),
    col("Node Selector", "string", `${CORE}.PodSpec`, "nodeSelector"),
    ageColumn(),
    CONTAINERS_COLUMN(),
    IMAGES_COLUMN(),
    col("Selector", "string", `${APPS}.DaemonSetSpec`, "selector", 1),
  ],
  print: printDaemonSet,
});

/** The controller of a revision as "<kind>.<group>/<name>" in lower case, "<none>" without one. */
function controllerName(obj: KubeObject): string {
  const ref = (obj.metadata?.ownerReferences ?? []).find((r) => r.controller === true);
  if (!ref) return "<none>";
  const slash = (ref.apiVersion ?? "").indexOf("/");
  const group = slash < 0 ? "" : ref.apiVersion.slice(0, slash);
  const gk = group === "" ? ref.kind : `${ref.kind}.${group}`;
  return gk === "" ? ref.name : `${gk.toLowerCase()}/${ref.name}`;
}

export function printControllerRevision(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const r = obj as unknown as ControllerRevision;
  return { cells: [r.metadata?.name ?? "", controllerName(obj), r.revision ?? 0, translateTimestampSince(r.metadata?.creationTimestamp, ctx.now)] };
}

export const controllerRevisionPrinter = (): Printer => ({
  columns: [nameColumn(), colText("Controller", "string", "Controller of the object"), col("Revision", "string", `${APPS}.ControllerRevision`, "revision"), ageColumn()],
  print: printControllerRevision,
});
