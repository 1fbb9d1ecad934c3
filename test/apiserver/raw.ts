/**
 * Raw HTTP for tests that must send what fetch would not: unnormalised paths (`..`), unknown
 * methods, huge headers, half-sent requests.
 */
import { request } from "node:http";
import { connect, type Socket } from "node:net";

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One request with node:http, the path sent exactly as given. */
export function rawRequest(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<RawReply> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers: { ...headers, connection: "close" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parseBody(text) });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** A TCP connection to the server that sends `data` (possibly nothing) and collects what comes back. */
export class RawConnection {
  readonly socket: Socket;
  received = "";
  readonly closed: Promise<void>;

  constructor(base: string, data = "") {
    const u = new URL(base);
    this.socket = connect(Number(u.port), u.hostname);
    this.socket.on("error", () => undefined);
    this.socket.on("data", (d: Buffer) => (this.received += d.toString("latin1")));
    this.closed = new Promise((resolve) => this.socket.on("close", () => resolve()));
    if (data) this.socket.write(data);
  }

  /** The status line's code and the JSON body of the (single) response received. */
  reply(): { status: number; body: any } { // eslint-disable-line @typescript-eslint/no-explicit-any
    const m = /^HTTP\/1\.1 (\d{3})/.exec(this.received);
    const sep = this.received.indexOf("\r\n\r\n");
    return { status: m ? Number(m[1]) : 0, body: sep >= 0 ? parseBody(this.received.slice(sep + 4)) : undefined };
  }

  close(): void {
    this.socket.destroy();
  }
}
