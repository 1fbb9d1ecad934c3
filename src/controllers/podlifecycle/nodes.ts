/**
 * The simulated nodes: what a kubelet registers (a Node with addresses, capacity, conditions and
 * nodeInfo) and the heartbeat objects it renews (its Lease in kube-node-lease, and the Ready
 * condition's lastHeartbeatTime).
 *
 * A node is the simulator's when it carries the annotation `kubeloop.dev/simulated: "true"`; the
 * simulator never touches other nodes nor the pods on them, so it can run beside real kubelets.
 */
import type { Lease } from "../../apimachinery/api/coordination/v1.js";
import type { Node, NodeCondition, NodeStatus } from "../../apimachinery/api/core/v1.js";
import { formatMicroTime, formatTime } from "../../apimachinery/time.js";

export const SIMULATED_ANNOTATION = "kubeloop.dev/simulated";
/**
 * `sim.kubeloop.dev/heartbeat: "stopped"` on a simulated Node stops its kubelet: no Lease
 * renewals, no node status (the Ready condition is not repaired), and the pods placed there are
 * left as they are (no status changes, graceful deletions not finished) — a node whose kubelet
 * died. The node lifecycle controller then marks it Unknown after its grace period and taints
 * it; taint eviction deletes its pods. Removing the annotation (or any other value) restarts it.
 *
 *   kubectl annotate node kubeloop-node-1 sim.kubeloop.dev/heartbeat=stopped
 *   kubectl annotate node kubeloop-node-1 sim.kubeloop.dev/heartbeat-
 */
export const HEARTBEAT_ANNOTATION = "sim.kubeloop.dev/heartbeat";
export const HEARTBEAT_STOPPED = "stopped";
export const NODE_LEASE_NAMESPACE = "kube-node-lease";
/** The kubelet's default node lease duration (seconds). */
export const NODE_LEASE_DURATION_SECONDS = 40;
export const DEFAULT_NODE_PREFIX = "kubeloop-node-";
export const KUBELET_VERSION = "v1.35.0-kubeloop";

export interface NodeCapacity {
  cpu: string;
  memory: string;
  pods: string;
}

export const DEFAULT_NODE_CAPACITY: Readonly<NodeCapacity> = Object.freeze({ cpu: "4", memory: "8Gi", pods: "110" });


export function isSimulatedNode(node: Node | undefined): boolean {
  return node?.metadata?.annotations?.[SIMULATED_ANNOTATION] === "true";
}

/** Whether the node's simulated kubelet is stopped (HEARTBEAT_ANNOTATION). */
export function heartbeatStopped(node: Node | undefined): boolean {
  return node?.metadata?.annotations?.[HEARTBEAT_ANNOTATION] === HEARTBEAT_STOPPED;
}

/** The node's InternalIP: 172.18.0.<index+1>. */
export function nodeInternalIP(index: number): string {
  return `172.18.0.${index + 1}`;
}

function readyConditions(nowMs: number, previous?: readonly NodeCondition[]): NodeCondition[] {
  const t = formatTime(nowMs);
  const want: Array<[string, string, string, string]> = [
    ["MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"],
    ["DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"],
    ["PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"],
    ["Ready", "True", "KubeletReady", "kubelet is posting ready status"],
  ];
  return want.map(([type, status, reason, message]) => {
    const prev = previous?.find((c) => c.type === type);
    const since = prev && prev.status === status ? (prev.lastTransitionTime ?? t) : t;
    return { type, status, reason, message, lastHeartbeatTime: t, lastTransitionTime: since };
  });
}

/** The status a healthy simulated node reports, keeping transition times of unchanged conditions. */
export function nodeStatus(name: string, index: number, capacity: NodeCapacity, nowMs: number, previous?: NodeStatus): NodeStatus {
  const cap = { cpu: capacity.cpu, memory: capacity.memory, pods: capacity.pods };
  return {
    capacity: cap,
    allocatable: { ...cap },
    conditions: readyConditions(nowMs, previous?.conditions),
    addresses: [
      { type: "InternalIP", address: nodeInternalIP(index) },
      { type: "Hostname", address: name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: `kubeloop${String(index).padStart(24, "0")}`,
      systemUUID: `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`,
      bootID: `00000000-0000-4000-9000-${String(index).padStart(12, "0")}`,
      kernelVersion: "6.1.0-kubeloop",
      osImage: "kubeloop simulated node",
      containerRuntimeVersion: "kubeloop://1.0.0",
      kubeletVersion: KUBELET_VERSION,
      kubeProxyVersion: "",
      operatingSystem: "linux",
      architecture: "amd64",
    },
  };
}

/** The Node a simulated kubelet registers with. `index` is 0-based; names count from 1. */
export function buildNode(name: string, index: number, capacity: NodeCapacity, nowMs: number): Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "node.kubernetes.io/instance-type": "kubeloop",
        type: "kubeloop",
      },
      annotations: { [SIMULATED_ANNOTATION]: "true", "node.alpha.kubernetes.io/ttl": "0" },
    },
    spec: { podCIDR: `10.244.${index + 1}.0/24`, podCIDRs: [`10.244.${index + 1}.0/24`] },
    status: nodeStatus(name, index, capacity, nowMs),
  };
}

/**
 * Whether a simulated node's status needs rewriting: not Ready, or capacity/allocatable differing
 * from what the simulator offers.
 */
export function nodeNeedsRepair(node: Node, capacity: NodeCapacity): boolean {
  const ready = node.status?.conditions?.find((c) => c.type === "Ready");
  if (ready?.status !== "True") return true;
  for (const field of ["capacity", "allocatable"] as const) {
    const have = node.status?.[field] ?? {};
    if (have.cpu !== capacity.cpu || have.memory !== capacity.memory || have.pods !== capacity.pods) return true;
  }
  return false;
}

/** The node's heartbeat Lease, owned by the node so it goes away with it. */
export function buildLease(node: Node, nowMs: number): Lease {
  const name = node.metadata?.name ?? "";
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: {
      name,
      namespace: NODE_LEASE_NAMESPACE,
      ...(node.metadata?.uid ? { ownerReferences: [{ apiVersion: "v1", kind: "Node", name, uid: node.metadata.uid }] } : {}),
    },
    spec: { holderIdentity: name, leaseDurationSeconds: NODE_LEASE_DURATION_SECONDS, renewTime: formatMicroTime(nowMs) },
  };
}
