/**
 * The default StorageClass the control plane installs, as minikube's storage-provisioner addon
 * does: `standard`, the default class (storageclass.kubernetes.io/is-default-class: "true"),
 * provisioned by the simulated provisioner, reclaim policy Delete, volumeBindingMode Immediate
 * (minikube's choice; kind's `standard` is WaitForFirstConsumer — create a class of your own for
 * that). With it, a claim that names no class gets `standard` (DefaultStorageClass admission) and
 * is bound at once.
 */
import type { StorageClass } from "../../apimachinery/api/storage/v1.js";
import { isAlreadyExists } from "../../apimachinery/errors.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import { VOLUME_BINDING_IMMEDIATE } from "./constants.js";
import { SIMULATED_PROVISIONER } from "./provisioner.js";

export const DEFAULT_STORAGE_CLASS_NAME = "standard";
export const IS_DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class";

export function defaultStorageClass(): StorageClass {
  return {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: {
      name: DEFAULT_STORAGE_CLASS_NAME,
      annotations: { [IS_DEFAULT_CLASS_ANNOTATION]: "true" },
      labels: { "addonmanager.kubernetes.io/mode": "EnsureExists" },
    },
    provisioner: SIMULATED_PROVISIONER,
    reclaimPolicy: "Delete",
    volumeBindingMode: VOLUME_BINDING_IMMEDIATE,
  };
}

/** Creates the default class unless a class of that name exists (EnsureExists: a user's edits stay). */
export async function installDefaultStorageClass(client: ResourceClientFactory, signal?: AbortSignal): Promise<void> {
  try {
    await client.resource(builtin.storageClasses).create(defaultStorageClass(), { signal });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}
