/**
 * kubeloop: client-go's machinery for TypeScript.
 *
 * This entry point grows layer by layer (see DESIGN.md); every name exported here works.
 */
export * from "./apimachinery/index.js";
export * from "./client/index.js";
export * from "./workqueue/index.js";
export * from "./events/index.js";
export * from "./leaderelection/index.js";
export * from "./informers/index.js";
export * from "./runtime/index.js";
