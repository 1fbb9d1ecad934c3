/**
 * The node lifecycle controller's metrics (upstream pkg/controller/nodelifecycle/metrics.go,
 * subsystem node_collector), created once per registry. The `zone` label is zoneDisplayName's
 * "region/zone" ("" for unlabelled nodes).
 */
import { Counter, Gauge } from "prom-client";
import type { Registry } from "prom-client";

export interface NodeLifecycleMetrics {
  zoneHealth: Gauge<"zone">;
  zoneSize: Gauge<"zone">;
  unhealthyNodes: Gauge<"zone">;
  evictionsTotal: Counter<"zone">;
}

const byRegistry = new WeakMap<Registry, NodeLifecycleMetrics>();

export function nodeLifecycleMetrics(registry: Registry): NodeLifecycleMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const labelNames = ["zone"] as const;
  const m: NodeLifecycleMetrics = {
    zoneHealth: new Gauge({ name: "node_collector_zone_health", help: "Gauge measuring percentage of healthy nodes per zone.", labelNames, registers }),
    zoneSize: new Gauge({ name: "node_collector_zone_size", help: "Gauge measuring number of registered Nodes per zones.", labelNames, registers }),
    unhealthyNodes: new Gauge({ name: "node_collector_unhealthy_nodes_in_zone", help: "Gauge measuring number of not Ready Nodes per zones.", labelNames, registers }),
    evictionsTotal: new Counter({
      name: "node_collector_evictions_total",
      help: "Number of Node evictions that happened since current instance of NodeController started.",
      labelNames,
      registers,
    }),
  };
  byRegistry.set(registry, m);
  return m;
}
