/**
 * The identity a request runs as, once authentication and impersonation have run. Kept beside
 * the request object (never on it), so handlers read it with `requestUser(req)`.
 */
import type { IncomingMessage } from "node:http";
import type { UserInfo } from "./user.js";

const users = new WeakMap<IncomingMessage, UserInfo>();

export function setRequestUser(req: IncomingMessage, user: UserInfo): void {
  users.set(req, user);
}

/** The request's user; undefined when the server runs without authentication. */
export function requestUser(req: IncomingMessage): UserInfo | undefined {
  return users.get(req);
}
