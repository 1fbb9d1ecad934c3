export * from "./types.js";
export * from "./gvk.js";
export * from "./objectname.js";
export * from "./fielderrors.js";
export * from "./errors.js";
export * from "./clock.js";
export * from "./ownerrefs.js";
export * from "./deepcopy.js";
