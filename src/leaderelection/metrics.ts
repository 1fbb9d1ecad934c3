/**
 * client-go's leader-election metric (tools/leaderelection/metrics.go, as controller-runtime
 * registers it): `leader_election_master_status{name}` — 1 while this process holds the lease
 * `name`, 0 while it is a candidate or after it stopped leading.
 */
import { Gauge, register as globalRegistry } from "prom-client";
import type { Registry } from "prom-client";

export const leaderElectionMetricName = "leader_election_master_status";

/** What the elector reports; `on` when it starts leading, `off` when it is not (or no longer) leader. */
export interface LeaderElectionMetrics {
  on(): void;
  off(): void;
}

const gauges = new WeakMap<Registry, Gauge<"name">>();

/** The metric of lease `name` in `registry` (the gauge is registered once per registry). */
export function leaderElectionMetrics(registry: Registry = globalRegistry, name: string): LeaderElectionMetrics {
  let g = gauges.get(registry);
  if (!g) {
    g = new Gauge({
      name: leaderElectionMetricName,
      help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
      labelNames: ["name"] as const,
      registers: [registry],
    });
    gauges.set(registry, g);
  }
  const child = g.labels({ name });
  return { on: () => child.set(1), off: () => child.set(0) };
}
