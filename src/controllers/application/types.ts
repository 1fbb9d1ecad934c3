/**
 * The Application API (kubeloop.dev/v1alpha1) as TypeScript types, and the constants the
 * controller, the CRD (deploy/crds/applications.kubeloop.dev.yaml) and the manifests share.
 */
import type { DeploymentStrategy } from "kubernetes-types/apps/v1.js";
import type { EnvVar, ResourceRequirements } from "kubernetes-types/core/v1.js";
import type { ListMeta, ObjectMeta } from "kubernetes-types/meta/v1.js";
import type { Condition } from "../../apimachinery/conditions.js";
import type { GroupVersionKind } from "../../apimachinery/gvk.js";
import { defineResource } from "../../apimachinery/resource.js";
import type { IntOrString } from "../../apimachinery/types.js";

export const APPLICATION_GROUP = "kubeloop.dev";
export const APPLICATION_VERSION = "v1alpha1";
export const APPLICATION_API_VERSION = `${APPLICATION_GROUP}/${APPLICATION_VERSION}`;
export const APPLICATION_CRD_NAME = "applications.kubeloop.dev";

export const APPLICATION_GVK: GroupVersionKind = Object.freeze({ group: APPLICATION_GROUP, version: APPLICATION_VERSION, kind: "Application" });


export interface ApplicationPort {
  name?: string;
  containerPort: number;
  /** TCP (default), UDP or SCTP. */
  protocol?: "TCP" | "UDP" | "SCTP";
}

export type ApplicationServiceType = "ClusterIP" | "NodePort" | "LoadBalancer";

export interface ApplicationServiceSpec {
  /** Default ClusterIP. */
  type?: ApplicationServiceType;
  port: number;
  /** The container port, by number or name; defaults to `port`. */
  targetPort?: IntOrString;
}

export interface ApplicationSpec {
  /** The Deployment's (and Service's) name; the controller uses metadata.name when absent. */
  deploymentName?: string;
  /** 0..1000, default 1 (schema default). */
  replicas?: number;
  image: string;
  ports?: ApplicationPort[];
  env?: EnvVar[];
  resources?: ResourceRequirements;
  /** Absent: no Service. */
  service?: ApplicationServiceSpec;
  strategy?: DeploymentStrategy;
  /** Passed to the Deployment's spec.paused (pauses rollouts, not reconciliation). */
  paused?: boolean;
}

export type ConditionStatus = "True" | "False" | "Unknown";

/** A metav1.Condition (the CRD's schema), so apimachinery's condition helpers apply. */
export interface ApplicationCondition extends Condition {
  status: ConditionStatus;
}

export interface ApplicationStatus {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  updatedReplicas?: number;
  /** The pods' label selector in string form, read by the scale subresource. */
  selector?: string;
  serviceName?: string;
  conditions?: ApplicationCondition[];
}

export interface Application {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: ApplicationSpec;
  status?: ApplicationStatus;
}

/** How clients, informers and the cache address Applications (typed: ResourceDescriptor<Application>). */
export const applications = defineResource<Application>({
  group: APPLICATION_GROUP,
  version: APPLICATION_VERSION,
  resource: "applications",
  kind: "Application",
  namespaced: true,
});

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
