export * from "./controller.js";
export * from "./controllerrefmanager.js";
export * from "./expectations.js";
export * from "./logging.js";
export * from "./metrics.js";
export * from "./manager.js";
export * from "./webhook/index.js";
