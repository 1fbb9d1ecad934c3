/**
 * pods/binding: how a scheduler assigns a pod to a node (POST a Binding, as upstream's
 * BindingREST). The pod's spec.nodeName is otherwise immutable, so this is the one way in.
 *
 * Rules as upstream: the target must be a Node with a name; a pod already assigned is a 409
 * Conflict ("pod <name> is already assigned to node <node>"); a pod being deleted cannot be
 * bound; the binding's annotations are copied onto the pod; the PodScheduled condition is set.
 */
import type { Status } from "../../apimachinery/api/meta/v1.js";
import { StatusError } from "../../apimachinery/errors.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { Clock } from "../../apimachinery/clock.js";
import type { ResourceStrategy } from "../registry/strategy.js";
import type { WriteContext } from "../rest/context.js";
import { ResourceStore, type AdmissionView, type ResourceStoreDeps } from "../rest/store.js";

interface BindingShape {
  metadata?: { name?: string; annotations?: Record<string, string> };
  target?: { kind?: string; name?: string; apiVersion?: string };
}

interface PodShape {
  metadata?: { name?: string; deletionTimestamp?: string; annotations?: Record<string, string> };
  spec?: { nodeName?: string };
  status?: { conditions?: Array<{ type: string; status: string; lastProbeTime?: string | null; lastTransitionTime?: string }> };
}

/** Validates a Binding body for the pod `podName`; returns the target node name. */
export function bindingTarget(body: KubeObject, podName: string): string {
  const b = body as BindingShape;
  const errs: FieldError[] = [];
  if (b.metadata?.name && b.metadata.name !== podName) {
    throw StatusError.badRequest(`the name of the object (${b.metadata.name}) does not match the name on the URL (${podName})`);
  }
  if (!b.target?.name) errs.push(fieldErrors.required("target.name", ""));
  if (b.target?.kind && b.target.kind !== "Node") errs.push(fieldErrors.notSupported("target.kind", b.target.kind, ["Node"]));
  if (errs.length) throw StatusError.invalid({ group: "", kind: "Binding" }, podName, errs);
  return b.target!.name!;
}

/** The update that assigns the pod: used as the store's `prepare` hook. */
export function assignPod(body: KubeObject, podName: string, node: string, clock: Clock): (obj: KubeObject, old: KubeObject) => FieldError[] {
  const annotations = (body as BindingShape).metadata?.annotations;
  return (obj, old) => {
    const pod = structuredClone(old) as KubeObject & PodShape;
    if (pod.metadata?.deletionTimestamp) {
      throw StatusError.conflict({ group: "", resource: "pods" }, podName, "pod is being deleted, cannot be assigned to a host");
    }
    if (pod.spec?.nodeName) {
      throw StatusError.conflict({ group: "", resource: "pods" }, podName, `pod ${podName} is already assigned to node "${pod.spec.nodeName}"`);
    }
    pod.spec = { ...pod.spec, nodeName: node };
    if (annotations) pod.metadata = { ...pod.metadata, annotations: { ...pod.metadata?.annotations, ...annotations } };
    const now = new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
    const conditions = (pod.status?.conditions ?? []).filter((c) => c.type !== "PodScheduled");
    conditions.push({ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: now });
    pod.status = { ...pod.status, conditions };
    for (const k of Object.keys(obj)) delete obj[k];
    Object.assign(obj, pod);
    return [];
  };
}

/** How admission sees an assignment: a CREATE of the v1 Binding `body` (pods/binding). */
export function bindingAdmission(body: KubeObject): AdmissionView {
  return { subresource: "binding", operation: "CREATE", kind: { group: "", version: "v1", kind: "Binding" }, object: () => body, oldObject: () => undefined };
}

export const bindingSuccess: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };

/**
 * POST /api/v1/namespaces/<ns>/bindings: the older form of pods/binding, naming the pod in the
 * Binding's metadata.name. A store without storage of its own: create assigns the pod through
 * the pods store and answers the success Status, as upstream's BindingREST.
 */
export class BindingStore extends ResourceStore {
  constructor(
    strategy: ResourceStrategy,
    deps: ResourceStoreDeps,
    private readonly pods: () => ResourceStore | undefined,
  ) {
    super(strategy, deps);
  }

  override async create(namespace: string | undefined, body: KubeObject, ctx: WriteContext): Promise<KubeObject> {
    const pods = this.pods();
    if (!pods) throw StatusError.internalError(new Error("pods are not served"));
    const name = typeof body.metadata?.name === "string" ? body.metadata.name : "";
    if (name === "") throw StatusError.invalid({ group: "", kind: "Binding" }, "", [fieldErrors.required("metadata.name", "name or generateName is required")]);
    const node = bindingTarget(body, name);
    await pods.update(namespace, name, (cur) => cur ?? {}, ctx, { prepare: assignPod(body, name, node, this.clock), admission: bindingAdmission(body) });
    return bindingSuccess as KubeObject;
  }
}
