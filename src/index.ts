/**
 * kubeloop: client-go's machinery for TypeScript.
 *
 * This entry point grows layer by layer (see DESIGN.md); every name exported here works.
 */
export * from "./apimachinery/index.js";
