/**
 * The strategies of the cluster-side API groups, in discovery order within each group
 * (resources alphabetically), and what the server wires around them (hooks, bootstrap objects).
 */
import { mutatingAdmissionPolicyBindingStrategy, mutatingAdmissionPolicyStrategy, validatingAdmissionPolicyBindingStrategy, validatingAdmissionPolicyStrategy } from "./admissionpolicies.js";
import { mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy } from "./admissionwebhooks.js";
import { apiServiceStrategy } from "./apiservices.js";
import { certificateSigningRequestStrategy } from "./certificates.js";
import { deviceClassStrategy, resourceClaimStrategy, resourceClaimTemplateStrategy, resourceSliceStrategy } from "./dra.js";
import { flowSchemaStrategy, priorityLevelConfigurationStrategy } from "./flowcontrol.js";
import { priorityClassStrategy } from "./priorityclasses.js";
import { runtimeClassStrategy } from "./runtimeclasses.js";
import {
  csiDriverStrategy,
  csiNodeStrategy,
  csiStorageCapacityStrategy,
  storageClassStrategy,
  volumeAttachmentStrategy,
  volumeAttributesClassStrategy,
} from "./storage.js";
import type { ResourceStrategy } from "./strategy.js";

export {
  mutatingAdmissionPolicyBindingStrategy,
  mutatingAdmissionPolicyStrategy,
  validatingAdmissionPolicyBindingStrategy,
  validatingAdmissionPolicyStrategy,
  mutatingWebhookConfigurationStrategy,
  validatingWebhookConfigurationStrategy,
  apiServiceStrategy,
  certificateSigningRequestStrategy,
  deviceClassStrategy,
  resourceClaimStrategy,
  resourceClaimTemplateStrategy,
  resourceSliceStrategy,
  flowSchemaStrategy,
  priorityLevelConfigurationStrategy,
  priorityClassStrategy,
  runtimeClassStrategy,
  csiDriverStrategy,
  csiNodeStrategy,
  csiStorageCapacityStrategy,
  storageClassStrategy,
  volumeAttachmentStrategy,
  volumeAttributesClassStrategy,
};
export { apiServiceHooks, localAvailableCondition, apiregistrationGroup } from "./apiservices.js";
export { certificateSigningRequestHooks, type SignerAuthorizer, type CSRHookDeps } from "./certificates.js";
export { priorityClassHooks, ensurePriorityClasses, systemPriorityClasses } from "./priorityclasses.js";
export { isDefaultStorageClass } from "./storage.js";

export function clusterAPIStrategies(): ResourceStrategy[] {
  return [
    apiServiceStrategy,
    certificateSigningRequestStrategy,
    csiDriverStrategy,
    csiNodeStrategy,
    csiStorageCapacityStrategy,
    storageClassStrategy,
    volumeAttachmentStrategy,
    volumeAttributesClassStrategy,
    mutatingAdmissionPolicyStrategy,
    mutatingAdmissionPolicyBindingStrategy,
    mutatingWebhookConfigurationStrategy,
    validatingAdmissionPolicyStrategy,
    validatingAdmissionPolicyBindingStrategy,
    validatingWebhookConfigurationStrategy,
    priorityClassStrategy,
    runtimeClassStrategy,
    deviceClassStrategy,
    resourceClaimStrategy,
    resourceClaimTemplateStrategy,
    resourceSliceStrategy,
    flowSchemaStrategy,
    priorityLevelConfigurationStrategy,
  ];
}
