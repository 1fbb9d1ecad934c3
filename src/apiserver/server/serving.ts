/**
 * Connection hygiene of the listening server, as kube-apiserver's secure serving sets up its
 * http.Server: a header read timeout (32 s, ReadHeaderTimeout — also bounding the TLS handshake
 * and a connection that sends nothing), an idle keep-alive timeout (90 s, IdleTimeout), at most
 * 1 MiB of request headers (MaxHeaderBytes), and a bound on receiving a whole request (the
 * request timeout, so that a body sent byte by byte does not hold a connection forever).
 *
 * Node answers protocol-level failures itself with empty bodies; here each gets a Status:
 * 431 for oversized headers, 405 for methods the parser does not know (and CONNECT), 408 for a
 * request not received in time, 417 for an unsupported Expect, 400 for other malformed requests.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { StatusError } from "../../apimachinery/errors.js";
import { defaultRequestTimeoutMs } from "./deadline.js";
import { methodNotAllowed, writeError } from "./respond.js";

export interface ServingOptions {
  /** Time to receive a request's headers, from the connection (or the previous response) on (32 s). */
  headerReadTimeoutMs: number;
  /** Keep-alive connections idle longer than this are closed (90 s). */
  idleTimeoutMs: number;
  /** Largest request header block accepted (1 MiB); larger gets 431. */
  maxHeaderBytes: number;
  /** Deadline of requests that are not long-running, the `timeout` parameter's ceiling (60 s). */
  requestTimeoutMs: number;
}

export const defaultServingOptions: ServingOptions = {
  headerReadTimeoutMs: 32_000,
  idleTimeoutMs: 90_000,
  maxHeaderBytes: 1 << 20,
  requestTimeoutMs: defaultRequestTimeoutMs,
};

/** The options of http(s).createServer that implement `o`. */
export function nodeServerOptions(o: ServingOptions): {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  maxHeaderSize: number;
  connectionsCheckingInterval: number;
  handshakeTimeout: number;
} {
  return {
    headersTimeout: o.headerReadTimeoutMs,
    // Node's bound on receiving the whole request; the handler's deadline answers first.
    requestTimeout: Math.max(o.requestTimeoutMs, o.headerReadTimeoutMs) + 1000,
    keepAliveTimeout: o.idleTimeoutMs,
    maxHeaderSize: o.maxHeaderBytes,
    // How often Node looks for connections past the header or request timeout.
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(o.headerReadTimeoutMs / 4))),
    handshakeTimeout: o.headerReadTimeoutMs,
  };
}

/** A complete HTTP/1.1 response carrying `err` as a Status, for a socket without a response object. */
export function rawStatusResponse(err: StatusError): string {
  const body = JSON.stringify(err.status);
  const text = httpStatusText[err.code] ?? "Error";
  return (
    `HTTP/1.1 ${err.code} ${text}\r\nContent-Type: application/json\r\nCache-Control: no-cache, private\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

const httpStatusText: Record<number, string> = {
  400: "Bad Request",
  405: "Method Not Allowed",
  408: "Request Timeout",
  413: "Request Entity Too Large",
  417: "Expectation Failed",
  431: "Request Header Fields Too Large",
};

const methodToken = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ /;

/** The Status for a parse or timeout failure Node reports on a connection. */
export function clientErrorStatus(err: Error & { code?: string; rawPacket?: Buffer }): StatusError {
  switch (err.code) {
    case "HPE_HEADER_OVERFLOW":
      return new StatusError({ message: "Request Header Fields Too Large", reason: "BadRequest", code: 431 });
    case "HPE_INVALID_METHOD":
      // A well-formed method Node's parser does not know (Go's server accepts any token).
      if (err.rawPacket && methodToken.test(err.rawPacket.subarray(0, 64).toString("latin1"))) return methodNotAllowed();
      return StatusError.badRequest(`malformed HTTP request: ${err.message}`);
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new StatusError({ message: "the request was not received in time", reason: "Timeout", code: 408 });
    default:
      return StatusError.badRequest(`malformed HTTP request: ${err.message}`);
  }
}

/** Answers protocol failures with Status bodies on a server made with nodeServerOptions. */
export function answerProtocolErrorsWithStatus(server: Server): void {
  server.on("clientError", (err: Error & { code?: string; rawPacket?: Buffer; library?: string }, socket: Socket) => {
    const inProgress = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    // TLS failures (https re-emits them here) come before there is an HTTP connection to answer on.
    const tlsFailure = err.code?.startsWith("ERR_TLS") || err.code?.startsWith("ERR_SSL") || err.library !== undefined;
    if (tlsFailure || err.code === "ECONNRESET" || err.code === "EPIPE" || !socket.writable || inProgress?.headersSent) {
      socket.destroy();
      return;
    }
    socket.end(rawStatusResponse(clientErrorStatus(err)));
    // A peer that does not read the answer does not keep the connection either.
    setTimeout(() => socket.destroy(), 1000).unref();
  });
  server.on("connect", (_req: IncomingMessage, socket: Socket) => {
    socket.on("error", () => socket.destroy());
    socket.end(rawStatusResponse(methodNotAllowed()));
  });
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    writeError(res, new StatusError({ message: `unsupported expectation ${JSON.stringify(req.headers.expect ?? "")}`, reason: "BadRequest", code: 417 }), { close: true });
  });
}
