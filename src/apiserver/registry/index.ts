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

// ---- workload-side resources (issue 14: core/v1, apps, batch, autoscaling, policy, discovery, networking)
import { bindingStrategy, componentStatusStrategy } from "./componentstatuses.js";
import { controllerRevisionStrategy } from "./controllerrevisions.js";
import { cronJobStrategy } from "./cronjobs.js";
import { daemonSetStrategy } from "./daemonsets.js";
import { endpointSliceStrategy } from "./endpointslices.js";
import { horizontalPodAutoscalerStrategy, horizontalPodAutoscalerV1Strategy } from "./horizontalpodautoscalers.js";
import { ingressClassStrategy } from "./ingressclasses.js";
import { ingressStrategy } from "./ingresses.js";
import { ipAddressStrategy, serviceCIDRStrategy } from "./ipaddresses.js";
import { jobStrategy } from "./jobs.js";
import { limitRangeStrategy } from "./limitranges.js";
import { networkPolicyStrategy } from "./networkpolicies.js";
import { persistentVolumeClaimStrategy, persistentVolumeStrategy } from "./persistentvolumes.js";
import { podDisruptionBudgetStrategy } from "./poddisruptionbudgets.js";
import { podTemplateStrategy } from "./podtemplates.js";
import { replicationControllerStrategy } from "./replicationcontrollers.js";
import { resourceQuotaStrategy } from "./resourcequotas.js";
import { statefulSetStrategy } from "./statefulsets.js";

export { bindingStrategy, componentStatusStrategy } from "./componentstatuses.js";
export { controllerRevisionStrategy } from "./controllerrevisions.js";
export { cronJobStrategy } from "./cronjobs.js";
export { daemonSetStrategy, templateGenerationAnnotation } from "./daemonsets.js";
export { endpointSliceStrategy } from "./endpointslices.js";
export { horizontalPodAutoscalerStrategy, horizontalPodAutoscalerV1Strategy } from "./horizontalpodautoscalers.js";
export { hpaV1ToV2, hpaV2ToV1 } from "./hpaconversion.js";
export { ingressClassStrategy } from "./ingressclasses.js";
export { ingressStrategy } from "./ingresses.js";
export { ipAddressStrategy, serviceCIDRStrategy } from "./ipaddresses.js";
export { jobStrategy, controllerUidLabel, jobNameLabel, legacyControllerUidLabel, legacyJobNameLabel } from "./jobs.js";
export { limitRangeStrategy } from "./limitranges.js";
export { networkPolicyStrategy } from "./networkpolicies.js";
export { persistentVolumeClaimStrategy, persistentVolumeStrategy } from "./persistentvolumes.js";
export { podDisruptionBudgetStrategy } from "./poddisruptionbudgets.js";
export { podTemplateStrategy } from "./podtemplates.js";
export { replicationControllerStrategy } from "./replicationcontrollers.js";
export { resourceQuotaStrategy } from "./resourcequotas.js";
export { statefulSetStrategy } from "./statefulsets.js";
export { servedAtVersion, type ServedVersion } from "./versions.js";

/** The strategies of issue 14's resources (the storage version of a kind before its other versions). */
function workloadStrategies(): ResourceStrategy[] {
  return [
    bindingStrategy,
    componentStatusStrategy,
    limitRangeStrategy,
    persistentVolumeClaimStrategy,
    persistentVolumeStrategy,
    podTemplateStrategy,
    replicationControllerStrategy,
    resourceQuotaStrategy,
    controllerRevisionStrategy,
    daemonSetStrategy,
    statefulSetStrategy,
    horizontalPodAutoscalerStrategy,
    horizontalPodAutoscalerV1Strategy,
    cronJobStrategy,
    jobStrategy,
    podDisruptionBudgetStrategy,
    endpointSliceStrategy,
    ingressClassStrategy,
    ingressStrategy,
    ipAddressStrategy,
    networkPolicyStrategy,
    serviceCIDRStrategy,
  ];
}
// ---- end of workload-side resources

/** Every built-in strategy (discovery sorts each group-version's resources by name). */
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
    ...workloadStrategies(),
  ];
}
