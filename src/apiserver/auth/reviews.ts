/**
 * authentication.k8s.io/v1 reviews: SelfSubjectReview (who am I? — `kubectl auth whoami`) and
 * TokenReview (is this bearer token valid, and whose is it?). Create-only, never stored.
 */
import { StatusError } from "../../apimachinery/errors.js";
import { fieldErrors } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { TokenAuthenticator } from "./authenticator.js";
import { withAuthenticatedGroup, type UserInfo } from "./user.js";

const group = "authentication.k8s.io";

export function userInfoJSON(u: UserInfo): Record<string, unknown> {
  return {
    username: u.username,
    ...(u.uid ? { uid: u.uid } : {}),
    ...(u.groups.length ? { groups: u.groups } : {}),
    ...(u.extra && Object.keys(u.extra).length ? { extra: u.extra } : {}),
  };
}

export function selfSubjectReview(user: UserInfo, body: KubeObject): KubeObject {
  return {
    apiVersion: `${group}/v1`,
    kind: "SelfSubjectReview",
    metadata: { ...(body.metadata ?? {}), creationTimestamp: null },
    status: { userInfo: userInfoJSON(user) },
  } as unknown as KubeObject;
}

/** TokenReview against the token authenticators (the API audiences when spec.audiences is empty). */
export async function tokenReview(body: KubeObject, tokens: readonly TokenAuthenticator[], apiAudiences: readonly string[]): Promise<KubeObject> {
  const spec = ((body as { spec?: { token?: string; audiences?: string[] } }).spec ?? {}) as { token?: string; audiences?: string[] };
  if (!spec.token) throw StatusError.invalid({ group, kind: "TokenReview" }, "", [fieldErrors.required("spec.token", "")]);
  const wanted = spec.audiences?.length ? spec.audiences : [...apiAudiences];
  let status: Record<string, unknown> = { user: {} };
  const errors: string[] = [];
  for (const t of tokens) {
    const r = await t.authenticateToken(spec.token);
    if (!r) continue;
    if ("error" in r) {
      errors.push(r.error);
      continue;
    }
    // Static tokens carry no audiences: they are valid for the API server's own.
    const tokenAud = r.audiences ?? [...apiAudiences];
    const aud = wanted.filter((a) => tokenAud.includes(a));
    if (aud.length === 0) {
      errors.push("token audiences don't match the requested audiences");
      continue;
    }
    status = { authenticated: true, user: userInfoJSON(withAuthenticatedGroup(r.user)), audiences: aud };
    break;
  }
  if (status.authenticated !== true) status = { user: {}, error: errors.length ? errors.join(", ") : "invalid bearer token" };
  return {
    apiVersion: `${group}/v1`,
    kind: "TokenReview",
    metadata: { ...(body.metadata ?? {}), creationTimestamp: null },
    spec,
    status,
  } as unknown as KubeObject;
}
