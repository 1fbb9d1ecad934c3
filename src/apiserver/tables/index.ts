/**
 * Server-side printing: objects → meta.k8s.io/v1 Table with upstream's columns per built-in
 * kind (pkg/printers/internalversion), in wide form (kubectl hides priority-1 columns unless
 * `-o wide`), and the default NAME / CREATED AT table for everything else.
 */
import { realClock } from "../../apimachinery/clock.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { configMapPrinter, namespacePrinter, nodePrinter, secretPrinter, serviceAccountPrinter } from "./core.js";
import { coreEventPrinter, eventsEventPrinter } from "./events.js";
import { clusterRoleBindingTablePrinter, defaultPrinter, leasePrinter, roleBindingTablePrinter } from "./misc.js";
import { endpointsPrinter, servicePrinter } from "./network.js";
import { podPrinter } from "./pods.js";
import type { PartialObjectMetadata, Printer, Table, TableRow, ToTableOptions } from "./types.js";
import { deploymentPrinter, replicaSetPrinter } from "./workloads.js";
import { clusterAPIPrinters } from "./clusterapis.js";
// ---- workload-side resources (issue 14)
import { controllerRevisionPrinter, daemonSetPrinter, statefulSetPrinter } from "./apps.js";
import { horizontalPodAutoscalerPrinter } from "./autoscaling.js";
import { cronJobPrinter, jobPrinter } from "./batch.js";
import { componentStatusPrinter, podTemplatePrinter, replicationControllerPrinter, resourceQuotaPrinter } from "./corev1.js";
import { endpointSlicePrinter } from "./discovery.js";
import { ingressClassPrinter, ingressPrinter, ipAddressPrinter, networkPolicyPrinter, serviceCIDRPrinter } from "./ingress.js";
import { podDisruptionBudgetPrinter } from "./policy.js";
import { persistentVolumeClaimPrinter, persistentVolumePrinter } from "./volumes.js";

export type {
  IncludeObject,
  PartialObjectMetadata,
  PrintContext,
  PrintedRow,
  Printer,
  Table,
  TableColumnDefinition,
  TableRow,
  TableRowCondition,
  ToTableOptions,
} from "./types.js";
export { humanDuration, translateTimestampSince } from "./duration.js";

/** Printer factories by "group/Kind". */
const FACTORIES: Record<string, () => Printer> = {
  "/Pod": podPrinter,
  "/Service": servicePrinter,
  "/Endpoints": endpointsPrinter,
  "/Namespace": namespacePrinter,
  "/Node": nodePrinter,
  "/ConfigMap": configMapPrinter,
  "/Secret": secretPrinter,
  "/ServiceAccount": serviceAccountPrinter,
  "/Event": coreEventPrinter,
  "events.k8s.io/Event": eventsEventPrinter,
  "apps/Deployment": deploymentPrinter,
  "apps/ReplicaSet": replicaSetPrinter,
  "coordination.k8s.io/Lease": leasePrinter,
  "rbac.authorization.k8s.io/RoleBinding": roleBindingTablePrinter,
  "rbac.authorization.k8s.io/ClusterRoleBinding": clusterRoleBindingTablePrinter,
  // ---- cluster-side API groups (clusterapis.ts) ----
  ...clusterAPIPrinters,
  // ---- workload-side resources (issue 14); LimitRanges keep the default table, as upstream.
  "/ReplicationController": replicationControllerPrinter,
  "/PodTemplate": podTemplatePrinter,
  "/ResourceQuota": resourceQuotaPrinter,
  "/ComponentStatus": componentStatusPrinter,
  "/PersistentVolume": persistentVolumePrinter,
  "/PersistentVolumeClaim": persistentVolumeClaimPrinter,
  "apps/StatefulSet": statefulSetPrinter,
  "apps/DaemonSet": daemonSetPrinter,
  "apps/ControllerRevision": controllerRevisionPrinter,
  "batch/Job": jobPrinter,
  "batch/CronJob": cronJobPrinter,
  "autoscaling/HorizontalPodAutoscaler": horizontalPodAutoscalerPrinter,
  "policy/PodDisruptionBudget": podDisruptionBudgetPrinter,
  "discovery.k8s.io/EndpointSlice": endpointSlicePrinter,
  "networking.k8s.io/Ingress": ingressPrinter,
  "networking.k8s.io/IngressClass": ingressClassPrinter,
  "networking.k8s.io/NetworkPolicy": networkPolicyPrinter,
  "networking.k8s.io/IPAddress": ipAddressPrinter,
  "networking.k8s.io/ServiceCIDR": serviceCIDRPrinter,
};

const printers = new Map<string, Printer>();

/** The printer for a group/kind: upstream's columns for built-in kinds, the default table otherwise. */
export function printerFor(gk: { group: string; kind: string }): Printer {
  const key = `${gk.group}/${gk.kind}`;
  let p = printers.get(key);
  if (!p) {
    p = (FACTORIES[key] ?? defaultPrinter)();
    printers.set(key, p);
  }
  return p;
}

/**
 * Converts objects of one group/kind to a Table. Row objects are PartialObjectMetadata (the
 * default, "Metadata"), the full object ("Object") or absent ("None"). `metadata` (list
 * resourceVersion / continue) is left for the caller to fill.
 */
export function toTable(gk: { group: string; kind: string }, objects: KubeObject[], opts: ToTableOptions = {}): Table {
  const printer = printerFor(gk);
  const ctx = { now: opts.now ?? realClock.now(), wide: true };
  const include = opts.includeObject ?? "Metadata";
  const rows = (printer.order ? printer.order(objects) : objects).map((obj): TableRow => {
    const printed = printer.print(obj, ctx);
    const row: TableRow = { cells: printed.cells };
    if (printed.conditions) row.conditions = printed.conditions.map((c) => ({ ...c }));
    if (include === "Metadata") {
      const partial: PartialObjectMetadata = { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: obj.metadata ?? {} };
      row.object = partial;
    } else if (include === "Object") {
      row.object = obj;
    }
    return row;
  });
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: {},
    columnDefinitions: printer.columns.map((c) => ({ ...c })),
    rows,
  };
}
