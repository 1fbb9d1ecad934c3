/**
 * Printers of the cluster-side API groups, with the columns of pkg/printers/internalversion
 * (and kube-aggregator's for APIServices): admission webhooks and policies, APIServices,
 * CertificateSigningRequests, FlowSchemas and PriorityLevelConfigurations, RuntimeClasses,
 * PriorityClasses, the storage.k8s.io kinds and the resource.k8s.io (DRA) kinds. Objects are read
 * defensively: a stored object of an unexpected shape prints its zero values, never fails.
 */
import type { KubeObject } from "../../apimachinery/types.js";
import { OBJECT_META, ageColumn, col, colText, nameColumn } from "./columns.js";
import { humanDuration, translateTimestampSince } from "./duration.js";
import type { PrintContext, Printer, TableColumnDefinition } from "./types.js";
import { csrCondition } from "../registry/certificates.js";
import { isDefaultStorageClass, isDefaultVolumeAttributesClass } from "../registry/storage.js";
import { bool, fieldsOf, list, num, rec, records, str, stringMap, strings, text, type Obj } from "../registry/shape.js";

const name = (obj: KubeObject) => text(obj.metadata?.name);
const age = (obj: KubeObject, ctx: PrintContext) => translateTimestampSince(str(obj.metadata?.creationTimestamp), ctx.now);
const fields = (obj: KubeObject): Obj => fieldsOf(obj);
const spec = (obj: KubeObject): Obj => rec(fields(obj).spec) ?? {};
const status = (obj: KubeObject): Obj => rec(fields(obj).status) ?? {};

const FLOWCONTROL = "io.k8s.api.flowcontrol.v1";
const CERTIFICATES = "io.k8s.api.certificates.v1";
const SCHEDULING = "io.k8s.api.scheduling.v1";
const STORAGE = "io.k8s.api.storage.v1";
const RESOURCE = "io.k8s.api.resource.v1";

/** A printer of NAME, `cells`..., AGE. */
function simple(columns: TableColumnDefinition[], cells: (obj: KubeObject) => unknown[], withAge = true): Printer {
  return {
    columns: [nameColumn(), ...columns, ...(withAge ? [ageColumn()] : [])],
    print: (obj, ctx) => ({ cells: [name(obj), ...cells(obj), ...(withAge ? [age(obj, ctx)] : [])] }),
  };
}

// ---- admissionregistration.k8s.io ----------------------------------------------------------

const webhooksColumn = () => colText("Webhooks", "integer", "Webhooks indicates the number of webhooks registered in this configuration");
export const mutatingWebhookConfigurationPrinter = (): Printer => simple([webhooksColumn()], (o) => [list(fields(o).webhooks).length]);
export const validatingWebhookConfigurationPrinter = (): Printer => simple([webhooksColumn()], (o) => [list(fields(o).webhooks).length]);

function paramKind(obj: KubeObject): string {
  const pk = rec(spec(obj).paramKind);
  return pk ? `${text(pk.apiVersion)}/${text(pk.kind)}` : "<unset>";
}

/** The gogo-protobuf String() of a metav1.LabelSelector, as printers show a paramRef selector. */
export function labelSelectorGoString(sel: Obj): string {
  const labels = stringMap(sel.matchLabels) ?? {};
  const keys = Object.keys(labels).sort();
  const ml = `map[string]string{${keys.map((k) => `${k}: ${labels[k]},`).join("")}}`;
  const me = records(sel.matchExpressions)
    .map((e) => `LabelSelectorRequirement{Key:${text(e.key)},Operator:${text(e.operator)},Values:[${strings(e.values).join(" ")}],},`)
    .join("");
  return `&LabelSelector{MatchLabels:${ml},MatchExpressions:[]LabelSelectorRequirement{${me}},}`;
}

function paramRef(obj: KubeObject): string {
  const pr = rec(spec(obj).paramRef);
  if (!pr) return "<unset>";
  const n = text(pr.name);
  if (n.length > 0) return text(pr.namespace) !== "" ? `${text(pr.namespace)}/${n}` : `*/${n}`;
  const sel = rec(pr.selector);
  return sel ? labelSelectorGoString(sel) : "<unset>";
}

const paramKindColumn = () => colText("ParamKind", "string", "ParamKind specifies the kind of resources used to parameterize this policy");
const policyNameColumn = () => colText("PolicyName", "string", "PolicyName indicates the policy definition which the policy binding binded to");
const paramRefColumn = () => colText("ParamRef", "string", "ParamRef indicates the param resource which sets the configration param");

export const validatingAdmissionPolicyPrinter = (): Printer =>
  simple([colText("Validations", "integer", "Validations indicates the number of validation rules defined in this configuration"), paramKindColumn()], (o) => [
    list(spec(o).validations).length,
    paramKind(o),
  ]);
export const mutatingAdmissionPolicyPrinter = (): Printer =>
  simple([colText("Mutations", "integer", "Mutation indicates the number of mutations rules defined in this configuration"), paramKindColumn()], (o) => [
    list(spec(o).mutations).length,
    paramKind(o),
  ]);
const bindingPrinter = (): Printer => simple([policyNameColumn(), paramRefColumn()], (o) => [text(spec(o).policyName), paramRef(o)]);
export const validatingAdmissionPolicyBindingPrinter = bindingPrinter;
export const mutatingAdmissionPolicyBindingPrinter = bindingPrinter;

// ---- apiregistration.k8s.io ------------------------------------------------------------------

export const apiServicePrinter = (): Printer =>
  simple([colText("Service", "string", "The reference to the service that hosts this API endpoint."), colText("Available", "string", "Whether this service is available.")], (o) => {
    const svc = rec(spec(o).service);
    const service = svc ? `${text(svc.namespace)}/${text(svc.name)}` : "Local";
    let available = "Unknown";
    const cond = records(status(o).conditions).find((c) => c.type === "Available");
    if (cond) {
      const st = text(cond.status);
      available = st === "True" ? st : text(cond.reason).length > 0 ? `${st} (${text(cond.reason)})` : st;
    }
    return [service, available];
  });

// ---- certificates.k8s.io ---------------------------------------------------------------------

export const certificateSigningRequestPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    ageColumn(),
    col("SignerName", "string", `${CERTIFICATES}.CertificateSigningRequestSpec`, "signerName"),
    col("Requestor", "string", `${CERTIFICATES}.CertificateSigningRequestSpec`, "request"),
    col("RequestedDuration", "string", `${CERTIFICATES}.CertificateSigningRequestSpec`, "expirationSeconds"),
    col("Condition", "string", `${CERTIFICATES}.CertificateSigningRequestStatus`, "conditions"),
  ],
  print(obj, ctx) {
    const s = spec(obj);
    const exp = num(s.expirationSeconds);
    return {
      cells: [name(obj), age(obj, ctx), text(s.signerName) || "<none>", text(s.username), exp === undefined ? "<none>" : humanDuration(exp * 1000), csrCondition(obj)],
    };
  },
});

// ---- flowcontrol.apiserver.k8s.io ------------------------------------------------------------

export const flowSchemaPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    col("PriorityLevel", "string", `${FLOWCONTROL}.PriorityLevelConfigurationReference`, "name"),
    col("MatchingPrecedence", "string", `${FLOWCONTROL}.FlowSchemaSpec`, "matchingPrecedence"),
    col("DistinguisherMethod", "string", `${FLOWCONTROL}.FlowSchemaSpec`, "distinguisherMethod"),
    ageColumn(),
    colText("MissingPL", "string", "references a broken or non-existent PriorityLevelConfiguration"),
  ],
  print(obj, ctx) {
    const s = spec(obj);
    const dm = rec(s.distinguisherMethod);
    const dangling = records(status(obj).conditions).find((c) => c.type === "Dangling");
    return {
      cells: [name(obj), text(rec(s.priorityLevelConfiguration)?.name), num(s.matchingPrecedence) ?? 0, dm ? text(dm.type) : "<none>", age(obj, ctx), dangling ? text(dangling.status) : "?"],
    };
  },
  // FlowSchemaSequence: by matching precedence, then name.
  order: (objs) =>
    [...objs].sort((a, b) => {
      const d = (num(spec(a).matchingPrecedence) ?? 0) - (num(spec(b).matchingPrecedence) ?? 0);
      return d !== 0 ? d : name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0;
    }),
});

export const priorityLevelConfigurationPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    col("Type", "string", `${FLOWCONTROL}.PriorityLevelConfigurationSpec`, "type"),
    col("NominalConcurrencyShares", "string", `${FLOWCONTROL}.LimitedPriorityLevelConfiguration`, "nominalConcurrencyShares"),
    col("Queues", "string", `${FLOWCONTROL}.QueuingConfiguration`, "queues"),
    col("HandSize", "string", `${FLOWCONTROL}.QueuingConfiguration`, "handSize"),
    col("QueueLengthLimit", "string", `${FLOWCONTROL}.QueuingConfiguration`, "queueLengthLimit"),
    ageColumn(),
  ],
  print(obj, ctx) {
    const s = spec(obj);
    const cells: unknown[] = [name(obj), text(s.type), "<none>", "<none>", "<none>", "<none>"];
    const limited = rec(s.limited);
    if (limited) {
      cells[2] = num(limited.nominalConcurrencyShares) ?? 0;
      const q = rec(rec(limited.limitResponse)?.queuing);
      if (q) [cells[3], cells[4], cells[5]] = [num(q.queues) ?? 0, num(q.handSize) ?? 0, num(q.queueLengthLimit) ?? 0];
    }
    return { cells: [...cells, age(obj, ctx)] };
  },
});

// ---- node.k8s.io, scheduling.k8s.io ------------------------------------------------------------

// Upstream describes Handler with ObjectMeta's (missing) "handler" doc: an empty description.
export const runtimeClassPrinter = (): Printer => simple([col("Handler", "string", OBJECT_META, "handler")], (o) => [text(fields(o).handler)]);

export const priorityClassPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    col("Value", "integer", `${SCHEDULING}.PriorityClass`, "value"),
    col("Global-Default", "boolean", `${SCHEDULING}.PriorityClass`, "globalDefault"),
    ageColumn(),
    col("PreemptionPolicy", "string", `${SCHEDULING}.PriorityClass`, "preemptionPolicy"),
  ],
  print(obj, ctx) {
    const pc = fields(obj);
    return { cells: [name(obj), num(pc.value) ?? 0, bool(pc.globalDefault) ?? false, age(obj, ctx), text(pc.preemptionPolicy)] };
  },
});

// ---- storage.k8s.io ------------------------------------------------------------------------

export const storageClassPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    col("Provisioner", "string", `${STORAGE}.StorageClass`, "provisioner"),
    col("ReclaimPolicy", "string", `${STORAGE}.StorageClass`, "reclaimPolicy"),
    col("VolumeBindingMode", "string", `${STORAGE}.StorageClass`, "volumeBindingMode"),
    col("AllowVolumeExpansion", "string", `${STORAGE}.StorageClass`, "allowVolumeExpansion"),
    ageColumn(),
  ],
  print(obj, ctx) {
    const sc = fields(obj);
    return {
      cells: [
        isDefaultStorageClass(obj) ? `${name(obj)} (default)` : name(obj),
        text(sc.provisioner),
        str(sc.reclaimPolicy) ?? "Delete",
        str(sc.volumeBindingMode) ?? "Immediate",
        bool(sc.allowVolumeExpansion) ?? false,
        age(obj, ctx),
      ],
    };
  },
});

export const csiDriverPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    col("AttachRequired", "boolean", `${STORAGE}.CSIDriverSpec`, "attachRequired"),
    col("PodInfoOnMount", "boolean", `${STORAGE}.CSIDriverSpec`, "podInfoOnMount"),
    col("StorageCapacity", "boolean", `${STORAGE}.CSIDriverSpec`, "storageCapacity"),
    col("TokenRequests", "string", `${STORAGE}.CSIDriverSpec`, "tokenRequests"),
    col("RequiresRepublish", "boolean", `${STORAGE}.CSIDriverSpec`, "requiresRepublish"),
    col("Modes", "string", `${STORAGE}.CSIDriverSpec`, "volumeLifecycleModes"),
    ageColumn(),
  ],
  print(obj, ctx) {
    const s = spec(obj);
    const modes = strings(s.volumeLifecycleModes).join(",");
    const tokenRequests = Array.isArray(s.tokenRequests) ? records(s.tokenRequests).map((t) => text(t.audience)).join(",") : "<unset>";
    return {
      cells: [name(obj), bool(s.attachRequired) ?? true, bool(s.podInfoOnMount) ?? false, bool(s.storageCapacity) ?? false, tokenRequests, bool(s.requiresRepublish) ?? false, modes || "<none>", age(obj, ctx)],
    };
  },
});

export const csiNodePrinter = (): Printer =>
  simple([colText("Drivers", "integer", "Drivers indicates the number of CSI drivers registered on the node")], (o) => [list(spec(o).drivers).length]);

export const csiStorageCapacityPrinter = (): Printer =>
  simple(
    [col("StorageClassName", "string", `${STORAGE}.CSIStorageCapacity`, "storageClassName"), col("Capacity", "string", `${STORAGE}.CSIStorageCapacity`, "capacity")],
    (o) => {
      const c = fields(o).capacity;
      return [text(fields(o).storageClassName), typeof c === "string" || typeof c === "number" ? String(c) : "<unset>"];
    },
    false,
  );

export const volumeAttachmentPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    { ...col("Attacher", "string", `${STORAGE}.VolumeAttachmentSpec`, "attacher"), format: "name" },
    col("PV", "string", `${STORAGE}.VolumeAttachmentSource`, "persistentVolumeName"),
    col("Node", "string", `${STORAGE}.VolumeAttachmentSpec`, "nodeName"),
    col("Attached", "boolean", `${STORAGE}.VolumeAttachmentStatus`, "attached"),
    ageColumn(),
  ],
  print(obj, ctx) {
    const s = spec(obj);
    return { cells: [name(obj), text(s.attacher), text(rec(s.source)?.persistentVolumeName), text(s.nodeName), bool(status(obj).attached) ?? false, age(obj, ctx)] };
  },
});

export const volumeAttributesClassPrinter = (): Printer => ({
  columns: [nameColumn(), col("DriverName", "string", `${STORAGE}.VolumeAttributesClass`, "driverName"), ageColumn()],
  print: (obj, ctx) => ({ cells: [isDefaultVolumeAttributesClass(obj) ? `${name(obj)} (default)` : name(obj), text(fields(obj).driverName), age(obj, ctx)] }),
});

// ---- resource.k8s.io -------------------------------------------------------------------------

export const deviceClassPrinter = (): Printer => simple([], () => []);
export const resourceClaimTemplatePrinter = (): Printer => simple([], () => []);

/** resourceClaimState: deleted / pending / allocated / reserved. */
export function resourceClaimState(obj: KubeObject): string {
  const states: string[] = [];
  const deleted = obj.metadata?.deletionTimestamp !== undefined && obj.metadata?.deletionTimestamp !== null;
  if (deleted) states.push("deleted");
  if (!rec(status(obj).allocation)) {
    if (!deleted) states.push("pending");
  } else {
    states.push("allocated");
    if (list(status(obj).reservedFor).length > 0) states.push("reserved");
  }
  return states.join(",");
}

export const resourceClaimPrinter = (): Printer =>
  simple([colText("State", "string", "A summary of the current state (allocated, pending, reserved, etc.).")], (o) => [resourceClaimState(o)]);

export const resourceSlicePrinter = (): Printer =>
  simple(
    [
      col("Node", "string", `${RESOURCE}.ResourceSliceSpec`, "nodeName"),
      col("Driver", "string", `${RESOURCE}.ResourceSliceSpec`, "driver"),
      col("Pool", "string", `${RESOURCE}.ResourcePool`, "name"),
    ],
    (o) => [text(spec(o).nodeName), text(spec(o).driver), text(rec(spec(o).pool)?.name)],
  );

/** Printer factories by "group/Kind" for tables/index.ts. */
export const clusterAPIPrinters: Record<string, () => Printer> = {
  "admissionregistration.k8s.io/MutatingWebhookConfiguration": mutatingWebhookConfigurationPrinter,
  "admissionregistration.k8s.io/ValidatingWebhookConfiguration": validatingWebhookConfigurationPrinter,
  "admissionregistration.k8s.io/ValidatingAdmissionPolicy": validatingAdmissionPolicyPrinter,
  "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding": validatingAdmissionPolicyBindingPrinter,
  "admissionregistration.k8s.io/MutatingAdmissionPolicy": mutatingAdmissionPolicyPrinter,
  "admissionregistration.k8s.io/MutatingAdmissionPolicyBinding": mutatingAdmissionPolicyBindingPrinter,
  "apiregistration.k8s.io/APIService": apiServicePrinter,
  "certificates.k8s.io/CertificateSigningRequest": certificateSigningRequestPrinter,
  "flowcontrol.apiserver.k8s.io/FlowSchema": flowSchemaPrinter,
  "flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration": priorityLevelConfigurationPrinter,
  "node.k8s.io/RuntimeClass": runtimeClassPrinter,
  "scheduling.k8s.io/PriorityClass": priorityClassPrinter,
  "storage.k8s.io/StorageClass": storageClassPrinter,
  "storage.k8s.io/CSIDriver": csiDriverPrinter,
  "storage.k8s.io/CSINode": csiNodePrinter,
  "storage.k8s.io/CSIStorageCapacity": csiStorageCapacityPrinter,
  "storage.k8s.io/VolumeAttachment": volumeAttachmentPrinter,
  "storage.k8s.io/VolumeAttributesClass": volumeAttributesClassPrinter,
  "resource.k8s.io/DeviceClass": deviceClassPrinter,
  "resource.k8s.io/ResourceClaim": resourceClaimPrinter,
  "resource.k8s.io/ResourceClaimTemplate": resourceClaimTemplatePrinter,
  "resource.k8s.io/ResourceSlice": resourceSlicePrinter,
};
