import type { GroupVersionKind } from "../../apimachinery/gvk.js";

/** The kind the DaemonSet controller controls (controllerKind). */
export const DAEMONSET_GVK: GroupVersionKind = Object.freeze({ group: "apps", version: "v1", kind: "DaemonSet" });
