/**
 * List continue tokens: base64url(JSON {"v":"meta.k8s.io/v1","rv":<snapshot revision>,"start":"<next key relative to the prefix>"}),
 * the format kube-apiserver's etcd3 storage uses. The start key is kept relative to the list
 * prefix so that a token cannot be replayed against another collection's keys.
 */
import { StatusError } from "../../apimachinery/errors.js";

export interface ContinueToken {
  rv: number;
  /** Key suffix after the collection prefix to start from (inclusive). */
  start: string;
}

export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv, start })).toString("base64url");
}

export function decodeContinue(token: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw StatusError.badRequest(`continue key is not valid: illegal base64 data or JSON`);
  }
  if (typeof parsed !== "object" || parsed === null) throw StatusError.badRequest("continue key is not valid: not an object");
  const p = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (p.v !== "meta.k8s.io/v1") throw StatusError.badRequest(`continue key is not valid: server does not recognize this encoded key`);
  if (typeof p.rv !== "number" || !Number.isInteger(p.rv) || p.rv < 0) {
    throw StatusError.badRequest("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  if (typeof p.start !== "string" || p.start === "" || p.start.includes("..") || p.start.startsWith("/")) {
    throw StatusError.badRequest("continue key is not valid: encoded start key is invalid");
  }
  return { rv: p.rv, start: p.start };
}
