export * from "./store.js";
export * from "./deltafifo.js";
export * from "./reflector.js";
export * from "./backoff.js";
export * from "./handlers.js";
export * from "./sharedinformer.js";
export * from "./lister.js";
export * from "./factory.js";
