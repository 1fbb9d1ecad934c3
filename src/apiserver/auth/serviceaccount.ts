/**
 * ServiceAccount tokens: the TokenRequest subresource (POST serviceaccounts/<name>/token) issues
 * ES256-signed JWTs with upstream's claims, and the token authenticator accepts them while the
 * ServiceAccount (and the bound object, if any) still exists with the same uid.
 *
 * Claims (as kube-apiserver's): iss, sub = system:serviceaccount:<ns>:<name>, aud, exp, iat,
 * nbf, jti, and "kubernetes.io": {namespace, serviceaccount{name, uid}, pod|secret{name, uid}}.
 */
import { createPrivateKey, createPublicKey, randomUUID, type KeyObject } from "node:crypto";
import type { Clock } from "../../apimachinery/clock.js";
import { StatusError } from "../../apimachinery/errors.js";
import { fieldErrors } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { TokenAuthenticator, TokenResult } from "./authenticator.js";
import { JWTError, keyID, looksLikeJWT, peekClaims, signJWT, verifyJWT, type JWTClaims } from "./jwt.js";
import { serviceAccountGroups, serviceAccountUsername, type UserInfo } from "./user.js";

export const defaultIssuer = "https://kubernetes.default.svc.cluster.local";
/** The issuer of legacy (secret-based, non-expiring) tokens that the token controller writes into Secrets. */
export const legacyIssuer = "kubernetes/serviceaccount";
/** The label LegacyServiceAccountTokenCleanUp sets on a token secret it invalidated (InvalidSinceLabelKey). */
export const legacyTokenInvalidSinceLabel = "kubernetes.io/legacy-token-invalid-since";
/** The label the authenticator keeps on a legacy token's secret: the UTC day it was last used, 2006-01-02 (LastUsedLabelKey). */
export const legacyTokenLastUsedLabel = "kubernetes.io/legacy-token-last-used";
const legacyClaim = {
  namespace: "kubernetes.io/serviceaccount/namespace",
  secretName: "kubernetes.io/serviceaccount/secret.name",
  serviceAccountName: "kubernetes.io/serviceaccount/service-account.name",
  serviceAccountUID: "kubernetes.io/serviceaccount/service-account.uid",
} as const;

/** Who a legacy token is for (the token controller's request). */
export interface LegacyTokenSubject {
  namespace: string;
  serviceAccountName: string;
  serviceAccountUID: string;
  secretName: string;
}
/** Default TokenRequest lifetime (SetDefaults_TokenRequestSpec) and the validation bounds. */
export const defaultExpirationSeconds = 3600;
const minExpirationSeconds = 600;
const maxExpirationSeconds = 2 ** 32;
export const credentialIDKey = "authentication.kubernetes.io/credential-id";

/** Reads an object (undefined when absent). */
export type ObjectGetter = (group: string, resource: string, namespace: string, name: string) => Promise<KubeObject | undefined>;

/**
 * Merges `labels` into the secret `namespace/name` if it still has `uid` (upstream patches the
 * secret with its uid in the body, so a recreated secret is not labelled); rejects otherwise.
 */
export type SecretLabeler = (namespace: string, name: string, uid: string, labels: Record<string, string>) => Promise<void>;

export interface ServiceAccountTokenOptions {
  issuer?: string;
  /** Audiences the API server accepts (default: [issuer]); also the default token audience. */
  apiAudiences?: string[];
  signingKey: KeyObject;
  publicKey: KeyObject;
  clock: Clock;
  /** Upper bound on a token's lifetime in seconds (default: none beyond validation). */
  maxTokenSeconds?: number;
  getObject: ObjectGetter;
  /** Writes the last-used label on legacy token secrets; absent: they are not labelled. */
  labelSecret?: SecretLabeler;
  /** Where a failed label write is reported (it never fails the request). */
  log?: (msg: string, err: unknown) => void;
}

interface TokenRequestSpec {
  audiences?: string[];
  expirationSeconds?: number;
  boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string };
}

const boundKinds: Record<string, { group: string; resource: string; claim: string }> = {
  Pod: { group: "", resource: "pods", claim: "pod" },
  Secret: { group: "", resource: "secrets", claim: "secret" },
};

const tokenRequestGK = { group: "authentication.k8s.io", kind: "TokenRequest" };

export class ServiceAccountTokens implements TokenAuthenticator {
  readonly issuer: string;
  readonly apiAudiences: string[];
  private readonly kid: string;
  private readonly keys: Map<string, KeyObject>;
  /**
   * The secrets (ns/name/uid) this server labelled last-used on `day`: repeated uses that arrive
   * before the label reaches the secret do not write it again. Emptied when the UTC day changes.
   */
  private labelled = { day: "", secrets: new Set<string>() };

  constructor(private readonly opts: ServiceAccountTokenOptions) {
    this.issuer = opts.issuer ?? defaultIssuer;
    this.apiAudiences = opts.apiAudiences?.length ? [...opts.apiAudiences] : [this.issuer];
    this.kid = keyID(opts.publicKey);
    this.keys = new Map([[this.kid, opts.publicKey]]);
  }

  /**
   * The TokenRequest REST create: validates the request against the ServiceAccount `name` in
   * `namespace` and answers the TokenRequest with status.token.
   */
  async createTokenRequest(namespace: string, name: string, body: KubeObject): Promise<KubeObject> {
    const meta = body.metadata ?? {};
    if (meta.name && meta.name !== name) throw StatusError.badRequest("the name of the object (" + meta.name + ") does not match the name on the URL (" + name + ")");
    if (meta.namespace && meta.namespace !== namespace) {
      throw StatusError.badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
    const spec: TokenRequestSpec = { ...((body as { spec?: TokenRequestSpec }).spec ?? {}) };
    spec.expirationSeconds ??= defaultExpirationSeconds;
    const errs = [];
    if (spec.expirationSeconds < minExpirationSeconds) errs.push(fieldErrors.invalid("spec.expirationSeconds", spec.expirationSeconds, "may not specify a duration less than 10 minutes"));
    if (spec.expirationSeconds > maxExpirationSeconds) errs.push(fieldErrors.invalid("spec.expirationSeconds", spec.expirationSeconds, "may not specify a duration larger than 2^32 seconds"));
    if (errs.length) throw StatusError.invalid(tokenRequestGK, name, errs);
    if (!spec.audiences?.length) spec.audiences = [...this.apiAudiences];
    if (this.opts.maxTokenSeconds !== undefined && spec.expirationSeconds > this.opts.maxTokenSeconds) spec.expirationSeconds = this.opts.maxTokenSeconds;

    const sa = await this.opts.getObject("", "serviceaccounts", namespace, name);
    if (!sa) throw StatusError.notFound({ group: "", resource: "serviceaccounts" }, name);

    const k8s: Record<string, unknown> = { namespace, serviceaccount: { name, uid: sa.metadata?.uid ?? "" } };
    if (spec.boundObjectRef) {
      const ref = spec.boundObjectRef;
      const kind = boundKinds[ref.kind ?? ""];
      if (!kind || (ref.apiVersion ?? "v1") !== "v1") throw StatusError.badRequest(`cannot bind token to object of type ${ref.apiVersion ?? ""}, Kind=${ref.kind ?? ""}`);
      const obj = await this.opts.getObject(kind.group, kind.resource, namespace, ref.name ?? "");
      if (!obj) throw StatusError.notFound({ group: kind.group, resource: kind.resource }, ref.name ?? "");
      if (ref.uid && ref.uid !== obj.metadata?.uid) throw StatusError.conflict({ group: kind.group, resource: kind.resource }, ref.name ?? "", `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
      k8s[kind.claim] = { name: ref.name, uid: obj.metadata?.uid ?? "" };
    }
    const now = Math.floor(this.opts.clock.now() / 1000);
    const exp = now + spec.expirationSeconds;
    const claims: JWTClaims = {
      aud: spec.audiences,
      exp,
      iat: now,
      iss: this.issuer,
      jti: randomUUID(),
      "kubernetes.io": k8s,
      nbf: now,
      sub: serviceAccountUsername(namespace, name),
    };
    const token = signJWT(claims, this.opts.signingKey, this.kid);
    return {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      metadata: { name, namespace, creationTimestamp: new Date(now * 1000).toISOString().replace(/\.\d+Z$/, "Z") },
      spec: { audiences: spec.audiences, expirationSeconds: spec.expirationSeconds, boundObjectRef: spec.boundObjectRef ?? null },
      status: { token, expirationTimestamp: new Date(exp * 1000).toISOString().replace(/\.\d+Z$/, "Z") },
    } as KubeObject;
  }

  /**
   * A legacy token (LegacyClaims): issuer kubernetes/serviceaccount, sub, and the four private
   * kubernetes.io/serviceaccount/... claims; no audience, no expiry. Valid while its secret holds it.
   */
  generateLegacyToken(subject: LegacyTokenSubject): string {
    return signLegacyToken(subject, this.opts.signingKey, this.kid);
  }

  /**
   * The signing key pair as PEM, for a token controller that runs outside the API server's process
   * (kube-controller-manager's --service-account-private-key-file): `legacyTokenSigner` signs
   * with it.
   */
  exportSigningKey(): { privateKeyPem: string; publicKeyPem: string } {
    return {
      privateKeyPem: this.opts.signingKey.export({ type: "pkcs8", format: "pem" }).toString(),
      publicKeyPem: this.opts.publicKey.export({ type: "spki", format: "pem" }).toString(),
    };
  }

  async authenticateToken(token: string): Promise<TokenResult | undefined> {
    if (!looksLikeJWT(token)) return undefined;
    let claims: JWTClaims;
    try {
      const iss = peekClaims(token).iss;
      if (iss === legacyIssuer) return await this.authenticateLegacyToken(token);
      if (iss !== this.issuer) return undefined;
      claims = verifyJWT(token, this.keys);
    } catch (err) {
      if (err instanceof JWTError) return { error: err.message };
      throw err;
    }
    const now = Math.floor(this.opts.clock.now() / 1000);
    if (typeof claims.exp !== "number" || now >= claims.exp) return { error: "service account token has expired" };
    if (typeof claims.nbf === "number" && now < claims.nbf - 60) return { error: "service account token is not valid yet" };
    const aud = Array.isArray(claims.aud) ? claims.aud.map(String) : typeof claims.aud === "string" ? [claims.aud] : [];
    if (!aud.some((a) => this.apiAudiences.includes(a))) {
      return { error: `token audiences ${goStrings(aud)} is invalid for the target audiences ${goStrings(this.apiAudiences)}` };
    }
    const k8s = claims["kubernetes.io"] as { namespace?: string; serviceaccount?: { name?: string; uid?: string }; pod?: { name?: string; uid?: string }; secret?: { name?: string; uid?: string } } | undefined;
    const ns = k8s?.namespace;
    const saName = k8s?.serviceaccount?.name;
    if (!ns || !saName || claims.sub !== serviceAccountUsername(ns, saName)) return { error: "service account token claims are malformed" };
    const sa = await this.opts.getObject("", "serviceaccounts", ns, saName);
    if (!sa) return { error: `serviceaccounts "${saName}" not found` };
    const uid = sa.metadata?.uid ?? "";
    if (k8s.serviceaccount?.uid !== uid) return { error: `service account UID (${uid}) does not match claim (${k8s.serviceaccount?.uid ?? ""})` };
    const extra: Record<string, string[]> = {};
    if (typeof claims.jti === "string") extra[credentialIDKey] = [`JTI=${claims.jti}`];
    for (const [kind, b] of Object.entries(boundKinds)) {
      const ref = k8s[b.claim as "pod" | "secret"];
      if (!ref) continue;
      const obj = await this.opts.getObject(b.group, b.resource, ns, ref.name ?? "");
      if (!obj || obj.metadata?.uid !== ref.uid) return { error: `${kind.toLowerCase()} ${JSON.stringify(ref.name)} bound to the token has been deleted or recreated` };
      if (kind === "Pod") {
        extra["authentication.kubernetes.io/pod-name"] = [ref.name ?? ""];
        extra["authentication.kubernetes.io/pod-uid"] = [ref.uid ?? ""];
      }
    }
    const user: UserInfo = { username: serviceAccountUsername(ns, saName), uid, groups: serviceAccountGroups(ns), extra };
    return { user, audiences: aud };
  }

  /**
   * The legacy validator (pkg/serviceaccount legacy.go, with lookup): the signature, the claims,
   * then the secret that holds the token (still there, not invalidated, the same token) and the
   * ServiceAccount (still there, the same uid). Legacy tokens carry no audience: the API server's own.
   */
  private async authenticateLegacyToken(token: string): Promise<TokenResult> {
    const claims = verifyJWT(token, this.keys);
    const str = (k: string) => (typeof claims[k] === "string" ? (claims[k] as string) : "");
    const ns = str(legacyClaim.namespace);
    const saName = str(legacyClaim.serviceAccountName);
    const secretName = str(legacyClaim.secretName);
    const saUID = str(legacyClaim.serviceAccountUID);
    if (!saName) return { error: "sa name claim is missing" };
    if (!ns) return { error: "namespace claim is missing" };
    if (!secretName) return { error: "secretName claim is missing" };
    if (claims.sub !== serviceAccountUsername(ns, saName)) return { error: "sub claim is invalid" };
    const secret = (await this.opts.getObject("", "secrets", ns, secretName)) as (KubeObject & { data?: Record<string, string> }) | undefined;
    if (!secret || secret.metadata?.deletionTimestamp) return { error: "token has been invalidated" };
    if (Buffer.from(secret.data?.token ?? "", "base64").toString("utf8") !== token) return { error: "token does not match secret" };
    const sa = await this.opts.getObject("", "serviceaccounts", ns, saName);
    if (!sa || sa.metadata?.deletionTimestamp) return { error: `service account ${ns}/${saName} has been deleted` };
    const uid = sa.metadata?.uid ?? "";
    if (uid !== saUID) return { error: `service account UID (${uid}) does not match claim (${saUID})` };
    // A token its cleaner marked invalid is refused, though its use is still recorded.
    if (secret.metadata?.labels?.[legacyTokenInvalidSinceLabel]) {
      this.recordLastUsed(secret);
      return {
        error: `the token in secret ${ns}/${secretName} for service account ${ns}/${saName} has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '${legacyTokenInvalidSinceLabel}' label from the secret to temporarily allow use of this token`,
      };
    }
    this.recordLastUsed(secret);
    const user: UserInfo = { username: serviceAccountUsername(ns, saName), uid, groups: serviceAccountGroups(ns), extra: {} };
    return { user, audiences: [...this.apiAudiences] };
  }

  /**
   * Labels the secret with today's UTC date unless it already says today or tomorrow (a server
   * whose clock runs ahead wrote it; patchSecretWithLastUsedDate). In the background: the request
   * neither waits for the write nor fails with it, and each secret is written at most once a day.
   */
  private recordLastUsed(secret: KubeObject): void {
    const labelSecret = this.opts.labelSecret;
    if (!labelSecret) return;
    const now = this.opts.clock.now();
    const today = utcDay(now);
    const lastUsed = secret.metadata?.labels?.[legacyTokenLastUsedLabel];
    if (lastUsed === today || lastUsed === utcDay(now + 86_400_000)) return;
    const ns = secret.metadata?.namespace ?? "";
    const name = secret.metadata?.name ?? "";
    const uid = secret.metadata?.uid ?? "";
    if (this.labelled.day !== today) this.labelled = { day: today, secrets: new Set() };
    const key = `${ns}/${name}/${uid}`;
    if (this.labelled.secrets.has(key)) return;
    this.labelled.secrets.add(key);
    labelSecret(ns, name, uid, { [legacyTokenLastUsedLabel]: today }).catch((err: unknown) => {
      // Let a later use try again.
      if (this.labelled.day === today) this.labelled.secrets.delete(key);
      this.opts.log?.(`failed to label legacy service account token ${ns}/${name} with last-used date`, err);
    });
  }
}

/** The UTC calendar day of `ms` as Go's "2006-01-02". */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Go's %q of a []string: ["a" "b"]. */
export function goStrings(xs: readonly string[]): string {
  return `[${xs.map((x) => JSON.stringify(x)).join(" ")}]`;
}

function signLegacyToken(subject: LegacyTokenSubject, signingKey: KeyObject, kid: string): string {
  const claims: JWTClaims = {
    iss: legacyIssuer,
    [legacyClaim.namespace]: subject.namespace,
    [legacyClaim.secretName]: subject.secretName,
    [legacyClaim.serviceAccountName]: subject.serviceAccountName,
    [legacyClaim.serviceAccountUID]: subject.serviceAccountUID,
    sub: serviceAccountUsername(subject.namespace, subject.serviceAccountName),
  };
  return signJWT(claims, signingKey, kid);
}

/** Signs legacy service-account tokens with a key pair `exportSigningKey` gave (the server accepts them as its own). */
export function legacyTokenSigner(key: { privateKeyPem: string; publicKeyPem: string }): { generateLegacyToken(subject: LegacyTokenSubject): string } {
  const signingKey = createPrivateKey(key.privateKeyPem);
  const kid = keyID(createPublicKey(key.publicKeyPem));
  return { generateLegacyToken: (subject) => signLegacyToken(subject, signingKey, kid) };
}
