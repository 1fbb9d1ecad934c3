/**
 * metrics.k8s.io/v1beta1 PodMetrics and NodeMetrics: resources without storage, computed from a
 * ResourceMetricsSource on every read (core/resourcemetrics.ts). Their strategies carry the names
 * and verbs metrics-server's discovery lists (get and list; no singular name, no short names).
 */
import { nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import type { ResourceStrategy } from "./strategy.js";

const names = (kind: string, resource: string, namespaced: boolean) => ({
  group: "metrics.k8s.io",
  version: "v1beta1",
  kind,
  resource,
  singular: "",
  listKind: `${kind}List`,
  shortNames: [],
  categories: [],
  namespaced,
});

export const podMetricsStrategy: ResourceStrategy = defineStrategy({ names: names("PodMetrics", "pods", true), verbs: ["get", "list"], nameFn: nameIsDNSSubdomain });

export const nodeMetricsStrategy: ResourceStrategy = defineStrategy({ names: names("NodeMetrics", "nodes", false), verbs: ["get", "list"], nameFn: nameIsDNSSubdomain });

/** Both, in metrics-server's discovery order. */
export const resourceMetricsStrategies: readonly ResourceStrategy[] = [nodeMetricsStrategy, podMetricsStrategy];
