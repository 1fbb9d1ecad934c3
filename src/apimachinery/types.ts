/**
 * Wire types for the Kubernetes API: kubeloop's own, generated from the Kubernetes 1.36 API
 * definitions into ./api/ (scripts/apigen/generate.mjs), one namespace per group version.
 *
 * These are type-only: the generated modules have no runtime. Import as
 * `import type { corev1, appsv1 } from "kubeloop"`.
 */
export type * from "./api/index.js";
/** A value that is an integer or a string such as "25%" (intstr.IntOrString). */
export type IntOrString = number | string;

import type { ObjectMeta, ListMeta } from "./api/meta/v1.js";

/**
 * Removes `readonly`. The generated types have no readonly fields, so this is the identity on
 * them; it stays for code written against types that mark server-set fields read-only.
 */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** ObjectMeta with every field writable: what servers, trackers and builders fill in. */
export type WritableObjectMeta = Writable<ObjectMeta>;

/**
 * Any typed Kubernetes object (Deployment, Lease, ...): what generic code such as clients and
 * informers is parameterised over. The generated wire types satisfy it.
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
