/**
 * The resource catalog against what a kube-apiserver 1.36 reports: `kubectl api-resources` of a
 * default cluster (preferred versions; NAME, SHORTNAMES, APIVERSION, NAMESPACED, KIND), plus
 * subresources, verbs and categories discovery lists.
 */
import { describe, expect, it } from "vitest";
import { groupVersions, resources, type ResourceInfo } from "../../src/apimachinery/api/catalog.js";

/** `kubectl api-resources` on kube-apiserver 1.36 with its default --runtime-config. */
const API_RESOURCES = `
  bindings                           -         v1                                       true   Binding
  componentstatuses                  cs        v1                                       false  ComponentStatus
  configmaps                         cm        v1                                       true   ConfigMap
  endpoints                          ep        v1                                       true   Endpoints
  events                             ev        v1                                       true   Event
  limitranges                        limits    v1                                       true   LimitRange
  namespaces                         ns        v1                                       false  Namespace
  nodes                              no        v1                                       false  Node
  persistentvolumeclaims             pvc       v1                                       true   PersistentVolumeClaim
  persistentvolumes                  pv        v1                                       false  PersistentVolume
  pods                               po        v1                                       true   Pod
  podtemplates                       -         v1                                       true   PodTemplate
  replicationcontrollers             rc        v1                                       true   ReplicationController
  resourcequotas                     quota     v1                                       true   ResourceQuota
  secrets                            -         v1                                       true   Secret
  serviceaccounts                    sa        v1                                       true   ServiceAccount
  services                           svc       v1                                       true   Service
  mutatingadmissionpolicies          -         admissionregistration.k8s.io/v1          false  MutatingAdmissionPolicy
  mutatingadmissionpolicybindings    -         admissionregistration.k8s.io/v1          false  MutatingAdmissionPolicyBinding
  mutatingwebhookconfigurations      -         admissionregistration.k8s.io/v1          false  MutatingWebhookConfiguration
  validatingadmissionpolicies        -         admissionregistration.k8s.io/v1          false  ValidatingAdmissionPolicy
  validatingadmissionpolicybindings  -         admissionregistration.k8s.io/v1          false  ValidatingAdmissionPolicyBinding
  validatingwebhookconfigurations    -         admissionregistration.k8s.io/v1          false  ValidatingWebhookConfiguration
  customresourcedefinitions          crd,crds  apiextensions.k8s.io/v1                  false  CustomResourceDefinition
  apiservices                        -         apiregistration.k8s.io/v1                false  APIService
  controllerrevisions                -         apps/v1                                  true   ControllerRevision
  daemonsets                         ds        apps/v1                                  true   DaemonSet
  deployments                        deploy    apps/v1                                  true   Deployment
  replicasets                        rs        apps/v1                                  true   ReplicaSet
  statefulsets                       sts       apps/v1                                  true   StatefulSet
  selfsubjectreviews                 -         authentication.k8s.io/v1                 false  SelfSubjectReview
  tokenreviews                       -         authentication.k8s.io/v1                 false  TokenReview
  localsubjectaccessreviews          -         authorization.k8s.io/v1                  true   LocalSubjectAccessReview
  selfsubjectaccessreviews           -         authorization.k8s.io/v1                  false  SelfSubjectAccessReview
  selfsubjectrulesreviews            -         authorization.k8s.io/v1                  false  SelfSubjectRulesReview
  subjectaccessreviews               -         authorization.k8s.io/v1                  false  SubjectAccessReview
  horizontalpodautoscalers           hpa       autoscaling/v2                           true   HorizontalPodAutoscaler
  cronjobs                           cj        batch/v1                                 true   CronJob
  jobs                               -         batch/v1                                 true   Job
  certificatesigningrequests         csr       certificates.k8s.io/v1                   false  CertificateSigningRequest
  leases                             -         coordination.k8s.io/v1                   true   Lease
  endpointslices                     -         discovery.k8s.io/v1                      true   EndpointSlice
  events                             ev        events.k8s.io/v1                         true   Event
  flowschemas                        -         flowcontrol.apiserver.k8s.io/v1          false  FlowSchema
  prioritylevelconfigurations        -         flowcontrol.apiserver.k8s.io/v1          false  PriorityLevelConfiguration
  ingressclasses                     -         networking.k8s.io/v1                     false  IngressClass
  ingresses                          ing       networking.k8s.io/v1                     true   Ingress
  ipaddresses                        ip        networking.k8s.io/v1                     false  IPAddress
  networkpolicies                    netpol    networking.k8s.io/v1                     true   NetworkPolicy
  servicecidrs                       -         networking.k8s.io/v1                     false  ServiceCIDR
  runtimeclasses                     -         node.k8s.io/v1                           false  RuntimeClass
  poddisruptionbudgets               pdb       policy/v1                                true   PodDisruptionBudget
  clusterrolebindings                -         rbac.authorization.k8s.io/v1             false  ClusterRoleBinding
  clusterroles                       -         rbac.authorization.k8s.io/v1             false  ClusterRole
  rolebindings                       -         rbac.authorization.k8s.io/v1             true   RoleBinding
  roles                              -         rbac.authorization.k8s.io/v1             true   Role
  deviceclasses                      -         resource.k8s.io/v1                       false  DeviceClass
  resourceclaims                     -         resource.k8s.io/v1                       true   ResourceClaim
  resourceclaimtemplates             -         resource.k8s.io/v1                       true   ResourceClaimTemplate
  resourceslices                     -         resource.k8s.io/v1                       false  ResourceSlice
  priorityclasses                    pc        scheduling.k8s.io/v1                     false  PriorityClass
  csidrivers                         -         storage.k8s.io/v1                        false  CSIDriver
  csinodes                           -         storage.k8s.io/v1                        false  CSINode
  csistoragecapacities               -         storage.k8s.io/v1                        true   CSIStorageCapacity
  storageclasses                     sc        storage.k8s.io/v1                        false  StorageClass
  volumeattachments                  -         storage.k8s.io/v1                        false  VolumeAttachment
  volumeattributesclasses            vac       storage.k8s.io/v1                        false  VolumeAttributesClass
`;

function preferred(r: ResourceInfo): boolean {
  const gv = groupVersions.find((g) => g.group === r.group);
  return gv !== undefined && gv.servedByDefault[0] === r.version;
}

describe("resource catalog", () => {
  it("serves by default exactly the resources of kube-apiserver 1.36", () => {
    const want = API_RESOURCES.trim().split("\n").map((l) => l.trim().split(/\s+/).join(" "));
    const got = resources
      .filter((r) => r.servedByDefault && preferred(r))
      .map((r) => [r.resource, r.shortNames.join(",") || "-", r.group ? `${r.group}/${r.version}` : r.version, r.namespaced, r.kind].join(" "));
    expect(got.sort()).toEqual(want.sort());
  });

  it("serves autoscaling v2 (preferred) and v1 by default, and no alpha or beta version", () => {
    expect(groupVersions.find((g) => g.group === "autoscaling")?.servedByDefault).toEqual(["v2", "v1"]);
    for (const r of resources) expect(r.servedByDefault, `${r.group}/${r.version}/${r.resource}`).toBe(/^v\d+$/.test(r.version));
  });

  const byName = (group: string, version: string, resource: string) => {
    const r = resources.find((x) => x.group === group && x.version === version && x.resource === resource);
    if (!r) throw new Error(`${group}/${version}/${resource} not in the catalog`);
    return r;
  };

  const subresources: [string, string, string, string[]][] = [
    ["", "v1", "pods", ["attach", "binding", "ephemeralcontainers", "eviction", "exec", "log", "portforward", "proxy", "resize", "status"]],
    ["", "v1", "services", ["proxy", "status"]],
    ["", "v1", "nodes", ["proxy", "status"]],
    ["", "v1", "namespaces", ["finalize", "status"]],
    ["", "v1", "serviceaccounts", ["token"]],
    ["", "v1", "replicationcontrollers", ["scale", "status"]],
    ["", "v1", "configmaps", []],
    ["apps", "v1", "deployments", ["scale", "status"]],
    ["apps", "v1", "statefulsets", ["scale", "status"]],
    ["apps", "v1", "daemonsets", ["status"]],
    ["batch", "v1", "jobs", ["status"]],
    ["certificates.k8s.io", "v1", "certificatesigningrequests", ["approval", "status"]],
    ["apiextensions.k8s.io", "v1", "customresourcedefinitions", ["status"]],
    ["apiregistration.k8s.io", "v1", "apiservices", ["status"]],
    ["authorization.k8s.io", "v1", "selfsubjectaccessreviews", []],
    ["resource.k8s.io", "v1", "resourceclaims", ["status"]],
  ];
  for (const [group, version, resource, want] of subresources) {
    it(`lists the subresources of ${group || "core"}/${version} ${resource}`, () => {
      expect(byName(group, version, resource).subresources.map((s) => s.name)).toEqual(want);
    });
  }

  it("gives subresources their kinds and verbs", () => {
    const scale = byName("apps", "v1", "deployments").subresources.find((s) => s.name === "scale");
    expect(scale).toEqual({ name: "scale", group: "autoscaling", version: "v1", kind: "Scale", verbs: ["get", "patch", "update"] });
    const eviction = byName("", "v1", "pods").subresources.find((s) => s.name === "eviction");
    expect(eviction).toEqual({ name: "eviction", group: "policy", version: "v1", kind: "Eviction", verbs: ["create"] });
    const token = byName("", "v1", "serviceaccounts").subresources.find((s) => s.name === "token");
    expect(token).toEqual({ name: "token", group: "authentication.k8s.io", version: "v1", kind: "TokenRequest", verbs: ["create"] });
  });

  const verbs: [string, string, string, string[]][] = [
    ["", "v1", "pods", ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]],
    ["", "v1", "services", ["create", "delete", "get", "list", "patch", "update", "watch"]],
    ["", "v1", "namespaces", ["create", "delete", "get", "list", "patch", "update", "watch"]],
    ["", "v1", "componentstatuses", ["get", "list"]],
    ["", "v1", "bindings", ["create"]],
    ["authentication.k8s.io", "v1", "tokenreviews", ["create"]],
    ["authorization.k8s.io", "v1", "localsubjectaccessreviews", ["create"]],
  ];
  for (const [group, version, resource, want] of verbs) {
    it(`lists the verbs of ${group || "core"}/${version} ${resource}`, () => expect(byName(group, version, resource).verbs).toEqual(want));
  }

  it("puts the workloads kubectl get all shows in the all category", () => {
    const all = resources.filter((r) => r.servedByDefault && preferred(r) && r.categories.includes("all")).map((r) => r.resource);
    expect(all.sort()).toEqual(["cronjobs", "daemonsets", "deployments", "horizontalpodautoscalers", "jobs", "pods", "replicasets", "replicationcontrollers", "services", "statefulsets"]);
  });

  it("names kinds, lists and definitions as upstream", () => {
    const d = byName("apps", "v1", "deployments");
    expect([d.singular, d.kind, d.listKind, d.definition, d.listDefinition]).toEqual(["deployment", "Deployment", "DeploymentList", "io.k8s.api.apps.v1.Deployment", "io.k8s.api.apps.v1.DeploymentList"]);
    expect(byName("", "v1", "endpoints").singular).toBe("endpoints");
    expect(byName("networking.k8s.io", "v1", "ingresses").kind).toBe("Ingress");
    expect(byName("apiextensions.k8s.io", "v1", "customresourcedefinitions").definition).toBe("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition");
    expect(byName("authorization.k8s.io", "v1", "subjectaccessreviews").listKind).toBeUndefined();
    expect(byName("apps", "v1beta1", "deployments").removedIn).toBe("1.16");
  });
});
