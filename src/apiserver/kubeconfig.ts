/** The kubeconfig the embedded server writes: one cluster, context and user, all named kubeloop. */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { stringify } from "yaml";

export const kubeconfigName = "kubeloop";

export function kubeconfigFor(serverURL: string, namespace = "default"): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: kubeconfigName,
        // Plain http: client-go sends no credentials here; @kubernetes/client-node needs
        // insecure-skip-tls-verify to accept an http server at all.
        cluster: { server: serverURL, "insecure-skip-tls-verify": true },
      },
    ],
    contexts: [{ name: kubeconfigName, context: { cluster: kubeconfigName, user: kubeconfigName, namespace } }],
    "current-context": kubeconfigName,
    users: [{ name: kubeconfigName, user: {} }],
    preferences: {},
  });
}

export async function writeKubeconfig(path: string, serverURL: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, kubeconfigFor(serverURL), { mode: 0o600 });
}
