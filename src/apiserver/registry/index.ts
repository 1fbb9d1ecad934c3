/**
 * The built-in resource strategies of the embedded API server, one module per resource, and the
 * shared validation helpers they are made of.
 */
import { configMapStrategy } from "./configmaps.js";
import { deploymentStrategy } from "./deployments.js";
import { endpointsStrategy } from "./endpoints.js";
import { coreEventStrategy, eventsV1EventStrategy } from "./events.js";
import { leaseStrategy } from "./leases.js";
import { namespaceStrategy } from "./namespaces.js";
import { nodeStrategy } from "./nodes.js";
import { podStrategy } from "./pods.js";
import { replicaSetStrategy } from "./replicasets.js";
import { secretStrategy } from "./secrets.js";
import { serviceAccountStrategy } from "./serviceaccounts.js";
import { serviceStrategy } from "./services.js";
import type { ResourceStrategy } from "./strategy.js";

export type { ResourceNames, ResourceStrategy, ScaleSubresource, SubresourceStrategy } from "./strategy.js";
export { defineStrategy, standardVerbs, objectMetaFields, type StrategyDefinition } from "./define.js";
export {
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateLabels,
  validateAnnotations,
  validateLabelSelector,
  validateImmutableField,
  validateNonnegative,
  validateFinalizers,
  selectorMatches,
  fieldImmutableErrorMsg,
} from "./meta.js";
export { defaultPodSpec, defaultPodOnlySpec, defaultPodTemplateSpec, defaultContainer, defaultImagePullPolicy } from "./poddefaults.js";
export { validatePodSpec, validatePodTemplateSpec, validatePodSpecUpdate, computePodQOS } from "./podvalidation.js";
export { parseQuantity, compareQuantities } from "./quantity.js";
export { semanticDeepEqual } from "./equality.js";
export { configMapStrategy } from "./configmaps.js";
export { deploymentStrategy } from "./deployments.js";
export { endpointsStrategy } from "./endpoints.js";
export { coreEventStrategy, eventsV1EventStrategy, coreEventToEventsV1, eventsV1ToCoreEvent } from "./events.js";
export { leaseStrategy } from "./leases.js";
export { namespaceStrategy } from "./namespaces.js";
export { nodeStrategy } from "./nodes.js";
export { podStrategy } from "./pods.js";
export { replicaSetStrategy } from "./replicasets.js";
export { secretStrategy } from "./secrets.js";
export { serviceAccountStrategy } from "./serviceaccounts.js";
export { serviceStrategy } from "./services.js";

// ---- cluster-side API groups: admissionregistration, apiregistration, certificates, flowcontrol,
// node, resource, scheduling, storage (clusterapis.ts lists them) ----
export * from "./clusterapis.js";

/** Every built-in strategy, core group first, in discovery order within each group. */
export function builtinStrategies(): ResourceStrategy[] {
  return [
    configMapStrategy,
    endpointsStrategy,
    coreEventStrategy,
    namespaceStrategy,
    nodeStrategy,
    podStrategy,
    secretStrategy,
    serviceAccountStrategy,
    serviceStrategy,
    deploymentStrategy,
    replicaSetStrategy,
    leaseStrategy,
    eventsV1EventStrategy,
  ];
}
