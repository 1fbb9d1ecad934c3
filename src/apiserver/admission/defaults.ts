/**
 * The admission plugins kubeloop's API server runs by default: kube-apiserver 1.36's default-on
 * set as far as kubeloop implements it. Each registration is created with the server's
 * AdmissionPluginContext; the chain sorts them into upstream's order (chain.ts).
 */
import type { AdmissionPluginRegistration } from "./chain.js";
import { defaultStorageClass } from "./plugins/defaultstorageclass.js";
import { defaultTolerationSeconds } from "./plugins/defaulttolerationseconds.js";
import { limitRanger } from "./plugins/limitranger.js";
import { podSecurity } from "./podsecurity/plugin.js";
import { mutatingAdmissionPolicy } from "./policy/mutating.js";
import { validatingAdmissionPolicy } from "./policy/validating.js";
import { namespaceLifecycle } from "./plugins/namespacelifecycle.js";
import { priority } from "./plugins/priority.js";
import { resourceQuota } from "./plugins/resourcequota.js";
import { serviceAccount } from "./plugins/serviceaccount.js";
import { storageObjectInUseProtection } from "./plugins/storageobjectinuseprotection.js";
import { taintNodesByCondition } from "./plugins/taintnodesbycondition.js";

export function defaultAdmissionPlugins(): AdmissionPluginRegistration[] {
  return [namespaceLifecycle, limitRanger, serviceAccount, taintNodesByCondition, podSecurity, priority, defaultTolerationSeconds, defaultStorageClass, storageObjectInUseProtection, mutatingAdmissionPolicy, validatingAdmissionPolicy, resourceQuota];
}
