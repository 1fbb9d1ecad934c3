/**
 * How `startApiServer` secures the server: HTTPS with the cluster PKI (kept in
 * `<dataDir>/pki` when a data directory is given) and a kubeconfig for kubeloop-admin
 * (system:masters) authenticating with a client certificate; or, with `insecureHttp`, plain
 * http where credential-less requests run as a fixed identity (default the same admin).
 */
import { kubeconfigFor, type KubeconfigCredentials } from "../kubeconfig.js";
import type { SecurityOptions } from "./access.js";
import { issueClientCertificate, loadOrCreatePKI, type ClusterPKI } from "./pki.js";
import type { UserInfo } from "./user.js";

export interface AuthOptions {
  /** kube-apiserver's --token-auth-file: CSV `token,user,uid,"group1,group2"`. */
  tokenAuthFile?: string;
  /** Static bearer tokens (token → user). */
  staticTokens?: ReadonlyMap<string, UserInfo>;
  /** insecureHttp only: who credential-less requests are (default kubeloop-admin in system:masters). */
  insecureUser?: UserInfo;
  /** Paths anonymous HTTPS requests may reach (default /healthz, /livez, /readyz, /version); false: none. */
  anonymousPaths?: readonly string[] | false;
  /** ServiceAccount token issuer and accepted audiences. */
  issuer?: string;
  apiAudiences?: string[];
}

export interface PreparedSecurity {
  security: SecurityOptions;
  /** What the written kubeconfig carries (undefined for plain http). */
  credentials?: KubeconfigCredentials;
  pki?: ClusterPKI;
}

export async function prepareSecurity(opts: { insecureHttp?: boolean; dataDir?: string; host?: string; auth?: AuthOptions }): Promise<PreparedSecurity> {
  const a = opts.auth ?? {};
  const common: SecurityOptions = {
    tokenAuthFile: a.tokenAuthFile,
    staticTokens: a.staticTokens,
    anonymousPaths: a.anonymousPaths,
    issuer: a.issuer,
    apiAudiences: a.apiAudiences,
  };
  const pki = await loadOrCreatePKI(opts.dataDir, opts.host);
  common.serviceAccountKey = pki.serviceAccountKey;
  if (opts.insecureHttp) return { security: { ...common, insecureUser: a.insecureUser } };
  return {
    security: { ...common, tls: { certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, clientCAPem: pki.ca.certPem } },
    credentials: { caPem: pki.ca.certPem, clientCertPem: pki.admin.certPem, clientKeyPem: pki.admin.keyPem },
    pki,
  };
}

/**
 * A kubeconfig for another user of an HTTPS server (envtest's AddUser): a client certificate
 * with CN = username and O = groups, signed by the cluster CA.
 */
export function kubeconfigForUser(pki: Pick<ClusterPKI, "ca">, serverURL: string, username: string, groups: readonly string[] = [], namespace = "default"): string {
  const cert = issueClientCertificate(pki.ca, username, groups);
  return kubeconfigFor(serverURL, namespace, { caPem: pki.ca.certPem, clientCertPem: cert.certPem, clientKeyPem: cert.keyPem });
}
