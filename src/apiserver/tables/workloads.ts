/** Deployments and ReplicaSets. */
import type { Deployment, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { APPS, CONTAINERS_COLUMN, IMAGES_COLUMN, ageColumn, col, colText, nameColumn } from "./columns.js";
import { translateTimestampSince } from "./duration.js";
import { formatLabelSelector, labelSelectorString, layoutContainerCells } from "./format.js";
import type { PrintContext, PrintedRow, Printer } from "./types.js";

export function printDeployment(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const d = obj as unknown as Deployment;
  const desired = d.spec?.replicas ?? 0;
  const status = d.status ?? {};
  const [names, images] = layoutContainerCells(d.spec?.template?.spec?.containers);
  return {
    cells: [
      d.metadata?.name ?? "",
      `${status.readyReplicas ?? 0}/${desired}`,
      status.updatedReplicas ?? 0,
      status.availableReplicas ?? 0,
      translateTimestampSince(d.metadata?.creationTimestamp, ctx.now),
      names,
      images,
      labelSelectorString(d.spec?.selector) ?? "<error>",
    ],
  };
}

export const deploymentPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    colText("Ready", "string", "Number of the pod with ready state"),
    col("Up-to-date", "string", `${APPS}.DeploymentStatus`, "updatedReplicas"),
    col("Available", "string", `${APPS}.DeploymentStatus`, "availableReplicas"),
    ageColumn(),
    CONTAINERS_COLUMN(),
    IMAGES_COLUMN(),
    col("Selector", "string", `${APPS}.DeploymentSpec`, "selector", 1),
  ],
  print: printDeployment,
});

export function printReplicaSet(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const rs = obj as unknown as ReplicaSet;
  const [names, images] = layoutContainerCells(rs.spec?.template?.spec?.containers);
  return {
    cells: [
      rs.metadata?.name ?? "",
      rs.spec?.replicas ?? 0,
      rs.status?.replicas ?? 0,
      rs.status?.readyReplicas ?? 0,
      translateTimestampSince(rs.metadata?.creationTimestamp, ctx.now),
      names,
      images,
      formatLabelSelector(rs.spec?.selector),
    ],
  };
}

export const replicaSetPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    col("Desired", "integer", `${APPS}.ReplicaSetSpec`, "replicas"),
    col("Current", "integer", `${APPS}.ReplicaSetStatus`, "replicas"),
    col("Ready", "integer", `${APPS}.ReplicaSetStatus`, "readyReplicas"),
    ageColumn(),
    CONTAINERS_COLUMN(),
    IMAGES_COLUMN(),
    col("Selector", "string", `${APPS}.ReplicaSetSpec`, "selector", 1),
  ],
  print: printReplicaSet,
});
