/**
 * The API Priority and Fairness objects a fresh kube-apiserver 1.36 has
 * (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go): the mandatory "exempt" and
 * "catch-all" FlowSchemas and PriorityLevelConfigurations, and the suggested ones (system,
 * node-high, leader-election, workload-high, workload-low, global-default and the schemas that
 * route to them). Every object carries apf.kubernetes.io/autoupdate-spec: "true", which lets the
 * server keep its spec current. The specs are written already defaulted, as upstream's are.
 */
import type { KubeObject } from "../../apimachinery/types.js";

export const autoUpdateAnnotation = "apf.kubernetes.io/autoupdate-spec";
const apiVersion = "flowcontrol.apiserver.k8s.io/v1";

type Subject = { kind: "Group"; group: { name: string } } | { kind: "User"; user: { name: string } } | { kind: "ServiceAccount"; serviceAccount: { name: string; namespace: string } };

const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: "Group", group: { name } }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: "User", user: { name } }));
const kubeSystemServiceAccounts = (): Subject[] => [{ kind: "ServiceAccount", serviceAccount: { name: "*", namespace: "kube-system" } }];

const resourceRule = (verbs: string[], apiGroups: string[], resources: string[], namespaces: string[], clusterScope: boolean) => ({
  verbs,
  apiGroups,
  resources,
  ...(clusterScope ? { clusterScope: true } : {}),
  namespaces,
});
const allResources = () => resourceRule(["*"], ["*"], ["*"], ["*"], true);
const allNonResources = () => ({ verbs: ["*"], nonResourceURLs: ["*"] });

function flowSchema(name: string, pl: string, matchingPrecedence: number, distinguisher: "ByUser" | "ByNamespace" | "", rules: object[]): KubeObject {
  return {
    apiVersion,
    kind: "FlowSchema",
    metadata: { name, annotations: { [autoUpdateAnnotation]: "true" } },
    spec: {
      priorityLevelConfiguration: { name: pl },
      matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules,
    },
  };
}

function limited(name: string, shares: number, lendablePercent: number, queuing?: { queues: number; handSize: number; queueLengthLimit: number }): KubeObject {
  return {
    apiVersion,
    kind: "PriorityLevelConfiguration",
    metadata: { name, annotations: { [autoUpdateAnnotation]: "true" } },
    spec: {
      type: "Limited",
      limited: {
        nominalConcurrencyShares: shares,
        lendablePercent,
        limitResponse: queuing ? { type: "Queue", queuing } : { type: "Reject" },
      },
    },
  };
}

const queuing = (queues: number, handSize: number) => ({ queues, handSize, queueLengthLimit: 50 });

/** The mandatory PriorityLevelConfigurations: catch-all and exempt. */
export function mandatoryPriorityLevels(): KubeObject[] {
  return [
    limited("catch-all", 5, 0),
    {
      apiVersion,
      kind: "PriorityLevelConfiguration",
      metadata: { name: "exempt", annotations: { [autoUpdateAnnotation]: "true" } },
      spec: { type: "Exempt", exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
    },
  ];
}

/** The mandatory FlowSchemas: exempt and catch-all. */
export function mandatoryFlowSchemas(): KubeObject[] {
  return [
    flowSchema("exempt", "exempt", 1, "", [{ subjects: groups("system:masters"), resourceRules: [allResources()], nonResourceRules: [allNonResources()] }]),
    flowSchema("catch-all", "catch-all", 10000, "ByUser", [
      { subjects: groups("system:unauthenticated", "system:authenticated"), resourceRules: [allResources()], nonResourceRules: [allNonResources()] },
    ]),
  ];
}

/** The suggested PriorityLevelConfigurations. */
export function suggestedPriorityLevels(): KubeObject[] {
  return [
    limited("system", 30, 33, queuing(64, 6)),
    limited("node-high", 40, 25, queuing(64, 6)),
    limited("leader-election", 10, 0, queuing(16, 4)),
    limited("workload-high", 40, 50, queuing(128, 6)),
    limited("workload-low", 100, 90, queuing(128, 6)),
    limited("global-default", 20, 50, queuing(128, 6)),
  ];
}

/** The suggested FlowSchemas. */
export function suggestedFlowSchemas(): KubeObject[] {
  const everything = (subjects: Subject[]) => [{ subjects, resourceRules: [allResources()], nonResourceRules: [allNonResources()] }];
  return [
    flowSchema("system-nodes", "system", 500, "ByUser", everything(groups("system:nodes"))),
    flowSchema("system-node-high", "node-high", 400, "ByUser", [
      {
        subjects: groups("system:nodes"),
        resourceRules: [resourceRule(["*"], [""], ["nodes", "nodes/status"], ["*"], true), resourceRule(["*"], ["coordination.k8s.io"], ["leases"], ["*"], false)],
      },
    ]),
    flowSchema("probes", "exempt", 2, "", [
      { subjects: groups("system:unauthenticated", "system:authenticated"), nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/readyz", "/livez"] }] },
    ]),
    flowSchema("system-leader-election", "leader-election", 100, "ByUser", [
      {
        subjects: [...users("system:kube-controller-manager", "system:kube-scheduler"), ...kubeSystemServiceAccounts()],
        resourceRules: [resourceRule(["get", "create", "update"], ["coordination.k8s.io"], ["leases"], ["*"], false)],
      },
    ]),
    flowSchema("kube-controller-manager", "workload-high", 800, "ByNamespace", everything(users("system:kube-controller-manager"))),
    flowSchema("kube-scheduler", "workload-high", 800, "ByNamespace", everything(users("system:kube-scheduler"))),
    flowSchema("kube-system-service-accounts", "workload-high", 900, "ByNamespace", everything(kubeSystemServiceAccounts())),
    flowSchema("service-accounts", "workload-low", 9000, "ByUser", everything(groups("system:serviceaccounts"))),
    flowSchema("global-default", "global-default", 9900, "ByUser", everything(groups("system:unauthenticated", "system:authenticated"))),
  ];
}

function specsByName(objs: KubeObject[]): Record<string, unknown> {
  return Object.fromEntries(objs.map((o) => [o.metadata?.name ?? "", (o as { spec?: unknown }).spec]));
}

let fsSpecs: Record<string, unknown> | undefined;
let plSpecs: Record<string, unknown> | undefined;

/** The fixed specs of the mandatory FlowSchemas, by name. */
export function mandatoryFlowSchemaSpecs(): Record<string, unknown> {
  fsSpecs ??= specsByName(mandatoryFlowSchemas());
  return fsSpecs;
}

/** The fixed specs of the mandatory PriorityLevelConfigurations, by name. */
export function mandatoryPriorityLevelSpecs(): Record<string, unknown> {
  plSpecs ??= specsByName(mandatoryPriorityLevels());
  return plSpecs;
}
