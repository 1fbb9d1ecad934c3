// @ts-check
/**
 * Facts the API definitions do not hold, each with its upstream source. Everything else the
 * generator emits is read from the Go sources (types.go, register.go, swagger docs) and the
 * structured-merge-diff schema.
 */

/**
 * Types whose JSON form is custom (they implement MarshalJSON/UnmarshalJSON and kube-openapi's
 * OpenAPIDefinition / OpenAPISchemaType methods), keyed by Go import path + "." + name.
 *  - `openapi`: the v2 schema kube-openapi publishes for the definition (besides its
 *    description): the `OpenAPISchemaType()` / `OpenAPISchemaFormat()` of the Go type
 *    (k8s.io/apimachinery/pkg/apis/meta/v1/time.go, micro_time.go, duration.go, fieldsv1.go,
 *    pkg/api/resource/quantity.go, pkg/util/intstr/intstr.go, pkg/runtime/types.go;
 *    apiextensions-apiserver/pkg/apis/apiextensions/v1/types_jsonschema.go, whose JSON types
 *    return no type at all).
 *  - `ts`: the TypeScript declaration (kubernetes-types' choices: Time/MicroTime/Quantity are
 *    `string`, IntOrString is written inline as `number | string`, RawExtension, FieldsV1 and
 *    JSON are empty interfaces, the JSONSchemaPropsOr* unions are unions).
 *  - `decode`: the value kind of the decoding schema table.
 *
 * @type {Record<string, { openapi: Record<string, string>, ts: { alias?: string, interface?: true, inline?: string }, decode: string }>}
 */
export const SPECIAL_TYPES = {
  "k8s.io/apimachinery/pkg/apis/meta/v1.Time": { openapi: { type: "string", format: "date-time" }, ts: { alias: "string" }, decode: "Time" },
  "k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime": { openapi: { type: "string", format: "date-time" }, ts: { alias: "string" }, decode: "MicroTime" },
  "k8s.io/apimachinery/pkg/apis/meta/v1.Duration": { openapi: { type: "string" }, ts: { alias: "string" }, decode: "Duration" },
  "k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1": { openapi: { type: "object" }, ts: { interface: true }, decode: "FieldsV1" },
  "k8s.io/apimachinery/pkg/api/resource.Quantity": { openapi: { type: "string" }, ts: { alias: "string" }, decode: "Quantity" },
  "k8s.io/apimachinery/pkg/util/intstr.IntOrString": { openapi: { type: "string", format: "int-or-string" }, ts: { inline: "number | string" }, decode: "IntOrString" },
  "k8s.io/apimachinery/pkg/runtime.RawExtension": { openapi: { type: "object" }, ts: { interface: true }, decode: "RawExtension" },
  "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON": { openapi: {}, ts: { interface: true }, decode: "JSON" },
  "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray": { openapi: {}, ts: { alias: "JSONSchemaProps | JSONSchemaProps[]" }, decode: "JSONSchemaPropsOrArray" },
  "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool": { openapi: {}, ts: { alias: "JSONSchemaProps | boolean" }, decode: "JSONSchemaPropsOrBool" },
  "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray": { openapi: {}, ts: { alias: "JSONSchemaProps | string[]" }, decode: "JSONSchemaPropsOrStringArray" },
};

/**
 * Types of the auxiliary apimachinery inputs that are emitted even when no API type reaches
 * them: version.Info is the body of GET /version and WatchEvent the frame of a watch stream
 * (both in kubernetes-types).
 */
export const EXTRA_ROOT_TYPES = ["k8s.io/apimachinery/pkg/version.Info", "k8s.io/apimachinery/pkg/apis/meta/v1.WatchEvent"];

/**
 * Group versions registered in kube-apiserver's scheme whose Go types are not generator input:
 * they still appear in the x-kubernetes-group-version-kind lists of the meta types every group
 * version registers (WatchEvent, DeleteOptions, ...). Source: kube-apiserver installs
 * apiextensions.k8s.io/v1beta1 (apiextensions-apiserver pkg/apis/apiextensions/install) and
 * apiregistration.k8s.io/v1beta1 (kube-aggregator pkg/apis/apiregistration/install) although
 * neither is served since 1.22.
 */
export const EXTRA_SCHEME_GROUP_VERSIONS = [
  { group: "apiextensions.k8s.io", version: "v1beta1" },
  { group: "apiregistration.k8s.io", version: "v1beta1" },
];

/**
 * Packages whose register.go is not part of kube-apiserver's scheme: apidiscovery types are
 * registered only in the discovery endpoint's own scheme (k8s.io/apiserver
 * pkg/endpoints/discovery/aggregated), so they are absent from the published OpenAPI.
 */
export const NOT_IN_APISERVER_SCHEME = new Set(["k8s.io/api/apidiscovery/v2", "k8s.io/api/apidiscovery/v2beta1"]);

/**
 * Which group versions kube-apiserver 1.36 serves with no --runtime-config: every stable
 * version (v1, v2, ...) of a group that has resources; alpha and beta versions are off by
 * default (KEP-3136, in effect since 1.24, and no older beta is left on in 1.36). Source:
 * kubernetes/kubernetes pkg/controlplane/apiserver/options and
 * pkg/controlplane/instance.go DefaultAPIResourceConfigSource (stable versions enabled,
 * betaAPIGroupVersionsDisabledByDefault / alphaAPIGroupVersionsDisabledByDefault).
 * @param {string} version
 */
export function servedByDefault(version) {
  return /^v\d+$/.test(version);
}

/**
 * Preference order of versions inside a group where kube-apiserver serves more than one stable
 * version (the first is the preferred version in discovery): autoscaling prefers v2
 * (pkg/controlplane/instance.go, storage providers order; `kubectl api-versions`).
 */
export const VERSION_PRIORITY = { autoscaling: ["v2", "v1"] };

/**
 * Plural names client-gen (and the registry) do not derive with gengo's plural namer
 * (k8s.io/code-generator cmd/client-gen/generators: pluralExceptions).
 */
export const PLURAL_EXCEPTIONS = { Endpoints: "endpoints" };

/**
 * Short names and categories of the built-in resources: the ShortNames() / Categories() methods
 * of kubernetes/kubernetes pkg/registry/<group>/<resource>/storage/storage.go (and
 * apiextensions-apiserver pkg/registry/customresourcedefinition/etcd.go, kube-aggregator
 * pkg/registry/apiservice/etcd/etcd.go). Keyed by "group/resource" ("" is the core group);
 * they hold for every version of the resource.
 * @type {Record<string, { shortNames?: string[], categories?: string[] }>}
 */
export const RESOURCE_NAMES = {
  "/componentstatuses": { shortNames: ["cs"] },
  "/configmaps": { shortNames: ["cm"] },
  "/endpoints": { shortNames: ["ep"] },
  "/events": { shortNames: ["ev"] },
  "/limitranges": { shortNames: ["limits"] },
  "/namespaces": { shortNames: ["ns"] },
  "/nodes": { shortNames: ["no"] },
  "/persistentvolumeclaims": { shortNames: ["pvc"] },
  "/persistentvolumes": { shortNames: ["pv"] },
  "/pods": { shortNames: ["po"], categories: ["all"] },
  "/replicationcontrollers": { shortNames: ["rc"], categories: ["all"] },
  "/resourcequotas": { shortNames: ["quota"] },
  "/serviceaccounts": { shortNames: ["sa"] },
  "/services": { shortNames: ["svc"], categories: ["all"] },
  "admissionregistration.k8s.io/mutatingwebhookconfigurations": { categories: ["api-extensions"] },
  "admissionregistration.k8s.io/validatingwebhookconfigurations": { categories: ["api-extensions"] },
  "admissionregistration.k8s.io/validatingadmissionpolicies": { categories: ["api-extensions"] },
  "admissionregistration.k8s.io/validatingadmissionpolicybindings": { categories: ["api-extensions"] },
  "admissionregistration.k8s.io/mutatingadmissionpolicies": { categories: ["api-extensions"] },
  "admissionregistration.k8s.io/mutatingadmissionpolicybindings": { categories: ["api-extensions"] },
  "apiextensions.k8s.io/customresourcedefinitions": { shortNames: ["crd", "crds"], categories: ["api-extensions"] },
  "apiregistration.k8s.io/apiservices": { categories: ["api-extensions"] },
  "apps/daemonsets": { shortNames: ["ds"], categories: ["all"] },
  "apps/deployments": { shortNames: ["deploy"], categories: ["all"] },
  "apps/replicasets": { shortNames: ["rs"], categories: ["all"] },
  "apps/statefulsets": { shortNames: ["sts"], categories: ["all"] },
  "autoscaling/horizontalpodautoscalers": { shortNames: ["hpa"], categories: ["all"] },
  "batch/cronjobs": { shortNames: ["cj"], categories: ["all"] },
  "batch/jobs": { categories: ["all"] },
  "certificates.k8s.io/certificatesigningrequests": { shortNames: ["csr"] },
  "events.k8s.io/events": { shortNames: ["ev"] },
  "extensions/daemonsets": { shortNames: ["ds"], categories: ["all"] },
  "extensions/deployments": { shortNames: ["deploy"], categories: ["all"] },
  "extensions/replicasets": { shortNames: ["rs"], categories: ["all"] },
  "extensions/ingresses": { shortNames: ["ing"] },
  "extensions/networkpolicies": { shortNames: ["netpol"] },
  "networking.k8s.io/ingresses": { shortNames: ["ing"] },
  "networking.k8s.io/ipaddresses": { shortNames: ["ip"] },
  "networking.k8s.io/networkpolicies": { shortNames: ["netpol"] },
  "policy/poddisruptionbudgets": { shortNames: ["pdb"] },
  "scheduling.k8s.io/priorityclasses": { shortNames: ["pc"] },
  "storage.k8s.io/storageclasses": { shortNames: ["sc"] },
  "storage.k8s.io/volumeattributesclasses": { shortNames: ["vac"] },
};

/**
 * Verbs of the REST storage where they differ from the genclient markers: componentstatuses is
 * a read-only view (pkg/registry/core/componentstatus/rest.go implements Getter and Lister only).
 */
export const VERB_OVERRIDES = { "/componentstatuses": ["get", "list"] };

/**
 * Resources served without a `+genclient` marker on their kind: POST /api/v1/namespaces/{ns}/bindings
 * (pkg/registry/core/pod/storage/storage.go LegacyBindingREST, wired in
 * pkg/registry/core/rest/storage_core.go as "bindings").
 */
export const EXTRA_RESOURCES = [{ group: "", version: "v1", resource: "bindings", kind: "Binding", namespaced: true, verbs: ["create"] }];

/**
 * Subresources the storage serves beyond what the genclient markers declare (status follows the
 * rule "the kind has a status field and the resource is writable", scale and the
 * `+genclient:method=...,subresource=` ones are read from the markers). Source:
 * pkg/registry/core/rest/storage_core.go (pods/attach, binding, eviction, exec, log, portforward,
 * proxy; services/proxy; nodes/proxy; namespaces/finalize). Kinds are "group/version.Kind".
 * @type {Record<string, { name: string, kind: string, verbs: string[] }[]>}
 */
export const EXTRA_SUBRESOURCES = {
  "/pods": [
    { name: "attach", kind: "/v1.PodAttachOptions", verbs: ["create", "get"] },
    { name: "binding", kind: "/v1.Binding", verbs: ["create"] },
    { name: "eviction", kind: "policy/v1.Eviction", verbs: ["create"] },
    { name: "exec", kind: "/v1.PodExecOptions", verbs: ["create", "get"] },
    { name: "log", kind: "/v1.Pod", verbs: ["get"] },
    { name: "portforward", kind: "/v1.PodPortForwardOptions", verbs: ["create", "get"] },
    { name: "proxy", kind: "/v1.PodProxyOptions", verbs: ["create", "delete", "get", "patch", "update"] },
  ],
  "/services": [{ name: "proxy", kind: "/v1.ServiceProxyOptions", verbs: ["create", "delete", "get", "patch", "update"] }],
  "/nodes": [{ name: "proxy", kind: "/v1.NodeProxyOptions", verbs: ["create", "delete", "get", "patch", "update"] }],
  "/namespaces": [{ name: "finalize", kind: "/v1.Namespace", verbs: ["update"] }],
};

/**
 * Verbs of subresources declared by `+genclient:method=...,subresource=X` markers, by subresource
 * name (discovery of kube-apiserver 1.36: token is create-only, the rest get/patch/update).
 */
export const SUBRESOURCE_VERBS = {
  scale: ["get", "patch", "update"],
  status: ["get", "patch", "update"],
  ephemeralcontainers: ["get", "patch", "update"],
  resize: ["get", "patch", "update"],
  approval: ["get", "patch", "update"],
  token: ["create"],
};

/** Meta types kube-apiserver publishes in OpenAPI besides the kinds of its resources (bodies of its non-resource paths). */
export const OPENAPI_EXTRA_ROOTS = [
  "k8s.io/apimachinery/pkg/apis/meta/v1.Status",
  "k8s.io/apimachinery/pkg/apis/meta/v1.DeleteOptions",
  "k8s.io/apimachinery/pkg/apis/meta/v1.WatchEvent",
  "k8s.io/apimachinery/pkg/apis/meta/v1.Patch",
  "k8s.io/apimachinery/pkg/apis/meta/v1.APIGroup",
  "k8s.io/apimachinery/pkg/apis/meta/v1.APIGroupList",
  "k8s.io/apimachinery/pkg/apis/meta/v1.APIResourceList",
  "k8s.io/apimachinery/pkg/apis/meta/v1.APIVersions",
  "k8s.io/apimachinery/pkg/version.Info",
];
