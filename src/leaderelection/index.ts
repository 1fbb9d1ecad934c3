export * from "./resourcelock.js";
export * from "./leaderelector.js";
