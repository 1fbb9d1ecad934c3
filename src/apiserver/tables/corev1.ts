/** ReplicationControllers, PodTemplates, ResourceQuotas and ComponentStatuses. */
import type { ComponentStatus, PodTemplate, ReplicationController, ResourceQuota } from "../../apimachinery/api/core/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { CONTAINERS_COLUMN, CORE, IMAGES_COLUMN, ageColumn, col, colText, nameColumn } from "./columns.js";
import { translateTimestampSince } from "./duration.js";
import { formatLabels, layoutContainerCells } from "./format.js";
import type { PrintContext, PrintedRow, Printer } from "./types.js";

export function printReplicationController(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const rc = obj as unknown as ReplicationController;
  const [names, images] = layoutContainerCells(rc.spec?.template?.spec?.containers);
  return {
    cells: [
      rc.metadata?.name ?? "",
      rc.spec?.replicas ?? 0,
      rc.status?.replicas ?? 0,
      rc.status?.readyReplicas ?? 0,
      translateTimestampSince(rc.metadata?.creationTimestamp, ctx.now),
      names,
      images,
      formatLabels(rc.spec?.selector),
    ],
  };
}

export const replicationControllerPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    col("Desired", "integer", `${CORE}.ReplicationControllerSpec`, "replicas"),
    col("Current", "integer", `${CORE}.ReplicationControllerStatus`, "replicas"),
    col("Ready", "integer", `${CORE}.ReplicationControllerStatus`, "readyReplicas"),
    ageColumn(),
    CONTAINERS_COLUMN(),
    IMAGES_COLUMN(),
    col("Selector", "string", `${CORE}.ReplicationControllerSpec`, "selector", 1),
  ],
  print: printReplicationController,
});

export function printPodTemplate(obj: KubeObject): PrintedRow {
  const t = obj as unknown as PodTemplate;
  const [names, images] = layoutContainerCells(t.template?.spec?.containers);
  return { cells: [t.metadata?.name ?? "", names, images, formatLabels(t.template?.metadata?.labels)] };
}

export const podTemplatePrinter = (): Printer => ({
  columns: [
    nameColumn(),
    colText("Containers", "string", "Names of each container in the template."),
    colText("Images", "string", "Images referenced by each container in the template."),
    colText("Pod Labels", "string", "The labels for the pod template."),
  ],
  print: printPodTemplate,
});

/** AGE comes second; then "name: used/hard" pairs, requests and limits apart (resource names sorted; quantities as stored). */
export function printResourceQuota(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const rq = obj as unknown as ResourceQuota;
  const hard = rq.status?.hard ?? {};
  const used = rq.status?.used ?? {};
  const requests: string[] = [];
  const limits: string[] = [];
  for (const r of Object.keys(hard).sort()) {
    const entry = `${r}: ${used[r] ?? "0"}/${hard[r]}`;
    const pieces = r.split(".");
    if (pieces.length > 1 && pieces[0] === "limits") limits.push(entry);
    else requests.push(entry);
  }
  return { cells: [rq.metadata?.name ?? "", translateTimestampSince(rq.metadata?.creationTimestamp, ctx.now), requests.join(", "), limits.join(", ")] };
}

export const resourceQuotaPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    ageColumn(),
    colText("Request", "string", "Request represents a minimum amount of cpu/memory that a container may consume."),
    colText("Limit", "string", "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."),
  ],
  print: printResourceQuota,
});

export function printComponentStatus(obj: KubeObject): PrintedRow {
  const cs = obj as unknown as ComponentStatus;
  let status = "Unknown";
  let message = "";
  let error = "";
  const c = (cs.conditions ?? []).find((x) => x.type === "Healthy");
  if (c) {
    status = c.status === "True" ? "Healthy" : "Unhealthy";
    message = c.message ?? "";
    error = c.error ?? "";
  }
  return { cells: [cs.metadata?.name ?? "", status, message, error] };
}

export const componentStatusPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    colText("Status", "string", "Status of the component conditions"),
    colText("Message", "string", "Message of the component conditions"),
    colText("Error", "string", "Error of the component conditions"),
  ],
  print: printComponentStatus,
});
