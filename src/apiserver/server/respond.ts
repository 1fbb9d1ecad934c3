/** Writing responses: JSON bodies, Status errors, Warning headers. Never a stack trace. */
import type { ServerResponse } from "node:http";
import { StatusError } from "../../apimachinery/errors.js";
import { bodyBytes } from "./serialize.js";

export function warningHeader(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}

/**
 * Responses already answered on the handler's behalf (a 504 at the deadline): whatever the
 * handler writes afterwards is dropped.
 */
const abandoned = new WeakSet<ServerResponse>();

export function abandonResponse(res: ServerResponse): void {
  abandoned.add(res);
}

export function setWarnings(res: ServerResponse, warnings: readonly string[]): void {
  if (warnings.length && !res.headersSent) res.setHeader("Warning", [...new Set(warnings)].map(warningHeader));
}

export function writeJSON(res: ServerResponse, code: number, body: unknown, contentType = "application/json"): void {
  if (abandoned.has(res)) return;
  const data = bodyBytes(body);
  res.writeHead(code, { "Content-Type": contentType, "Content-Length": data.length, "Cache-Control": "no-cache, private" });
  res.end(data);
}

export function writeText(res: ServerResponse, code: number, text: string): void {
  if (abandoned.has(res)) return;
  const data = Buffer.from(text);
  res.writeHead(code, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": data.length, "X-Content-Type-Options": "nosniff" });
  res.end(data);
}

export function toStatusError(err: unknown): StatusError {
  if (err instanceof StatusError) return err;
  return StatusError.internalError(err);
}

/** Writes `err` as a Status; `close` ends the connection after it (a request body left unread). */
export function writeError(res: ServerResponse, err: unknown, opts: { close?: boolean } = {}): void {
  if (abandoned.has(res)) return;
  const se = toStatusError(err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (opts.close) res.setHeader("Connection", "close");
  if (se.code === 429) {
    const after = se.status.details?.retryAfterSeconds ?? 1;
    res.setHeader("Retry-After", String(after));
  }
  writeJSON(res, se.code, se.status);
}

export function notFoundPage(): StatusError {
  return new StatusError({ message: "the server could not find the requested resource", reason: "NotFound", details: {}, code: 404 });
}

export function methodNotAllowed(): StatusError {
  return new StatusError({ message: "the server does not allow this method on the requested resource", reason: "MethodNotAllowed", details: {}, code: 405 });
}
