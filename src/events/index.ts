export * from "./correlator.js";
export * from "./broadcaster.js";
export * from "./sink.js";
export { goSprintf } from "./format.js";
