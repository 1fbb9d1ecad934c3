/**
 * Zones and their states, as upstream's node lifecycle controller computes them.
 *
 * A node's zone key is k8s.io/component-helpers/node/topology GetZoneKey: region and zone from
 * `topology.kubernetes.io/region` / `topology.kubernetes.io/zone` (the deprecated
 * `failure-domain.beta.kubernetes.io/*` labels when the stable ones are absent), joined as
 * `region + ":\0:" + zone`; "" when the node has neither (every unlabelled node shares one zone).
 *
 * Zone states (ComputeZoneState) over the Ready conditions of a zone's nodes, a missing
 * condition counting as not ready:
 *
 * | state             | when                                                               |
 * |-------------------|--------------------------------------------------------------------|
 * | Initial           | the zone was just seen (set by the controller, never computed)     |
 * | FullDisruption    | no node Ready and at least one not Ready                           |
 * | PartialDisruption | more than 2 not Ready and not-ready share ≥ unhealthyZoneThreshold |
 * | Normal            | otherwise                                                          |
 */
import type { Node, NodeCondition } from "../../apimachinery/api/core/v1.js";

export const LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone";
export const LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region";
export const LABEL_FAILURE_DOMAIN_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone";
export const LABEL_FAILURE_DOMAIN_BETA_REGION = "failure-domain.beta.kubernetes.io/region";
/** A node with this label (any value) is left out of the zone state computation. */
export const LABEL_NODE_EXCLUDE_DISRUPTION = "node.kubernetes.io/exclude-disruption";

/** --node-eviction-rate. */
export const DEFAULT_NODE_EVICTION_RATE = 0.1;
/** --secondary-node-eviction-rate. */
export const DEFAULT_SECONDARY_NODE_EVICTION_RATE = 0.01;
/** --large-cluster-size-threshold. */
export const DEFAULT_LARGE_CLUSTER_SIZE_THRESHOLD = 50;
/** --unhealthy-zone-threshold. */
export const DEFAULT_UNHEALTHY_ZONE_THRESHOLD = 0.55;

export type ZoneState = "Initial" | "Normal" | "PartialDisruption" | "FullDisruption";

/** GetZoneKey: "" for a node with no region or zone label. */
export function zoneKey(node: Node): string {
  const labels = node.metadata?.labels ?? {};
  const zone = labels[LABEL_TOPOLOGY_ZONE] ?? labels[LABEL_FAILURE_DOMAIN_BETA_ZONE] ?? "";
  const region = labels[LABEL_TOPOLOGY_REGION] ?? labels[LABEL_FAILURE_DOMAIN_BETA_REGION] ?? "";
  if (region === "" && zone === "") return "";
  return `${region}:\0:${zone}`;
}

/** The zone key of a region and zone (upstream's testutil.CreateZoneID). */
export function zoneID(region: string, zone: string): string {
  return `${region}:\0:${zone}`;
}

/** A zone key as people read it: "region/zone", or "" for the unlabelled zone. */
export function zoneDisplayName(key: string): string {
  return key.replace(":\0:", "/");
}

export function isExcludedFromDisruptionChecks(node: Node): boolean {
  return node.metadata?.labels?.[LABEL_NODE_EXCLUDE_DISRUPTION] !== undefined;
}

/** ComputeZoneState: how many nodes are not Ready, and the zone's state. */
export function computeZoneState(readyConditions: ReadonlyArray<NodeCondition | undefined>, unhealthyZoneThreshold: number): { notReady: number; state: ZoneState } {
  let ready = 0;
  let notReady = 0;
  for (const c of readyConditions) {
    if (c?.status === "True") ready++;
    else notReady++;
  }
  if (ready === 0 && notReady > 0) return { notReady, state: "FullDisruption" };
  if (notReady > 2 && notReady / (notReady + ready) >= unhealthyZoneThreshold) return { notReady, state: "PartialDisruption" };
  return { notReady, state: "Normal" };
}

export interface EvictionRates {
  nodeEvictionRate: number;
  secondaryNodeEvictionRate: number;
  largeClusterSizeThreshold: number;
}

/**
 * The tainting rate a zone of `zoneSize` nodes gets in `state` (setLimiterInZone with
 * ReducedQPSFunc for PartialDisruption and HealthyQPSFunc for FullDisruption): the secondary
 * rate in a partially disrupted zone larger than the threshold, 0 (stop) in a smaller one.
 */
export function zoneEvictionRate(state: ZoneState, zoneSize: number, rates: EvictionRates): number {
  switch (state) {
    case "PartialDisruption":
      return zoneSize > rates.largeClusterSizeThreshold ? rates.secondaryNodeEvictionRate : 0;
    case "Normal":
    case "FullDisruption":
    case "Initial":
      return rates.nodeEvictionRate;
  }
}
