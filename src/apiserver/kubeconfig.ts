/** The kubeconfig the embedded server writes: one cluster, context and user, all named kubeloop. */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { stringify } from "yaml";
import { writePrivateFile } from "./privatefiles.js";

export const kubeconfigName = "kubeloop";

/** What the kubeconfig's cluster and user carry besides the URL (HTTPS: the CA and a client credential). */
export interface KubeconfigCredentials {
  /** PEM CA bundle the server certificate is verified against (certificate-authority-data). */
  caPem?: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  token?: string;
}

const b64 = (pem: string) => Buffer.from(pem).toString("base64");

export function kubeconfigFor(serverURL: string, namespace = "default", credentials?: KubeconfigCredentials): string {
  const user: Record<string, string> = {};
  if (credentials?.clientCertPem) user["client-certificate-data"] = b64(credentials.clientCertPem);
  if (credentials?.clientKeyPem) user["client-key-data"] = b64(credentials.clientKeyPem);
  if (credentials?.token) user.token = credentials.token;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: kubeconfigName,
        // Plain http: client-go sends no credentials here; @kubernetes/client-node needs
        // insecure-skip-tls-verify to accept an http server at all.
        cluster: credentials?.caPem
          ? { server: serverURL, "certificate-authority-data": b64(credentials.caPem) }
          : { server: serverURL, "insecure-skip-tls-verify": true },
      },
    ],
    contexts: [{ name: kubeconfigName, context: { cluster: kubeconfigName, user: kubeconfigName, namespace } }],
    "current-context": kubeconfigName,
    users: [{ name: kubeconfigName, user }],
    preferences: {},
  });
}

/** Writes the kubeconfig as a 0600 file (it carries the admin's client key), whatever was there. */
export async function writeKubeconfig(path: string, serverURL: string, credentials?: KubeconfigCredentials): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writePrivateFile(path, kubeconfigFor(serverURL, "default", credentials));
}
