/**
 * The Application API (kubeloop.dev/v1alpha1) as TypeScript types, and the constants the
 * controller, the CRD (declaration.ts, generated into deploy/crds/) and the manifests share.
 */
import type { ListMeta } from "../../apimachinery/api/meta/v1.js";
import type { GroupVersionKind } from "../../apimachinery/gvk.js";
import type { CustomResourceObject } from "../../runtime/crd/customresource.js";
import type { TypeOf } from "../../runtime/crd/schema.js";
import { applicationCondition, applicationCRD, applicationPort, applicationServiceSpec, applicationSpec, applicationStatus } from "./declaration.js";

export const APPLICATION_GROUP = "kubeloop.dev";
export const APPLICATION_VERSION = "v1alpha1";
export const APPLICATION_API_VERSION = `${APPLICATION_GROUP}/${APPLICATION_VERSION}`;
export const APPLICATION_CRD_NAME = "applications.kubeloop.dev";

export const APPLICATION_GVK: GroupVersionKind = Object.freeze({ group: APPLICATION_GROUP, version: APPLICATION_VERSION, kind: "Application" });


// The types below are inferred from the one declaration (declaration.ts): the CRD that the API
// server enforces and these types cannot drift apart.

export type ApplicationPort = TypeOf<typeof applicationPort>;
export type ApplicationServiceSpec = TypeOf<typeof applicationServiceSpec>;
export type ApplicationServiceType = NonNullable<ApplicationServiceSpec["type"]>;
/** deploymentName defaults to metadata.name (controller); replicas 0..1000, default 1 (schema default). */
export type ApplicationSpec = TypeOf<typeof applicationSpec>;
export type ConditionStatus = "True" | "False" | "Unknown";
/** A metav1.Condition (the CRD's schema), so apimachinery's condition helpers apply. */
export type ApplicationCondition = TypeOf<typeof applicationCondition>;
export type ApplicationStatus = TypeOf<typeof applicationStatus>;
export type Application = CustomResourceObject<typeof applicationCRD>;

/** How clients, informers and the cache address Applications (typed: ResourceDescriptor<Application>). */
export const applications = applicationCRD.resource;

/** @deprecated the name before descriptors were typed: use `applications`. */
export const applicationsResource = applications;

export interface ApplicationList {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: Application[];
}

// --- labels, annotations, names -------------------------------------------------------------

export const LABEL_NAME = "app.kubernetes.io/name";
export const LABEL_INSTANCE = "app.kubernetes.io/instance";
export const LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
export const MANAGED_BY = "kubeloop";

/** `kubeloop.dev/paused: "true"` on an Application stops its reconciliation. */
export const PAUSED_ANNOTATION = "kubeloop.dev/paused";

/** The field manager of every write the controller makes. */
export const FIELD_MANAGER = "kubeloop-application";
/** The event source component. */
export const CONTROLLER_NAME = "application-controller";
/** The name of the single container in the pod template. */
export const CONTAINER_NAME = "app";

// --- condition types and reasons ------------------------------------------------------------

export const CONDITION_AVAILABLE = "Available";
export const CONDITION_PROGRESSING = "Progressing";
export const CONDITION_RECONCILE_ERROR = "ReconcileError";
/** Present (True) only while the paused annotation stops reconciliation. */
export const CONDITION_PAUSED = "Paused";

/** Event reason when a sync changed something (sample-controller's SuccessSynced). */
export const REASON_SYNCED = "Synced";
/** Event and condition reason when a child of that name belongs to someone else. */
export const REASON_RESOURCE_EXISTS = "ErrResourceExists";
/** ReconcileError=False reason. */
export const REASON_RECONCILED = "ReconcileSucceeded";
/** Condition reason for any other write failure. */
export const REASON_RECONCILE_FAILED = "ReconcileFailed";
export const REASON_PAUSED = "ReconciliationPaused";
/** Available/Progressing before the Deployment reports its own condition. */
export const REASON_AWAITING_DEPLOYMENT = "AwaitingDeploymentStatus";

/** sample-controller's MessageResourceExists, for Applications. */
export const MESSAGE_RESOURCE_EXISTS = "Resource %q already exists and is not managed by Application";
/** sample-controller's MessageResourceSynced, for Applications. */
export const MESSAGE_RESOURCE_SYNCED = "Application synced successfully";
export const MESSAGE_PAUSED = `reconciliation is paused by the annotation ${PAUSED_ANNOTATION}="true"`;
