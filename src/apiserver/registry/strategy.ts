/**
 * A resource strategy: everything kube-apiserver's registry knows about one built-in resource
 * (its names, scope, subresources, defaults, validation and the create/update preparations),
 * kept apart from storage and HTTP so that the generic REST handler serves every resource
 * through the same code path (as upstream's genericregistry.Store does with its strategies).
 *
 * Every method receives objects it may mutate (the handler passes copies); none performs I/O.
 */
import type { FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { VersionConversion } from "../rest/conversion.js";

export interface ResourceNames {
  group: string;
  version: string;
  kind: string;
  /** Plural resource name: "deployments". */
  resource: string;
  singular: string;
  listKind: string;
  shortNames: string[];
  /** e.g. ["all"] */
  categories: string[];
  namespaced: boolean;
}

export interface ScaleSubresource {
  /** JSON path of spec replicas in the object, e.g. ".spec.replicas". */
  specReplicasPath: string;
  statusReplicasPath: string;
  /**
   * Path of the serialized label selector in status, or of a LabelSelector in spec (Deployments
   * and ReplicaSets use ".spec.selector", a LabelSelector the Scale's status.selector is built from).
   */
  labelSelectorPath?: string;
  /** The path holds a label map (ReplicationControllers), not a LabelSelector. */
  selectorIsMap?: boolean;
}

/**
 * The subresources of a resource: status and scale are served by the generic handler from the
 * strategy; `extra` names the ones served by dedicated handlers (pods/binding, pods/eviction,
 * pods/ephemeralcontainers, pods/resize, serviceaccounts/token), listed in discovery.
 */
export interface Subresources {
  status?: boolean;
  scale?: ScaleSubresource;
  extra?: readonly string[];
  /** Subresources with their own update strategy (certificatesigningrequests/approval). */
  updates?: Readonly<Record<string, SubresourceStrategy>>;
}

/**
 * A subresource written like status but with its own preparation and validation (upstream
 * gives it its own UpdateStrategy), e.g. certificatesigningrequests/approval. Served for GET,
 * PUT and PATCH; the store calls the resource hooks' beforeUpdate with `ctx.subresource` set.
 */
export interface SubresourceStrategy {
  /** Before validation: keep what this subresource may not change from `old`. */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  /** The rules of this subresource's updates (including ObjectMetaUpdate). */
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[];
}

export interface ResourceStrategy {
  readonly names: ResourceNames;
  /**
   * Verbs served on the main resource, as upstream's discovery lists them: the eight standard
   * verbs for most resources (events included); namespaces have no deletecollection.
   */
  readonly verbs: string[];
  readonly subresources: Subresources;

  /** Fill in defaulted fields (SetDefaults_*), on create and on every update. */
  defaults(obj: KubeObject): void;
  /**
   * Before validation on create: e.g. clear status, set generation 1, set pod phase Pending.
   * The generic parts of rest.BeforeCreate (uid, creationTimestamp, name generation, clearing
   * deletionTimestamp, namespace from the request) are the handler's.
   */
  prepareForCreate(obj: KubeObject): void;
  /**
   * Before validation on an update of the main resource: metadata.generation restarts from the
   * stored value (clients cannot set it), the old status is kept, and the generation is bumped
   * when the spec (Deployments: spec or annotations) changed.
   */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  /**
   * Before validation on a status update: keep the old spec and generation; metadata may change
   * as upstream allows, except per kind: Deployments keep old labels, Pods keep owner references
   * and deletionTimestamp.
   */
  prepareForStatusUpdate(obj: KubeObject, old: KubeObject): void;
  validate(obj: KubeObject): FieldError[];
  /**
   * Includes ValidateObjectMetaUpdate, which requires metadata.resourceVersion: for an
   * unconditional update the handler sets it to the stored object's before validating, as the
   * generic store does. uid and creationTimestamp must likewise be copied from the stored object
   * when the client omitted them (rest.BeforeUpdate), or they fail as "field is immutable".
   */
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[];
  validateStatusUpdate(obj: KubeObject, old: KubeObject): FieldError[];
  /**
   * Field values for field selectors (metadata.name, metadata.namespace, and per kind e.g.
   * spec.nodeName, status.phase for pods).
   */
  fieldSet(obj: KubeObject): Record<string, string>;
  /** Whether the object may be created again with the same name after an update (AllowCreateOnUpdate). */
  readonly allowCreateOnUpdate: boolean;
  /** Whether an update without metadata.resourceVersion is accepted (AllowUnconditionalUpdate). */
  readonly allowUnconditionalUpdate: boolean;
  /** Custom resources: the served version's `schema.openAPIV3Schema`, published in OpenAPI. */
  readonly openAPIV3Schema?: unknown;
  /**
   * A version served from another version's storage (autoscaling/v1 HorizontalPodAutoscalers
   * are stored as autoscaling/v2): how objects cross between the two (rest/conversion.ts).
   */
  readonly conversion?: VersionConversion;
  /**
   * A DELETE that names no propagation policy orphans the dependents (upstream's
   * DefaultGarbageCollectionPolicy = OrphanDependents: batch/v1 Jobs), with this warning.
   */
  readonly orphanDependentsByDefault?: { warning: string };
  /** A Warning every request for this resource gets (deprecated APIs: "v1 ComponentStatus is deprecated in v1.19+"). */
  readonly warning?: string;
}
