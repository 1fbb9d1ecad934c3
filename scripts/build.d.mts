/** Whether dist/ is older than the sources. */
export function isStale(): boolean;
/** Builds dist/ when stale (or forced), one build at a time across processes; returns whether it built. */
export function ensureBuilt(opts?: { force?: boolean; log?: (message: string) => void }): boolean;
