/** The Node.js LTS version the unit tests also run on in CI. */
export const LTS_NODE_VERSION: string;
/** Installs (once, from the npm registry) and returns the path of that node binary. */
export function ensureLtsNode(version?: string): string;
