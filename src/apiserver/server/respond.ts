/** Writing responses: JSON and protobuf bodies, Status errors, Warning headers. Never a stack trace. */
import type { ServerResponse } from "node:http";
import { StatusError } from "../../apimachinery/errors.js";
import { contentTypeFor } from "./convert.js";
import { protobufMessageFor } from "../protobuf/index.js";
import { negotiateEncoding, PROTOBUF_MEDIA_TYPE, type ObjectRepresentation } from "./negotiate.js";
import { bodyChunks, joinChunks, protobufBodyBytes } from "./serialize.js";

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
  const encoded = bodyChunks(body);
  const { chunks, length } = encoded;
  res.writeHead(code, { "Content-Type": contentType, "Content-Length": length, "Cache-Control": "no-cache, private" });
  if (chunks.length === 1) {
    res.end(chunks[0]);
    return;
  }
  if (chunks.length <= maxWrittenChunks) {
    // A reused list (head, its items' kept bytes, `]}`): written as they are, in one writev.
    res.cork();
    for (const c of chunks) res.write(c);
    res.end();
    return;
  }
  // One chunk per item: copied into one buffer, which costs far less than a writev of that many (bodyBytes).
  res.end(joinChunks(encoded));
}

/** Bodies of at most this many chunks are written without copying them into one buffer. */
const maxWrittenChunks = 3;

/**
 * Writes a body in the negotiated representation. A protobuf answer whose body cannot be
 * encoded (no table for its kind, or a stored value of the wrong type) is answered as JSON.
 */
export function writeObject(res: ServerResponse, code: number, body: unknown, rep: ObjectRepresentation): void {
  if (rep.kind === "protobuf" || (rep.kind === "partial" && rep.protobuf)) {
    const data = protobufBodyBytes(body);
    if (data !== undefined) {
      res.writeHead(code, { "Content-Type": PROTOBUF_MEDIA_TYPE, "Content-Length": data.length, "Cache-Control": "no-cache, private" });
      res.end(data);
      return;
    }
    return writeJSON(res, code, body, rep.kind === "partial" ? contentTypeFor({ kind: "partial", version: rep.version }) : "application/json");
  }
  writeJSON(res, code, body, contentTypeFor(rep));
}

/**
 * Writes a typed body (apiVersion and kind set) as protobuf when the Accept header prefers it and
 * the kind is compiled in, as JSON otherwise; 406 when the client takes neither. For endpoints
 * that answer one fixed kind (reviews, TokenRequest).
 */
export function writeNegotiated(accept: string | undefined, res: ServerResponse, code: number, body: { apiVersion?: unknown; kind?: unknown }): void {
  const compiled = typeof body.apiVersion === "string" && typeof body.kind === "string" && protobufMessageFor(body.apiVersion, body.kind) !== undefined;
  writeObject(res, code, body, negotiateEncoding(accept, compiled));
}

/**
 * The encoding negotiated for each response's Status errors (absent: JSON). Set by a handler once
 * it knows the resource and the Accept header, read by writeError; it lives as long as the response.
 */
const errorEncodings = new WeakMap<ServerResponse, "protobuf">();

/** Errors on this response are written as protobuf Status (the client asked for protobuf first). */
export function setProtobufErrors(res: ServerResponse): void {
  errorEncodings.set(res, "protobuf");
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
  if (errorEncodings.get(res) === "protobuf") return writeObject(res, se.code, se.status, { kind: "protobuf" });
  writeJSON(res, se.code, se.status);
}

export function notFoundPage(): StatusError {
  return new StatusError({ message: "the server could not find the requested resource", reason: "NotFound", details: {}, code: 404 });
}

export function methodNotAllowed(): StatusError {
  return new StatusError({ message: "the server does not allow this method on the requested resource", reason: "MethodNotAllowed", details: {}, code: 405 });
}
