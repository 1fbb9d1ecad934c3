/** Namespaces, Nodes, ConfigMaps, Secrets, ServiceAccounts. */
import type { ConfigMap, Namespace, Node, Secret, ServiceAccount } from "../../apimachinery/api/core/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { CORE, ageColumn, col, colText, nameColumn } from "./columns.js";
import { translateTimestampSince } from "./duration.js";
import type { PrintContext, PrintedRow, Printer } from "./types.js";

const age = (obj: KubeObject, ctx: PrintContext) => translateTimestampSince(obj.metadata?.creationTimestamp, ctx.now);
const name = (obj: KubeObject) => obj.metadata?.name ?? "";

export const namespacePrinter = (): Printer => ({
  columns: [nameColumn(), colText("Status", "string", "The status of the namespace"), ageColumn()],
  print: (obj, ctx) => ({ cells: [name(obj), (obj as unknown as Namespace).status?.phase ?? "", age(obj, ctx)] }),
});

export const configMapPrinter = (): Printer => ({
  columns: [nameColumn(), col("Data", "string", `${CORE}.ConfigMap`, "data"), ageColumn()],
  print: (obj, ctx) => {
    const cm = obj as unknown as ConfigMap;
    return { cells: [name(obj), Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length, age(obj, ctx)] };
  },
});

export const secretPrinter = (): Printer => ({
  columns: [nameColumn(), col("Type", "string", `${CORE}.Secret`, "type"), col("Data", "string", `${CORE}.Secret`, "data"), ageColumn()],
  print: (obj, ctx) => {
    const s = obj as unknown as Secret;
    return { cells: [name(obj), s.type ?? "", Object.keys(s.data ?? {}).length, age(obj, ctx)] };
  },
});

export const serviceAccountPrinter = (): Printer => ({
  columns: [nameColumn(), col("Secrets", "string", `${CORE}.ServiceAccount`, "secrets"), ageColumn()],
  print: (obj, ctx) => ({ cells: [name(obj), ((obj as unknown as ServiceAccount).secrets ?? []).length, age(obj, ctx)] }),
});

const LABEL_NODE_ROLE_PREFIX = "node-role.kubernetes.io/";
const NODE_LABEL_ROLE = "kubernetes.io/role";

/** Roles from node-role.kubernetes.io/<role> labels and the kubernetes.io/role label, sorted. */
export function findNodeRoles(node: Node): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata?.labels ?? {})) {
    if (k.startsWith(LABEL_NODE_ROLE_PREFIX)) {
      const role = k.slice(LABEL_NODE_ROLE_PREFIX.length);
      if (role.length > 0) roles.add(role);
    } else if (k === NODE_LABEL_ROLE && v !== "") {
      roles.add(v);
    }
  }
  return [...roles].sort();
}

export function printNode(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const node = obj as unknown as Node;
  const status: string[] = [];
  const ready = (node.status?.conditions ?? []).find((c) => c.type === "Ready");
  if (ready) status.push(ready.status === "True" ? "Ready" : "NotReady");
  if (status.length === 0) status.push("Unknown");
  if (node.spec?.unschedulable) status.push("SchedulingDisabled");
  const roles = findNodeRoles(node).join(",") || "<none>";
  const info = node.status?.nodeInfo;
  const address = (type: string) => (node.status?.addresses ?? []).find((a) => a.type === type)?.address ?? "<none>";
  return {
    cells: [
      name(obj),
      status.join(","),
      roles,
      age(obj, ctx),
      info?.kubeletVersion ?? "",
      address("InternalIP"),
      address("ExternalIP"),
      info?.osImage || "<unknown>",
      info?.kernelVersion || "<unknown>",
      info?.containerRuntimeVersion || "<unknown>",
    ],
  };
}

export const nodePrinter = (): Printer => ({
  columns: [
    nameColumn(),
    colText("Status", "string", "The status of the node"),
    colText("Roles", "string", "The roles of the node"),
    ageColumn(),
    col("Version", "string", `${CORE}.NodeSystemInfo`, "kubeletVersion"),
    col("Internal-IP", "string", `${CORE}.NodeStatus`, "addresses", 1),
    col("External-IP", "string", `${CORE}.NodeStatus`, "addresses", 1),
    col("OS-Image", "string", `${CORE}.NodeSystemInfo`, "osImage", 1),
    col("Kernel-Version", "string", `${CORE}.NodeSystemInfo`, "kernelVersion", 1),
    col("Container-Runtime", "string", `${CORE}.NodeSystemInfo`, "containerRuntimeVersion", 1),
  ],
  print: printNode,
});
