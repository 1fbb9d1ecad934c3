export * from "./resourcelock.js";
export * from "./leaderelector.js";
export * from "./metrics.js";
