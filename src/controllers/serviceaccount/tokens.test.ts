/**
 * Cases restated from upstream tokens_controller_test.go (TestTokenCreation), the secret and
 * deleted-ServiceAccount rows (1.24+ no longer creates token secrets for ServiceAccounts): one sync
 * of the request the event yields, then the client's actions.
 */
import { describe, expect, it } from "vitest";
import type { Secret, ServiceAccount } from "../../apimachinery/api/core/v1.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { TokensController, type LegacyTokenSubject, type TokensRequest } from "./tokens.js";

const CA = "CA Data";
const b64 = (s: string) => Buffer.from(s).toString("base64");

function serviceAccount(secrets: string[] = ["token-secret-1"]): ServiceAccount {
  return { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default", namespace: "default", uid: "12345" }, secrets: secrets.map((name) => ({ name })) };
}
function tokenSecret(data: Record<string, string | undefined> = {}): Secret {
  const all: Record<string, string | undefined> = { token: "ABC", "ca.crt": CA, namespace: "default", ...data };
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "token-secret-1", namespace: "default", uid: "23456", annotations: { "kubernetes.io/service-account.name": "default", "kubernetes.io/service-account.uid": "12345" } },
    type: "kubernetes.io/service-account-token",
    data: Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined).map(([k, v]) => [k, b64(v)])),
  };
}
const secretRequest: TokensRequest = { kind: "secret", namespace: "default", name: "token-secret-1", uid: "23456", saName: "default", saUID: "12345" };
const saRequest: TokensRequest = { kind: "serviceaccount", namespace: "default", name: "default", uid: "12345" };

const issued: LegacyTokenSubject[] = [];
const generator = {
  generateLegacyToken(s: LegacyTokenSubject) {
    issued.push(s);
    return "ABC";
  },
};

const described = (f: ControllerFixture) =>
  f.client
    .actions()
    .filter((a) => a.verb !== "watch" && a.verb !== "list")
    .map((a) => `${a.verb} ${a.resource} ${a.name ?? (a.object as { metadata?: { name?: string } } | undefined)?.metadata?.name ?? ""}`);

describe("TokensController (TestTokenCreation)", () => {
  interface Case {
    name: string;
    clientObjects?: { accounts?: ServiceAccount[]; secrets?: Secret[] };
    existingServiceAccount?: ServiceAccount;
    existingSecrets?: Secret[];
    request: TokensRequest;
    want: string[];
    /** The stored secret's data afterwards (decoded). */
    wantData?: Record<string, string>;
  }
  const cases: Case[] = [
    { name: "deleted serviceaccount with no secrets", request: saRequest, want: [] },
    { name: "deleted serviceaccount with non-token secrets", clientObjects: { secrets: [{ apiVersion: "v1", kind: "Secret", metadata: { name: "regular-secret-1", namespace: "default" }, type: "Opaque" }] }, request: saRequest, want: [] },
    { name: "deleted serviceaccount with token secrets", clientObjects: { secrets: [tokenSecret()] }, existingSecrets: [tokenSecret()], request: saRequest, want: ["delete secrets token-secret-1"] },
    { name: "added secret without serviceaccount", clientObjects: { secrets: [tokenSecret()] }, existingSecrets: [tokenSecret()], request: secretRequest, want: ["get serviceaccounts default", "delete secrets token-secret-1"] },
    { name: "added secret with serviceaccount", existingServiceAccount: serviceAccount(), existingSecrets: [tokenSecret()], request: secretRequest, want: [] },
    {
      name: "added token secret without token data",
      clientObjects: { secrets: [tokenSecret({ token: undefined })] },
      existingServiceAccount: serviceAccount(),
      existingSecrets: [tokenSecret({ token: undefined })],
      request: secretRequest,
      want: ["get secrets token-secret-1", "update secrets token-secret-1"],
      wantData: { token: "ABC", "ca.crt": CA, namespace: "default" },
    },
    {
      name: "added token secret without ca data",
      clientObjects: { secrets: [tokenSecret({ "ca.crt": undefined })] },
      existingServiceAccount: serviceAccount(),
      existingSecrets: [tokenSecret({ "ca.crt": undefined })],
      request: secretRequest,
      want: ["get secrets token-secret-1", "update secrets token-secret-1"],
      wantData: { token: "ABC", "ca.crt": CA, namespace: "default" },
    },
    {
      name: "added token secret with mismatched ca data",
      clientObjects: { secrets: [tokenSecret({ "ca.crt": "mismatched" })] },
      existingServiceAccount: serviceAccount(),
      existingSecrets: [tokenSecret({ "ca.crt": "mismatched" })],
      request: secretRequest,
      want: ["get secrets token-secret-1", "update secrets token-secret-1"],
      wantData: { token: "ABC", "ca.crt": CA, namespace: "default" },
    },
    {
      name: "added token secret without namespace data",
      clientObjects: { secrets: [tokenSecret({ namespace: undefined })] },
      existingServiceAccount: serviceAccount(),
      existingSecrets: [tokenSecret({ namespace: undefined })],
      request: secretRequest,
      want: ["get secrets token-secret-1", "update secrets token-secret-1"],
      wantData: { token: "ABC", "ca.crt": CA, namespace: "default" },
    },
    {
      name: "added token secret with custom namespace data",
      clientObjects: { secrets: [tokenSecret({ namespace: "custom" })] },
      existingServiceAccount: serviceAccount(),
      existingSecrets: [tokenSecret({ namespace: "custom" })],
      request: secretRequest,
      want: [],
    },
    { name: "deleted secret without serviceaccount", request: secretRequest, want: [] },
    {
      name: "deleted secret with serviceaccount with reference",
      clientObjects: { accounts: [serviceAccount()] },
      existingServiceAccount: serviceAccount(),
      request: secretRequest,
      want: ["get serviceaccounts default", "update serviceaccounts default"],
    },
    {
      name: "deleted secret with serviceaccount without reference",
      clientObjects: { accounts: [serviceAccount([])] },
      existingServiceAccount: serviceAccount([]),
      request: secretRequest,
      want: ["get serviceaccounts default"],
    },
    {
      name: "a secret whose ServiceAccount was recreated (another uid) is deleted",
      clientObjects: { accounts: [{ ...serviceAccount(), metadata: { ...serviceAccount().metadata, uid: "99999" } }], secrets: [tokenSecret()] },
      existingServiceAccount: { ...serviceAccount(), metadata: { ...serviceAccount().metadata, uid: "99999" } },
      existingSecrets: [tokenSecret()],
      request: secretRequest,
      want: ["get serviceaccounts default", "delete secrets token-secret-1"],
    },
  ];

  it.each(cases)("$name", async (t) => {
    const f = new ControllerFixture();
    const c = new TokensController(f.manager, { tokenGenerator: generator, rootCA: CA });
    f.seedAPI(builtin.serviceAccounts, ...(t.clientObjects?.accounts ?? []));
    f.seedAPI(builtin.secrets, ...(t.clientObjects?.secrets ?? []));
    if (t.existingServiceAccount) f.seedCache(builtin.serviceAccounts, t.existingServiceAccount);
    f.seedCache(builtin.secrets, ...(t.existingSecrets ?? []));
    issued.length = 0;
    await f.reconcile(c.controller, t.request);
    expect(described(f)).toEqual(t.want);
    if (t.wantData) {
      const stored = f.client.tracker.get(builtin.secrets, "default", "token-secret-1") as unknown as Secret;
      expect(Object.fromEntries(Object.entries(stored.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString()]))).toEqual(t.wantData);
      expect(stored.metadata?.annotations).toMatchObject({ "kubernetes.io/service-account.name": "default", "kubernetes.io/service-account.uid": "12345" });
    }
    if (t.want.includes("update secrets token-secret-1") && t.wantData && !t.existingSecrets?.[0]?.data?.token) {
      expect(issued).toEqual([{ namespace: "default", serviceAccountName: "default", serviceAccountUID: "12345", secretName: "token-secret-1" }]);
    }
  });

  it("a new token secret naming only the ServiceAccount gets the token, namespace and the uid annotation (no CA: no ca.crt)", async () => {
    const f = new ControllerFixture();
    const c = new TokensController(f.manager, { tokenGenerator: generator });
    const bare: Secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "mine", namespace: "default", annotations: { "kubernetes.io/service-account.name": "default" } }, type: "kubernetes.io/service-account-token" };
    f.seed(builtin.serviceAccounts, serviceAccount([]));
    const [stored] = f.seed(builtin.secrets, bare);
    issued.length = 0;
    await f.reconcile(c.controller, { kind: "secret", namespace: "default", name: "mine", uid: stored.metadata?.uid ?? "", saName: "default", saUID: "" });
    const after = f.client.tracker.get(builtin.secrets, "default", "mine") as unknown as Secret;
    expect(Object.keys(after.data ?? {}).sort()).toEqual(["namespace", "token"]);
    expect(after.metadata?.annotations?.["kubernetes.io/service-account.uid"]).toBe("12345");
    expect(issued).toEqual([{ namespace: "default", serviceAccountName: "default", serviceAccountUID: "12345", secretName: "mine" }]);
  });
});
