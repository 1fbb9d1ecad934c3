/**
 * Wire types for the Kubernetes API, re-exported from `kubernetes-types` under one import path.
 *
 * These are type-only: `kubernetes-types` has no runtime. Import as
 * `import type { corev1, appsv1 } from "kubeloop"`.
 */
export type * as corev1 from "kubernetes-types/core/v1.js";
export type * as appsv1 from "kubernetes-types/apps/v1.js";
export type * as metav1 from "kubernetes-types/meta/v1.js";
export type * as coordinationv1 from "kubernetes-types/coordination/v1.js";
export type * as rbacv1 from "kubernetes-types/rbac/v1.js";
export type * as apiextensionsv1 from "kubernetes-types/apiextensions/v1.js";
export type * as eventsv1 from "kubernetes-types/events/v1.js";
export type * as autoscalingv1 from "kubernetes-types/autoscaling/v1.js";
export type * as discoveryv1 from "kubernetes-types/discovery/v1.js";
export type * as authorizationv1 from "kubernetes-types/authorization/v1.js";
export type * as authenticationv1 from "kubernetes-types/authentication/v1.js";
/** A value that is an integer or a string such as "25%" (intstr.IntOrString). */
export type IntOrString = number | string;

import type { ObjectMeta, ListMeta } from "kubernetes-types/meta/v1.js";

/** Removes `readonly` (kubernetes-types marks server-set fields such as uid read-only). */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** ObjectMeta with every field writable: what servers, trackers and builders fill in. */
export type WritableObjectMeta = Writable<ObjectMeta>;

/**
 * Any typed Kubernetes object (Deployment, Lease, ...): what generic code such as clients and
 * informers is parameterised over. Typed interfaces from kubernetes-types satisfy it.
 */
export interface TypedObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** Any Kubernetes object, unstructured: apiVersion, kind, metadata and whatever else its kind carries. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: WritableObjectMeta;
  [field: string]: unknown;
}

/** A Kubernetes list (FooList): items plus list metadata (resourceVersion, continue). */
export interface KubeList<T extends TypedObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: T[];
}
