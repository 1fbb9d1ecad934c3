/**
 * The token controller (upstream pkg/controller/serviceaccount tokens_controller.go): a Secret of
 * type `kubernetes.io/service-account-token` whose `kubernetes.io/service-account.name` annotation
 * names a ServiceAccount gets the data a legacy token secret carries — `token` (a non-expiring JWT
 * with issuer `kubernetes/serviceaccount`, signed with the API server's service-account key),
 * `ca.crt` (the cluster CA, when there is one) and `namespace` — and the annotation
 * `kubernetes.io/service-account.uid`. A token secret whose ServiceAccount is gone (or was
 * recreated: another uid) is deleted, and so are the token secrets of a deleted ServiceAccount;
 * a deleted token secret is removed from its ServiceAccount's `secrets`. Since 1.24 the controller
 * no longer creates token secrets for ServiceAccounts (LegacyServiceAccountTokenNoAutoGeneration).
 *
 * Requests are upstream's two queues in one: `{ kind: "serviceaccount" | "secret", namespace,
 * name, uid, ... }` compared by value. Secrets are read from the cache first; the ServiceAccount
 * of an existing secret, and the secret before it is updated, are read live (a cache behind the
 * API must not make the controller delete a secret or overwrite a token).
 */
import type { Secret, ServiceAccount } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { isConflict, isNotFound } from "../../apimachinery/errors.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { Manager } from "../../runtime/manager.js";

export const TOKEN_CONTROLLER_NAME = "serviceaccount-token-controller";
/** --concurrent-serviceaccount-token-syncs. */
export const DEFAULT_TOKEN_WORKERS = 5;
export const SECRET_TYPE_SERVICE_ACCOUNT_TOKEN = "kubernetes.io/service-account-token";
export const SERVICE_ACCOUNT_NAME_KEY = "kubernetes.io/service-account.name";
export const SERVICE_ACCOUNT_UID_KEY = "kubernetes.io/service-account.uid";
export const SERVICE_ACCOUNT_TOKEN_KEY = "token";
export const SERVICE_ACCOUNT_ROOT_CA_KEY = "ca.crt";
export const SERVICE_ACCOUNT_NAMESPACE_KEY = "namespace";

/** What a legacy token is issued for: the ServiceAccount and the secret that will hold it. */
export interface LegacyTokenSubject {
  namespace: string;
  serviceAccountName: string;
  serviceAccountUID: string;
  secretName: string;
}

/**
 * Signs legacy tokens (upstream's serviceaccount.TokenGenerator with LegacyClaims). The API
 * server's ServiceAccountTokens is one: the signing key never leaves the server.
 */
export interface LegacyTokenGenerator {
  generateLegacyToken(subject: LegacyTokenSubject): string;
}

export interface TokensControllerOptions {
  tokenGenerator: LegacyTokenGenerator;
  /** The CA bundle written as ca.crt (none: the key is left as it is). */
  rootCA?: string;
  workers?: number;
}

/** A request: a ServiceAccount or a token Secret to sync (upstream's serviceAccountQueue and syncSecretQueue keys). */
export type TokensRequest =
  | { kind: "serviceaccount"; namespace: string; name: string; uid: string }
  | { kind: "secret"; namespace: string; name: string; uid: string; saName: string; saUID: string };

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const unb64 = (s: string | undefined) => (s === undefined ? "" : Buffer.from(s, "base64").toString("utf8"));

/** IsServiceAccountToken: a token secret naming this ServiceAccount (and its uid, when it records one). */
export function isServiceAccountToken(secret: Secret, sa: ServiceAccount): boolean {
  if (secret.type !== SECRET_TYPE_SERVICE_ACCOUNT_TOKEN) return false;
  const ann = secret.metadata?.annotations ?? {};
  if (ann[SERVICE_ACCOUNT_NAME_KEY] !== sa.metadata?.name) return false;
  const uid = ann[SERVICE_ACCOUNT_UID_KEY];
  return !uid || uid === sa.metadata?.uid;
}

function secretRequest(s: Secret): TokensRequest {
  const ann = s.metadata?.annotations ?? {};
  return {
    kind: "secret",
    namespace: s.metadata?.namespace ?? "",
    name: s.metadata?.name ?? "",
    uid: s.metadata?.uid ?? "",
    saName: ann[SERVICE_ACCOUNT_NAME_KEY] ?? "",
    saUID: ann[SERVICE_ACCOUNT_UID_KEY] ?? "",
  };
}

function serviceAccountRequest(sa: ServiceAccount): TokensRequest {
  return { kind: "serviceaccount", namespace: sa.metadata?.namespace ?? "", name: sa.metadata?.name ?? "", uid: sa.metadata?.uid ?? "" };
}

export class TokensController {
  readonly controller: Controller<TokensRequest>;
  private readonly accounts: Lister<ServiceAccount>;
  private readonly secrets: Lister<Secret>;
  private readonly generator: LegacyTokenGenerator;
  private readonly rootCA: string | undefined;

  constructor(mgr: Manager, opts: TokensControllerOptions) {
    this.generator = opts.tokenGenerator;
    this.rootCA = opts.rootCA || undefined;
    this.accounts = mgr.informers.forResource(builtin.serviceAccounts).lister();
    this.secrets = mgr.informers.forResource(builtin.secrets).lister();
    const tokenSecret = (s: Secret) => s.type === SECRET_TYPE_SERVICE_ACCOUNT_TOKEN;
    this.controller = mgr
      .controller<TokensRequest>(TOKEN_CONTROLLER_NAME)
      .watches(builtin.serviceAccounts, {
        create: (e, q) => q.add(serviceAccountRequest(e.object)),
        update: (e, q) => q.add(serviceAccountRequest(e.objectNew)),
        delete: (e, q) => q.add(serviceAccountRequest(e.object)),
      })
      .watches(builtin.secrets, {
        create: (e, q) => tokenSecret(e.object) && q.add(secretRequest(e.object)),
        update: (e, q) => tokenSecret(e.objectNew) && q.add(secretRequest(e.objectNew)),
        delete: (e, q) => tokenSecret(e.object) && q.add(secretRequest(e.object)),
      })
      .withOptions({
        maxConcurrentReconciles: opts.workers ?? DEFAULT_TOKEN_WORKERS,
        keyOf: (r) => `${r.kind}/${r.namespace}/${r.name}/${r.uid}`,
        describe: (r) => `${r.kind} ${r.namespace}/${r.name}`,
      })
      .reconcile((req, ctx) => (req.kind === "serviceaccount" ? this.syncServiceAccount(req, ctx.client) : this.syncSecret(req, ctx.client)));
  }

  /** syncServiceAccount: a ServiceAccount that is gone takes its token secrets with it. */
  async syncServiceAccount(req: Extract<TokensRequest, { kind: "serviceaccount" }>, client: ResourceClientFactory): Promise<void> {
    const cached = this.cachedServiceAccount(req.namespace, req.name, req.uid);
    if (cached) return;
    const gone: ServiceAccount = { metadata: { namespace: req.namespace, name: req.name, uid: req.uid } };
    for (const secret of this.secrets.namespace(req.namespace).list()) {
      if (!isServiceAccountToken(secret, gone)) continue;
      await this.deleteToken(client, req.namespace, secret.metadata?.name ?? "", secret.metadata?.uid ?? "");
    }
  }

  /** syncSecret: drop the reference of a deleted secret, delete an orphaned one, fill in a live one. */
  async syncSecret(req: Extract<TokensRequest, { kind: "secret" }>, client: ResourceClientFactory): Promise<void> {
    const secret = this.cachedSecret(req.namespace, req.name, req.uid);
    if (!secret) {
      // The secret is gone: the ServiceAccount, if it is there, no longer lists it.
      if (this.cachedServiceAccount(req.namespace, req.saName, req.saUID)) await this.removeSecretReference(client, req);
      return;
    }
    const sa = await this.liveServiceAccount(client, req.namespace, req.saName, req.saUID);
    if (!sa) {
      await this.deleteToken(client, req.namespace, req.name, req.uid);
      return;
    }
    await this.generateTokenIfNeeded(client, sa, secret);
  }

  private needs(secret: Secret) {
    const data = secret.data ?? {};
    return {
      ca: this.rootCA !== undefined && unb64(data[SERVICE_ACCOUNT_ROOT_CA_KEY]) !== this.rootCA,
      namespace: !data[SERVICE_ACCOUNT_NAMESPACE_KEY],
      token: !data[SERVICE_ACCOUNT_TOKEN_KEY],
    };
  }

  /** generateTokenIfNeeded: writes ca.crt, namespace and token when missing (or a CA that changed), on the live secret. */
  private async generateTokenIfNeeded(client: ResourceClientFactory, sa: ServiceAccount, cached: Secret): Promise<void> {
    const n = this.needs(cached);
    if (!n.ca && !n.namespace && !n.token) return;
    const secrets = client.resource(builtin.secrets, cached.metadata?.namespace ?? "");
    let live: Secret;
    try {
      live = await secrets.get(cached.metadata?.name ?? "");
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (live.metadata?.uid !== cached.metadata?.uid) return;
    const need = this.needs(live);
    if (!need.ca && !need.namespace && !need.token) return;
    const next = deepCopy(live);
    const data = { ...next.data };
    const namespace = sa.metadata?.namespace ?? "";
    if (need.ca && this.rootCA !== undefined) data[SERVICE_ACCOUNT_ROOT_CA_KEY] = b64(this.rootCA);
    if (need.namespace) data[SERVICE_ACCOUNT_NAMESPACE_KEY] = b64(namespace);
    if (need.token) {
      const token = this.generator.generateLegacyToken({
        namespace,
        serviceAccountName: sa.metadata?.name ?? "",
        serviceAccountUID: sa.metadata?.uid ?? "",
        secretName: live.metadata?.name ?? "",
      });
      data[SERVICE_ACCOUNT_TOKEN_KEY] = b64(token);
    }
    next.data = data;
    next.metadata = {
      ...next.metadata,
      annotations: { ...next.metadata?.annotations, [SERVICE_ACCOUNT_NAME_KEY]: sa.metadata?.name ?? "", [SERVICE_ACCOUNT_UID_KEY]: sa.metadata?.uid ?? "" },
    };
    try {
      await secrets.update(next);
    } catch (err) {
      // Gone meanwhile: nothing to fill. A conflict is retried (the queue's backoff).
      if (isNotFound(err)) return;
      throw err;
    }
  }

  /** deleteToken: deletes the secret with its uid as precondition (a secret recreated under the name survives). */
  private async deleteToken(client: ResourceClientFactory, namespace: string, name: string, uid: string): Promise<void> {
    try {
      await client.resource(builtin.secrets, namespace).delete(name, uid ? { preconditions: { uid } } : undefined);
    } catch (err) {
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
  }

  /** removeSecretReference: the live ServiceAccount without the deleted secret in `secrets`. */
  private async removeSecretReference(client: ResourceClientFactory, req: Extract<TokensRequest, { kind: "secret" }>): Promise<void> {
    const accounts = client.resource(builtin.serviceAccounts, req.namespace);
    let sa: ServiceAccount;
    try {
      sa = await accounts.get(req.saName);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (req.saUID && sa.metadata?.uid !== req.saUID) return;
    const refs = sa.secrets ?? [];
    const kept = refs.filter((r) => r.name !== req.name);
    if (kept.length === refs.length) return;
    await accounts.update({ ...deepCopy(sa), secrets: kept });
  }

  private cachedServiceAccount(namespace: string, name: string, uid: string): ServiceAccount | undefined {
    try {
      const sa = this.accounts.namespace(namespace).get(name);
      return !uid || sa.metadata?.uid === uid ? sa : undefined;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private cachedSecret(namespace: string, name: string, uid: string): Secret | undefined {
    try {
      const s = this.secrets.namespace(namespace).get(name);
      return !uid || s.metadata?.uid === uid ? s : undefined;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** getServiceAccount with fetchOnCacheMiss: the cache, else the API (the cache may be behind). */
  private async liveServiceAccount(client: ResourceClientFactory, namespace: string, name: string, uid: string): Promise<ServiceAccount | undefined> {
    const cached = this.cachedServiceAccount(namespace, name, uid);
    if (cached) return cached;
    try {
      const sa = await client.resource(builtin.serviceAccounts, namespace).get(name);
      return !uid || sa.metadata?.uid === uid ? sa : undefined;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}
