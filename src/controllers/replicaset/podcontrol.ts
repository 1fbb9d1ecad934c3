/**
 * PodControl: how a workload controller creates and deletes its pods, with the events upstream's
 * RealPodControl records (pkg/controller/controller_utils.go). Tests may substitute their own.
 */
import type { ObjectReference, Pod, PodTemplateSpec } from "../../apimachinery/api/core/v1.js";
import type { OwnerReference } from "../../apimachinery/api/meta/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { isNotFound, statusOf } from "../../apimachinery/errors.js";
import type { TypedObject } from "../../apimachinery/types.js";
import { nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { EventRecorder } from "../../events/broadcaster.js";

export const SUCCESSFUL_CREATE_POD_REASON = "SuccessfulCreate";
export const FAILED_CREATE_POD_REASON = "FailedCreate";
export const SUCCESSFUL_DELETE_POD_REASON = "SuccessfulDelete";
export const FAILED_DELETE_POD_REASON = "FailedDelete";

/** The status cause type the API server uses when a namespace is terminating (v1.NamespaceTerminatingCause). */
export const NAMESPACE_TERMINATING_CAUSE = "NamespaceTerminating";

/** The owner events are recorded against: its identity plus the kind, which cached objects may lack. */
export interface PodOwner {
  object: TypedObject;
  apiVersion: string;
  kind: string;
}

export interface PodControl {
  /** Creates one pod from `template` in `namespace`, controlled through `controllerRef`. */
  createPods(namespace: string, template: PodTemplateSpec | undefined, owner: PodOwner, controllerRef: OwnerReference): Promise<void>;
  /** Deletes a pod; rejects with the API error (NotFound included, so callers can tell). */
  deletePod(namespace: string, name: string, owner: PodOwner): Promise<void>;
}

/** Whether an API error says the namespace is terminating (apierrors.HasStatusCause). */
export function hasNamespaceTerminatingCause(err: unknown): boolean {
  return (statusOf(err)?.details?.causes ?? []).some((c) => c.reason === NAMESPACE_TERMINATING_CAUSE);
}

/** The Go-style text of an error, for events and condition messages. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

export function ownerReference(owner: PodOwner): ObjectReference {
  const m = owner.object.metadata ?? {};
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    namespace: m.namespace,
    name: m.name,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
  };
}

/** Checks a controller reference is complete (validateControllerRef). */
export function validateControllerRef(ref: OwnerReference | undefined): void {
  if (!ref) throw new Error("controllerRef is nil");
  if (!ref.apiVersion) throw new Error("controllerRef has empty APIVersion");
  if (!ref.kind) throw new Error("controllerRef has empty Kind");
  if (!ref.name) throw new Error("controllerRef has empty Name");
  if (!ref.uid) throw new Error("controllerRef has empty UID");
  if (ref.controller !== true) throw new Error("controllerRef.Controller is not set to true");
  if (ref.blockOwnerDeletion !== true) throw new Error("controllerRef.BlockOwnerDeletion is not set");
}

/**
 * The pod a template stamps out (GetPodFromTemplate): the template's labels, annotations and
 * finalizers, generateName "<owner>-" (just "<owner>" when that prefix is not a valid name), the
 * controller reference, and a copy of the template's spec.
 */
export function getPodFromTemplate(template: PodTemplateSpec | undefined, ownerName: string, controllerRef?: OwnerReference): Pod {
  const tm = template?.metadata ?? {};
  let prefix = `${ownerName}-`;
  if (nameIsDNSSubdomain(prefix, true).length > 0) prefix = ownerName;
  const pod: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: prefix,
      ...(tm.labels ? { labels: { ...tm.labels } } : {}),
      ...(tm.annotations ? { annotations: { ...tm.annotations } } : {}),
      ...(tm.finalizers ? { finalizers: [...tm.finalizers] } : {}),
      ...(controllerRef ? { ownerReferences: [{ ...controllerRef }] } : {}),
    },
    spec: deepCopy(template?.spec ?? { containers: [] }),
  };
  return pod;
}

/** PodControl over the API, recording SuccessfulCreate/FailedCreate/SuccessfulDelete/FailedDelete. */
export class RealPodControl implements PodControl {
  constructor(
    private readonly client: ResourceClientFactory,
    private readonly recorder: EventRecorder,
  ) {}

  async createPods(namespace: string, template: PodTemplateSpec | undefined, owner: PodOwner, controllerRef: OwnerReference): Promise<void> {
    validateControllerRef(controllerRef);
    const pod = getPodFromTemplate(template, owner.object.metadata?.name ?? "", controllerRef);
    if (Object.keys(pod.metadata?.labels ?? {}).length === 0) throw new Error("unable to create pods, no labels");
    let created: Pod;
    try {
      created = await this.client.resource<Pod>(builtin.pods, namespace).create(pod);
    } catch (err) {
      if (!hasNamespaceTerminatingCause(err)) {
        this.recorder.eventf(ownerReference(owner), "Warning", FAILED_CREATE_POD_REASON, "Error creating: %v", errorMessage(err));
      }
      throw err;
    }
    this.recorder.eventf(ownerReference(owner), "Normal", SUCCESSFUL_CREATE_POD_REASON, "Created pod: %v", created.metadata?.name ?? "");
  }

  async deletePod(namespace: string, name: string, owner: PodOwner): Promise<void> {
    try {
      await this.client.resource<Pod>(builtin.pods, namespace).delete(name);
    } catch (err) {
      if (isNotFound(err)) throw err;
      this.recorder.eventf(ownerReference(owner), "Warning", FAILED_DELETE_POD_REASON, "Error deleting: %v", errorMessage(err));
      throw new PodDeleteError(err);
    }
    this.recorder.eventf(ownerReference(owner), "Normal", SUCCESSFUL_DELETE_POD_REASON, "Deleted pod: %v", name);
  }
}

/** A failed pod deletion ("unable to delete pods: <cause>"); `cause` is the API error. */
export class PodDeleteError extends Error {
  constructor(override readonly cause: unknown) {
    super(`unable to delete pods: ${errorMessage(cause)}`);
    this.name = "PodDeleteError";
  }
}
