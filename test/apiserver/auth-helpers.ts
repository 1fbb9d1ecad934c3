/** HTTPS calls with client certificates or tokens, and kubectl runs, for the auth tests. */
import { execFile, execFileSync } from "node:child_process";
import { request } from "node:https";
import { parse } from "yaml";

export interface Credentials {
  ca: string;
  cert?: string;
  key?: string;
  token?: string;
}

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

/** CA, client certificate and key (PEM) out of a kubeconfig the server wrote. */
export function credentialsOf(kubeconfigYAML: string): Credentials {
  const kc = parse(kubeconfigYAML) as {
    clusters: { cluster: Record<string, string> }[];
    users: { user: Record<string, string> }[];
  };
  const dec = (s: string | undefined) => (s ? Buffer.from(s, "base64").toString() : undefined);
  const u = kc.users[0].user;
  return { ca: dec(kc.clusters[0].cluster["certificate-authority-data"])!, cert: dec(u["client-certificate-data"]), key: dec(u["client-key-data"]), token: u.token };
}

export function call(baseURL: string, creds: Credentials, method: string, path: string, body?: unknown, headers: Record<string, string | string[]> = {}): Promise<Reply> {
  const url = new URL(path, baseURL);
  const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const h: Record<string, string | string[]> = { ...headers };
  if (data) h["content-type"] = "application/json";
  if (creds.token) h.authorization = `Bearer ${creds.token}`;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers: h, ca: creds.ca, cert: creds.cert, key: creds.key, agent: false },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, text });
        });
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

export function kubectlPath(): string | undefined {
  try {
    return execFileSync(process.execPath, ["scripts/kubectl.mjs"], { encoding: "utf8" }).trim().split("\n").pop();
  } catch {
    return undefined;
  }
}

/** Runs kubectl without blocking the event loop (the server under test runs in this process). */
export function kubectl(bin: string, kubeconfig: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(bin, ["--kubeconfig", kubeconfig, "--request-timeout=20s", ...args], { encoding: "utf8" }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}
