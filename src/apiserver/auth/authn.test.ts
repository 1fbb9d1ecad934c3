/** Authenticators: static token file, ServiceAccount JWTs, the chain (anonymous, failures), impersonation. */
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../apimachinery/clock.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { Attributes } from "../rbac/attributes.js";
import { AuthenticationChain, bearerTokenAuthenticator, clientCertificateAuthenticator, publicInfoPaths } from "./authenticator.js";
import { impersonate } from "./impersonation.js";
import { signJWT, verifyJWT, keyID } from "./jwt.js";
import { legacyTokenSigner, ServiceAccountTokens } from "./serviceaccount.js";
import { parseCSVLine, parseTokenFile, StaticTokenAuthenticator, TokenFileError } from "./tokenfile.js";
import { generateKey } from "./x509.js";

/** A request-shaped object with the headers the authenticators read. */
function fakeRequest(headers: Record<string, string | string[]>): IncomingMessage {
  const lower: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = Array.isArray(v) ? v : [v];
  const single: Record<string, string> = {};
  for (const [k, v] of Object.entries(lower)) single[k] = v.join(", ");
  return { headers: single, headersDistinct: lower, socket: {} } as unknown as IncomingMessage;
}

describe("token file", () => {
  it("parses token,user,uid,\"groups\" lines as kube-apiserver's --token-auth-file", () => {
    const m = parseTokenFile('tok1,alice,uid-1,"devs,ops"\ntok2,bob,uid-2\n\n tok3, carol ,uid-3,single\n,skipped,uid\n');
    expect(m.get("tok1")).toEqual({ username: "alice", uid: "uid-1", groups: ["devs", "ops"] });
    expect(m.get("tok2")).toEqual({ username: "bob", uid: "uid-2", groups: [] });
    expect(m.get("tok3")).toEqual({ username: "carol ", uid: "uid-3", groups: ["single"] });
    expect(m.size).toBe(3);
  });

  it("rejects short lines and bad quoting", () => {
    expect(() => parseTokenFile("tok,user")).toThrow("must have at least 3 columns (token, user name, user uid), found 2");
    expect(() => parseCSVLine('a,"b')).toThrow(TokenFileError);
    expect(parseCSVLine('a,"b ""q"", c",d')).toEqual(["a", 'b "q", c', "d"]);
  });

  it("authenticates known tokens only", () => {
    const a = new StaticTokenAuthenticator(parseTokenFile("s3cret,alice,1,devs"));
    expect(a.authenticateToken("s3cret")).toEqual({ user: { username: "alice", uid: "1", groups: ["devs"] } });
    expect(a.authenticateToken("other")).toBeUndefined();
  });
});

describe("JWT", () => {
  it("signs ES256 and rejects tampering and unknown keys", () => {
    const k = generateKey();
    const keys = new Map([[keyID(k.publicKey), k.publicKey]]);
    const t = signJWT({ sub: "x" }, k.privateKey, keyID(k.publicKey));
    expect(verifyJWT(t, keys)).toEqual({ sub: "x" });
    const [h, , s] = t.split(".");
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: "admin" })).toString("base64url")}.${s}`;
    expect(() => verifyJWT(forged, keys)).toThrow("invalid signature");
    const other = generateKey();
    expect(() => verifyJWT(t, new Map([["k", other.publicKey]]))).toThrow("invalid signature");
  });
});

describe("ServiceAccount tokens", () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const objects = new Map<string, KubeObject>([["/serviceaccounts/ns/builder", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "builder", namespace: "ns", uid: "uid-sa" } }]]);
  const key = generateKey();
  const tokens = new ServiceAccountTokens({
    signingKey: key.privateKey,
    publicKey: key.publicKey,
    clock,
    getObject: async (g, r, ns, name) => objects.get(`${g}/${r}/${ns}/${name}`),
  });

  it("issues a TokenRequest answer with upstream's claims and defaults", async () => {
    const tr = (await tokens.createTokenRequest("ns", "builder", { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", metadata: {} } as KubeObject)) as unknown as {
      spec: { audiences: string[]; expirationSeconds: number };
      status: { token: string; expirationTimestamp: string };
      metadata: { name: string; namespace: string };
    };
    expect(tr.metadata).toMatchObject({ name: "builder", namespace: "ns" });
    expect(tr.spec).toMatchObject({ audiences: ["https://kubernetes.default.svc.cluster.local"], expirationSeconds: 3600 });
    expect(tr.status.expirationTimestamp).toBe("2026-01-01T01:00:00Z");
    const claims = JSON.parse(Buffer.from(tr.status.token.split(".")[1], "base64url").toString());
    expect(claims).toMatchObject({
      iss: "https://kubernetes.default.svc.cluster.local",
      sub: "system:serviceaccount:ns:builder",
      aud: ["https://kubernetes.default.svc.cluster.local"],
      exp: Date.UTC(2026, 0, 1, 1) / 1000,
      "kubernetes.io": { namespace: "ns", serviceaccount: { name: "builder", uid: "uid-sa" } },
    });
    const r = await tokens.authenticateToken(tr.status.token);
    expect(r && "user" in r ? r.user : r).toMatchObject({
      username: "system:serviceaccount:ns:builder",
      uid: "uid-sa",
      groups: ["system:serviceaccounts", "system:serviceaccounts:ns"],
    });
  });

  it("accepts legacy tokens signed outside the server with its exported key, while their secret holds them", async () => {
    const subject = { namespace: "ns", secretName: "builder-token", serviceAccountName: "builder", serviceAccountUID: "uid-sa" };
    const token = legacyTokenSigner(tokens.exportSigningKey()).generateLegacyToken(subject);
    const secretKey = "/secrets/ns/builder-token";
    expect(await tokens.authenticateToken(token)).toEqual({ error: "token has been invalidated" });
    objects.set(secretKey, { apiVersion: "v1", kind: "Secret", metadata: { name: "builder-token", namespace: "ns" }, data: { token: Buffer.from(token).toString("base64") } } as KubeObject);
    try {
      const r = await tokens.authenticateToken(token);
      expect(r && "user" in r ? r.user.username : r).toBe("system:serviceaccount:ns:builder");
      // Another key's signature is not the server's.
      const foreign = generateKey();
      const forged = legacyTokenSigner({
        privateKeyPem: foreign.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
        publicKeyPem: foreign.publicKey.export({ type: "spki", format: "pem" }).toString(),
      }).generateLegacyToken(subject);
      expect(await tokens.authenticateToken(forged)).toEqual({ error: "invalid signature" });
    } finally {
      objects.delete(secretKey);
    }
  });

  it("validates the request: duration bounds, missing ServiceAccount", async () => {
    const tooShort = await tokens.createTokenRequest("ns", "builder", { spec: { expirationSeconds: 60 } } as unknown as KubeObject).catch((e: unknown) => e);
    expect((tooShort as StatusError).code).toBe(422);
    expect((tooShort as StatusError).message).toContain("may not specify a duration less than 10 minutes");
    const missing = await tokens.createTokenRequest("ns", "ghost", {} as KubeObject).catch((e: unknown) => e);
    expect((missing as StatusError).message).toBe('serviceaccounts "ghost" not found');
  });

  it("rejects expired tokens, foreign audiences and recreated ServiceAccounts", async () => {
    const issue = async (spec: object = {}) =>
      ((await tokens.createTokenRequest("ns", "builder", { spec } as unknown as KubeObject)) as unknown as { status: { token: string } }).status.token;
    const t = await issue();
    clock.step(3600_000);
    expect(await tokens.authenticateToken(t)).toEqual({ error: "service account token has expired" });
    const foreign = await issue({ audiences: ["vault"] });
    expect(await tokens.authenticateToken(foreign)).toEqual({ error: 'token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]' });
    const t2 = await issue();
    objects.set("/serviceaccounts/ns/builder", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "builder", namespace: "ns", uid: "uid-new" } });
    expect(await tokens.authenticateToken(t2)).toEqual({ error: "service account UID (uid-new) does not match claim (uid-sa)" });
    objects.delete("/serviceaccounts/ns/builder");
    expect(await tokens.authenticateToken(t2)).toEqual({ error: 'serviceaccounts "builder" not found' });
    expect(await tokens.authenticateToken("not-a-jwt")).toBeUndefined();
  });
});

// Upstream's legacy validator (pkg/serviceaccount/legacy.go, patchSecretWithLastUsedDate) and its
// TestLegacyServiceAccountTokenTracking / TestLegacyServiceAccountTokenCleanUp integration tests.
describe("legacy tokens: the last-used label and invalid-since", () => {
  const subject = { namespace: "ns", secretName: "robot-token", serviceAccountName: "robot", serviceAccountUID: "uid-robot" };
  function setup(labels: Record<string, string> = {}, labelSecret?: (ns: string, name: string, uid: string, l: Record<string, string>) => Promise<void>) {
    const clock = new FakeClock(Date.UTC(2026, 0, 1, 23, 59, 30));
    const key = generateKey();
    const writes: string[] = [];
    const logged: string[] = [];
    const objects = new Map<string, KubeObject>();
    const tokens = new ServiceAccountTokens({
      signingKey: key.privateKey,
      publicKey: key.publicKey,
      clock,
      getObject: async (_g, r, ns, name) => objects.get(`${r}/${ns}/${name}`),
      labelSecret:
        labelSecret ??
        (async (ns, name, uid, l) => {
          writes.push(`${ns}/${name} ${uid} ${JSON.stringify(l)}`);
        }),
      log: (msg) => logged.push(msg),
    });
    const token: string = legacyTokenSigner(tokens.exportSigningKey()).generateLegacyToken(subject);
    objects.set("serviceaccounts/ns/robot", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "robot", namespace: "ns", uid: "uid-robot" } });
    objects.set("secrets/ns/robot-token", { apiVersion: "v1", kind: "Secret", metadata: { name: "robot-token", namespace: "ns", uid: "uid-secret", labels }, data: { token: Buffer.from(token).toString("base64") } } as KubeObject);
    const auth = async () => {
      const r = await tokens.authenticateToken(token);
      return r && "user" in r ? r.user.username : r;
    };
    return { clock, tokens, token, writes, logged, auth, objects };
  }
  const last = (v: string) => ({ "kubernetes.io/legacy-token-last-used": v });
  const wrote = (day: string) => `ns/robot-token uid-secret {"kubernetes.io/legacy-token-last-used":"${day}"}`;

  const cases: Array<{ name: string; labels: Record<string, string>; writes: string[] }> = [
    { name: "no label: today's UTC date", labels: {}, writes: [wrote("2026-01-01")] },
    { name: "used today already: no write", labels: last("2026-01-01"), writes: [] },
    { name: "labelled tomorrow (a server whose clock runs ahead): no write", labels: last("2026-01-02"), writes: [] },
    { name: "used yesterday: today's date", labels: last("2025-12-31"), writes: [wrote("2026-01-01")] },
    { name: "used long ago: today's date", labels: last("2024-03-05"), writes: [wrote("2026-01-01")] },
    { name: "a label that is no date: today's date", labels: last("garbage"), writes: [wrote("2026-01-01")] },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { auth, writes } = setup(c.labels);
      expect(await auth()).toBe("system:serviceaccount:ns:robot");
      await Promise.resolve();
      expect(writes).toEqual(c.writes);
    });
  }

  it("at most one write per secret a day, however often the token is used before the label lands; the next day again", async () => {
    const { auth, writes, clock } = setup();
    for (let i = 0; i < 5; i++) expect(await auth()).toBe("system:serviceaccount:ns:robot");
    expect(writes).toEqual([wrote("2026-01-01")]);
    // 23:59:30 + 1 min: a new UTC day.
    clock.step(60_000);
    await auth();
    await auth();
    expect(writes).toEqual([wrote("2026-01-01"), wrote("2026-01-02")]);
  });

  it("the request neither waits for the write nor fails with it; a failed write is logged and retried on a later use", async () => {
    let calls = 0;
    const pending = setup({}, () => new Promise<void>(() => {}));
    expect(await pending.auth()).toBe("system:serviceaccount:ns:robot");
    const failing = setup({}, async () => {
      calls++;
      throw new Error("etcd is down");
    });
    expect(await failing.auth()).toBe("system:serviceaccount:ns:robot");
    await new Promise((r) => setImmediate(r));
    expect(failing.logged).toEqual(["failed to label legacy service account token ns/robot-token with last-used date"]);
    expect(await failing.auth()).toBe("system:serviceaccount:ns:robot");
    await new Promise((r) => setImmediate(r));
    expect(calls).toBe(2);
  });

  it("a secret labelled invalid-since is refused with upstream's message, its use still recorded; without the label it works again", async () => {
    const s = setup({ "kubernetes.io/legacy-token-invalid-since": "2025-06-01" });
    expect(await s.auth()).toEqual({
      error:
        "the token in secret ns/robot-token for service account ns/robot has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the 'kubernetes.io/legacy-token-invalid-since' label from the secret to temporarily allow use of this token",
    });
    expect(s.writes).toEqual([wrote("2026-01-01")]);
    const secret = s.objects.get("secrets/ns/robot-token")!;
    secret.metadata!.labels = last("2026-01-01");
    expect(await s.auth()).toBe("system:serviceaccount:ns:robot");
    expect(s.writes).toHaveLength(1);
  });

  it("the invalid-since label is looked at after the ServiceAccount: a token of a deleted ServiceAccount is refused for that", async () => {
    const s = setup({ "kubernetes.io/legacy-token-invalid-since": "2025-06-01" });
    s.objects.delete("serviceaccounts/ns/robot");
    expect(await s.auth()).toEqual({ error: "service account ns/robot has been deleted" });
    expect(s.writes).toEqual([]);
  });
});

describe("authentication chain", () => {
  const chain = new AuthenticationChain([bearerTokenAuthenticator([new StaticTokenAuthenticator(parseTokenFile("good,alice,1,devs"))])], { paths: publicInfoPaths });

  it("a valid token is the user, with system:authenticated", async () => {
    expect(await chain.authenticate(fakeRequest({ Authorization: "Bearer good" }), "/api")).toEqual({ kind: "user", user: { username: "alice", uid: "1", groups: ["devs", "system:authenticated"] } });
  });

  it("a bad token is 401 even where anonymous is allowed", async () => {
    expect((await chain.authenticate(fakeRequest({ Authorization: "Bearer bad" }), "/healthz")).kind).toBe("unauthorized");
  });

  it("no credentials: anonymous only on the public-info paths", async () => {
    expect(await chain.authenticate(fakeRequest({}), "/version")).toEqual({ kind: "user", user: { username: "system:anonymous", groups: ["system:unauthenticated"] } });
    expect(await chain.authenticate(fakeRequest({}), "/readyz/")).toMatchObject({ kind: "user" });
    expect((await chain.authenticate(fakeRequest({}), "/api/v1/pods")).kind).toBe("unauthorized");
  });
});

describe("impersonation (impersonation_test.go)", () => {
  const admin = { username: "admin", groups: ["system:authenticated"] };
  const seen: Attributes[] = [];
  // admin may impersonate anything; "limited" may impersonate users only.
  const authz = (a: Attributes) => {
    seen.push(a);
    if (a.user.username === "admin") return { allowed: true, reason: "" };
    return { allowed: a.user.username === "limited" && a.resource === "users", reason: "" };
  };

  it("no headers: the requestor", () => {
    expect(impersonate(fakeRequest({}), admin, authz)).toBe(admin);
  });

  it("a user gets system:authenticated; explicit groups are kept", () => {
    expect(impersonate(fakeRequest({ "Impersonate-User": "bob" }), admin, authz)).toEqual({ username: "bob", groups: ["system:authenticated"] });
    expect(impersonate(fakeRequest({ "Impersonate-User": "bob", "Impersonate-Group": ["g1", "g2"] }), admin, authz)).toEqual({ username: "bob", groups: ["g1", "g2", "system:authenticated"] });
    expect(impersonate(fakeRequest({ "Impersonate-User": "bob", "Impersonate-Group": "system:unauthenticated" }), admin, authz)).toEqual({ username: "bob", groups: ["system:unauthenticated"] });
  });

  it("a ServiceAccount user gets its groups and the impersonate check is on serviceaccounts", () => {
    seen.length = 0;
    expect(impersonate(fakeRequest({ "Impersonate-User": "system:serviceaccount:ns:sa" }), admin, authz)).toEqual({
      username: "system:serviceaccount:ns:sa",
      groups: ["system:serviceaccounts", "system:serviceaccounts:ns", "system:authenticated"],
    });
    expect(seen[0]).toMatchObject({ verb: "impersonate", resource: "serviceaccounts", namespace: "ns", name: "sa", apiGroup: "" });
  });

  it("extra and uid", () => {
    seen.length = 0;
    const u = impersonate(fakeRequest({ "Impersonate-User": "bob", "Impersonate-Uid": "1234", "Impersonate-Extra-Scopes%2Fx": ["a", "b"] }), admin, authz);
    expect(u).toEqual({ username: "bob", uid: "1234", groups: ["system:authenticated"], extra: { "scopes/x": ["a", "b"] } });
    expect(seen.map((a) => `${a.apiGroup}/${a.resource}/${a.subresource}:${a.name}`)).toEqual(["/users/:bob", "authentication.k8s.io/userextras/scopes/x:a", "authentication.k8s.io/userextras/scopes/x:b", "authentication.k8s.io/uids/:1234"]);
  });

  it("forbidden with upstream's message when not allowed", () => {
    const limited = { username: "limited", groups: [] };
    expect(impersonate(fakeRequest({ "Impersonate-User": "bob" }), limited, authz).username).toBe("bob");
    const err = (() => {
      try {
        impersonate(fakeRequest({ "Impersonate-User": "bob", "Impersonate-Group": "admins" }), limited, authz);
      } catch (e) {
        return e as StatusError;
      }
    })();
    expect(err?.code).toBe(403);
    expect(err?.message).toBe('groups "admins" is forbidden: User "limited" cannot impersonate resource "groups" in API group "" at the cluster scope');
  });

  it("groups without a user is an error", () => {
    expect(() => impersonate(fakeRequest({ "Impersonate-Group": "g" }), admin, authz)).toThrow("without impersonating a user");
  });
});

describe("client certificate authenticator", () => {
  it("reads the peer certificate once per TLS connection", () => {
    let reads = 0;
    const socket = {
      authorized: true,
      getPeerCertificate: () => {
        reads++;
        return { subject: { CN: "alice", O: ["devs", "ops"] }, serialNumber: "01" };
      },
    };
    const req = () => ({ headers: {}, socket }) as unknown as IncomingMessage;
    for (let i = 0; i < 3; i++) expect(clientCertificateAuthenticator.authenticate(req())).toEqual({ kind: "user", user: { username: "alice", groups: ["devs", "ops"] } });
    expect(reads).toBe(1);
    const other = { ...socket, authorized: false, authorizationError: "certificate has expired" };
    expect(clientCertificateAuthenticator.authenticate({ headers: {}, socket: other } as unknown as IncomingMessage)).toMatchObject({ kind: "error", message: expect.stringContaining("certificate has expired") });
    expect(reads).toBe(2);
  });
});
