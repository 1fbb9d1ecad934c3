/**
 * AccessControl: everything between a request arriving and a handler serving it —
 * authentication (client certificates and bearer tokens over HTTPS; a fixed identity for
 * credential-less requests in insecure plain-http mode), impersonation, and RBAC authorization
 * — plus the pieces of the API that belong to them: the RBAC cache, bootstrap policy and
 * aggregation loop, escalation checks on RBAC writes, the review resources and the
 * ServiceAccount TokenRequest subresource.
 *
 * Life cycle: constructed with the server, `start()` after storage is ready (loads the RBAC
 * cache, reconciles the bootstrap policy, starts aggregation), `stop()` before storage closes.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { KeyObject } from "node:crypto";
import type { Clock } from "../../apimachinery/clock.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { defaultWriteContext, type ResourceHooks } from "../rest/context.js";
import type { ResourceStrategy } from "../registry/strategy.js";
import { decodeRequestBody, type DecodeTarget } from "../decode/request.js";
import { parseWriteOptions } from "../rest/options.js";
import { readBody, type ProtobufDecoder } from "../server/body.js";
import type { ResourceRequestInfo } from "../server/requestinfo.js";
import type { RequestURL } from "../server/target.js";
import type { ResourceRegistry } from "../server/resources.js";
import { setWarnings, writeNegotiated } from "../server/respond.js";
import type { Storage } from "../storage/interface.js";
import { forbiddenError, requestInfoOf, type Attributes } from "../rbac/attributes.js";
import { RBACAuthorizer, type Decision } from "../rbac/authorizer.js";
import { ClusterRoleAggregator } from "../rbac/aggregation.js";
import { ensureBootstrapPolicy } from "../rbac/bootstrap.js";
import { RbacCache } from "../rbac/cache.js";
import { escalationHooks } from "../rbac/escalation.js";
import { RuleResolver } from "../rbac/resolver.js";
import { authorizeWithMasters, localSubjectAccessReview, selfSubjectAccessReview, selfSubjectRulesReview, subjectAccessReview } from "../rbac/reviews.js";
import { rbacGroup } from "../rbac/strategies.js";
import {
  AuthenticationChain,
  bearerTokenAuthenticator,
  clientCertificateAuthenticator,
  publicInfoPaths,
  type RequestAuthenticator,
  type TokenAuthenticator,
} from "./authenticator.js";
import { requestUser, setRequestUser } from "./context.js";
import { impersonate } from "./impersonation.js";
import { selfSubjectReview, tokenReview } from "./reviews.js";
import { ServiceAccountTokens } from "./serviceaccount.js";
import { StaticTokenAuthenticator } from "./tokenfile.js";
import { AdminUser, withAuthenticatedGroup, type UserInfo } from "./user.js";
import { generateKey } from "./x509.js";
import { reviewStrategies } from "./virtual.js";

export interface TLSMaterial {
  certPem: string;
  keyPem: string;
  /** CA bundle client certificates are verified against. */
  clientCAPem: string;
}

export interface SecurityOptions {
  /** Serve HTTPS with this certificate and accept client certificates from this CA. Absent: plain http. */
  tls?: TLSMaterial;
  /**
   * Plain http only: the identity of requests that carry no bearer token (client-go sends no
   * credentials over http). Default: kubeloop-admin in system:masters.
   */
  insecureUser?: UserInfo;
  /** Static bearer tokens (token → user), e.g. from parseTokenFile. */
  staticTokens?: ReadonlyMap<string, UserInfo>;
  /** A --token-auth-file CSV to read static tokens from. */
  tokenAuthFile?: string;
  /** ServiceAccount token signing key (default: generated for this process). */
  serviceAccountKey?: { privateKey: KeyObject; publicKey: KeyObject };
  /** ServiceAccount token issuer (default https://kubernetes.default.svc.cluster.local). */
  issuer?: string;
  apiAudiences?: string[];
  /** Paths credential-less HTTPS requests may reach as system:anonymous (default /healthz, /livez, /readyz, /version); false: none. */
  anonymousPaths?: readonly string[] | false;
}

export interface AccessControlDeps {
  storage: Storage;
  registry: () => ResourceRegistry;
  clock: Clock;
  decodeProtobuf?: ProtobufDecoder;
  maxBodyBytes: number;
  log?: (msg: string, err: unknown) => void;
}

/** The kind of the body an intercepted POST carries (the reviews and serviceaccounts/token, all v1). */
const interceptedKinds: Record<string, DecodeTarget> = {
  "/serviceaccounts": { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" },
  "authorization.k8s.io/selfsubjectaccessreviews": { group: "authorization.k8s.io", version: "v1", kind: "SelfSubjectAccessReview" },
  "authorization.k8s.io/selfsubjectrulesreviews": { group: "authorization.k8s.io", version: "v1", kind: "SelfSubjectRulesReview" },
  "authorization.k8s.io/subjectaccessreviews": { group: "authorization.k8s.io", version: "v1", kind: "SubjectAccessReview" },
  "authorization.k8s.io/localsubjectaccessreviews": { group: "authorization.k8s.io", version: "v1", kind: "LocalSubjectAccessReview" },
  "authentication.k8s.io/selfsubjectreviews": { group: "authentication.k8s.io", version: "v1", kind: "SelfSubjectReview" },
  "authentication.k8s.io/tokenreviews": { group: "authentication.k8s.io", version: "v1", kind: "TokenReview" },
};

function interceptedKind(info: ResourceRequestInfo): DecodeTarget {
  return interceptedKinds[`${info.group}/${info.resource}`];
}

export class AccessControl {
  readonly cache: RbacCache;
  readonly resolver: RuleResolver;
  readonly authorizer: RBACAuthorizer;
  readonly serviceAccountTokens: ServiceAccountTokens;
  readonly tokenAuthenticators: TokenAuthenticator[];
  private readonly chain: AuthenticationChain;
  private readonly insecureUser: UserInfo | undefined;
  private aggregator: ClusterRoleAggregator | undefined;
  private readonly hooks: Record<string, ResourceHooks>;
  /** `decide` as a function value, made once (impersonation checks take one per request). */
  private readonly decideFn = (a: Attributes): Decision => this.decide(a);

  constructor(
    readonly options: SecurityOptions,
    private readonly deps: AccessControlDeps,
  ) {
    this.cache = new RbacCache(deps.storage);
    this.resolver = new RuleResolver(this.cache);
    this.authorizer = new RBACAuthorizer(this.resolver);
    const saKey = options.serviceAccountKey ?? generateKey();
    this.serviceAccountTokens = new ServiceAccountTokens({
      issuer: options.issuer,
      apiAudiences: options.apiAudiences,
      signingKey: saKey.privateKey,
      publicKey: saKey.publicKey,
      clock: deps.clock,
      getObject: (g, r, ns, name) => this.getObject(g, r, ns, name),
      labelSecret: (ns, name, uid, labels) => this.labelSecret(ns, name, uid, labels),
      log: deps.log,
    });
    this.tokenAuthenticators = [];
    if (options.staticTokens) this.tokenAuthenticators.push(new StaticTokenAuthenticator(options.staticTokens));
    if (options.tokenAuthFile) this.tokenAuthenticators.push(StaticTokenAuthenticator.fromFile(options.tokenAuthFile));
    this.tokenAuthenticators.push(this.serviceAccountTokens);
    const authenticators: RequestAuthenticator[] = [];
    if (options.tls) authenticators.push(clientCertificateAuthenticator);
    authenticators.push(bearerTokenAuthenticator(this.tokenAuthenticators));
    const anonymous = options.anonymousPaths === false ? undefined : { paths: options.anonymousPaths ?? publicInfoPaths };
    this.chain = new AuthenticationChain(authenticators, anonymous);
    this.insecureUser = options.tls ? undefined : withAuthenticatedGroup(options.insecureUser ?? AdminUser);
    this.hooks = escalationHooks({ resolver: this.resolver, authorizer: this.authorizer, userOf: (ctx) => ctx.user, synced: () => this.cache.synced() });
  }

  get tls(): TLSMaterial | undefined {
    return this.options.tls;
  }

  /** Strategies of the resources AccessControl serves itself (reviews). */
  strategies(): ResourceStrategy[] {
    return reviewStrategies();
  }

  /** Escalation-checking hooks for the RBAC resources ("<group>/<resource>"), if any. */
  hooksFor(id: string): ResourceHooks | undefined {
    return this.hooks[id];
  }

  private async getObject(group: string, resource: string, namespace: string, name: string): Promise<KubeObject | undefined> {
    const store = this.deps.registry().byGroupResource(group, resource);
    if (!store) return undefined;
    try {
      return await store.get(namespace, name);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    }
  }

  /** The server's own label write on a secret (the legacy token last-used label), as kube-apiserver's loopback patch. */
  private async labelSecret(namespace: string, name: string, uid: string, labels: Record<string, string>): Promise<void> {
    const store = this.deps.registry().byGroupResource("", "secrets");
    if (!store) return;
    const gr = { group: "", resource: "secrets" };
    await store.update(
      namespace,
      name,
      (cur) => {
        if (!cur) throw StatusError.notFound(gr, name);
        if (cur.metadata?.uid !== uid) throw StatusError.conflict(gr, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${cur.metadata?.uid ?? ""}`);
        return { ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata?.labels, ...labels } } };
      },
      defaultWriteContext({ fieldManager: "kube-apiserver" }),
    );
  }

  /** The decision for `attrs` (system:masters first, then RBAC). */
  decide(attrs: Attributes): Decision {
    return authorizeWithMasters(this.authorizer, attrs);
  }

  /**
   * Authenticates, applies impersonation and authorizes the request; throws 401 / 403
   * StatusErrors. On success the user is available as requestUser(req).
   *
   * Synchronous (no promise, no await) in the usual insecure-mode case — no credentials and an
   * RBAC cache that is current — since it runs before every request; asynchronous otherwise.
   */
  guard(req: IncomingMessage, url: RequestURL): void | Promise<void> {
    const insecure = this.insecureUser;
    if (insecure && req.headers.authorization === undefined) {
      if (this.cache.current()) return this.authorize(req, url, insecure);
      return this.cache.synced().then(() => this.authorize(req, url, insecure));
    }
    return this.authenticateAndAuthorize(req, url);
  }

  private async authenticateAndAuthorize(req: IncomingMessage, url: RequestURL): Promise<void> {
    const outcome = await this.chain.authenticate(req, url.pathname);
    if (outcome.kind === "unauthorized") throw StatusError.unauthorized();
    if (!this.cache.current()) await this.cache.synced();
    this.authorize(req, url, outcome.user);
  }

  /** Impersonation and RBAC for an authenticated user (the RBAC cache is current). */
  private authorize(req: IncomingMessage, url: RequestURL, requestor: UserInfo): void {
    const user = impersonate(req, requestor, this.decideFn);
    let attrs: Attributes;
    try {
      // requestInfoOf builds a fresh object: it becomes the attributes (no copy per request).
      attrs = requestInfoOf(req.method ?? "GET", url) as Attributes;
      attrs.user = user;
    } catch (err) {
      throw StatusError.internalError(err);
    }
    const d = this.decide(attrs);
    if (!d.allowed) throw forbiddenError(attrs, d.reason);
    setRequestUser(req, user);
  }

  /**
   * Serves the review resources and serviceaccounts/token; false for every other request
   * (without a promise: this runs before every resource request).
   */
  intercept(req: IncomingMessage, res: ServerResponse, info: ResourceRequestInfo, url: RequestURL): false | Promise<boolean> {
    const answer = this.interceptorFor(req, info);
    if (!answer) return false;
    return this.serveIntercepted(req, res, url, info, answer);
  }

  /** How `intercept` answers the request, or undefined when the request is not one it serves. */
  private interceptorFor(req: IncomingMessage, info: ResourceRequestInfo): ((body: KubeObject) => Promise<KubeObject> | KubeObject) | undefined {
    if (req.method !== "POST" || info.version !== "v1") return undefined;
    const user = requestUser(req) ?? this.insecureUser ?? AdminUser;
    const key = `${info.group}/${info.resource}`;
    const ns = info.namespace;
    if (info.subresource === "token" && key === "/serviceaccounts" && ns && info.name) {
      const name = info.name;
      return (body) => this.serviceAccountTokens.createTokenRequest(ns, name, body);
    } else if (info.name !== undefined || info.subresource !== undefined) {
      return undefined;
    } else if (key === "authorization.k8s.io/selfsubjectaccessreviews" && !ns) {
      return (body) => selfSubjectAccessReview(user, body, this.authorizer);
    } else if (key === "authorization.k8s.io/selfsubjectrulesreviews" && !ns) {
      return (body) => selfSubjectRulesReview(user, body, this.resolver);
    } else if (key === "authorization.k8s.io/subjectaccessreviews" && !ns) {
      return (body) => subjectAccessReview(body, this.authorizer);
    } else if (key === "authorization.k8s.io/localsubjectaccessreviews" && ns) {
      return (body) => localSubjectAccessReview(ns, body, this.authorizer);
    } else if (key === "authentication.k8s.io/selfsubjectreviews" && !ns) {
      return (body) => selfSubjectReview(user, body);
    } else if (key === "authentication.k8s.io/tokenreviews" && !ns) {
      return (body) => tokenReview(body, this.tokenAuthenticators, this.serviceAccountTokens.apiAudiences);
    }
    return undefined;
  }

  private async serveIntercepted(
    req: IncomingMessage,
    res: ServerResponse,
    url: RequestURL,
    info: ResourceRequestInfo,
    answer: (body: KubeObject) => Promise<KubeObject> | KubeObject,
  ): Promise<boolean> {
    const { fieldValidation } = parseWriteOptions(url.searchParams, "CreateOptions", String(req.headers["user-agent"] ?? ""));
    const buf = await readBody(req, this.deps.maxBodyBytes);
    // Decoded as the review's (or TokenRequest's) Go struct, as every create body is (decode/).
    const body = decodeRequestBody(buf, req.headers["content-type"], interceptedKind(info), fieldValidation, this.deps.decodeProtobuf);
    await this.cache.synced();
    const out = await answer(body.object);
    setWarnings(res, body.warnings);
    writeNegotiated(req.headers.accept, res, 201, out);
    return true;
  }

  async start(): Promise<void> {
    await this.cache.start();
    const reg = this.deps.registry();
    const clusterRoles = reg.byGroupResource(rbacGroup, "clusterroles");
    const clusterRoleBindings = reg.byGroupResource(rbacGroup, "clusterrolebindings");
    if (!clusterRoles || !clusterRoleBindings) return;
    await ensureBootstrapPolicy({ clusterRoles, clusterRoleBindings });
    const aggregator = new ClusterRoleAggregator({ clusterRoles: () => this.cache.allClusterRoles(), store: clusterRoles, log: this.deps.log });
    this.aggregator = aggregator;
    this.cache.onChange((kind) => {
      if (kind === "clusterroles") aggregator.schedule();
    });
    aggregator.schedule();
    await this.idle();
  }

  /** Resolves when the RBAC cache is current and no aggregation pass is pending (tests). */
  async idle(): Promise<void> {
    await this.cache.synced();
    await this.aggregator?.idle();
    await this.cache.synced();
  }

  async stop(): Promise<void> {
    await this.aggregator?.stop();
    await this.cache.stop();
  }
}
