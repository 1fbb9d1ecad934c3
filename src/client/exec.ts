/**
 * Exec credential plugins (client-go's plugin/pkg/client/auth/exec), API versions
 * client.authentication.k8s.io/v1 and v1beta1.
 *
 * The plugin is run with the caller's environment plus the configured `env`, and
 * KUBERNETES_EXEC_INFO holding an ExecCredential request ({spec: {interactive, cluster?}}). It
 * prints an ExecCredential whose status carries a token or a client certificate/key pair and,
 * optionally, an expirationTimestamp.
 *
 * State: `cached` holds the last credentials and their expiry (ms; undefined = no expiry). They
 * are reused until the clock reaches the expiry, or until a 401 answers a request made with them
 * (`refreshAfterUnauthorized`), which drops them so that the plugin runs again. Concurrent callers
 * share one running plugin (`inflight`).
 */
import { spawn } from "node:child_process";
import type { Clock } from "../apimachinery/clock.js";
import { sameCredentials, type CredentialProvider, type Credentials } from "./auth.js";
import type { ExecClusterInfo, RestExecConfig } from "./config.js";
import { ExecCredentialError } from "./errors.js";

const SUPPORTED_VERSIONS = new Set(["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"]);

export interface ExecProviderOptions {
  clock: Clock;
  /** Cluster facts for provideClusterInfo. */
  cluster?: ExecClusterInfo;
  /** Whether stdin is a terminal; defaults to process.stdin.isTTY. */
  stdinIsTerminal?: boolean;
  /** Base environment; defaults to process.env. */
  env?: Record<string, string | undefined>;
}

interface Cached {
  creds: Credentials;
  expiresAt?: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export class ExecCredentialProvider implements CredentialProvider {
  private readonly exec: RestExecConfig;
  private readonly opts: ExecProviderOptions;
  private cached?: Cached;
  private inflight?: Promise<Credentials>;
  /** How many times the plugin has been run (for tests and diagnostics). */
  runs = 0;

  constructor(exec: RestExecConfig, opts: ExecProviderOptions) {
    if (!SUPPORTED_VERSIONS.has(exec.apiVersion)) {
      throw new ExecCredentialError(`exec plugin: invalid apiVersion "${exec.apiVersion}"`);
    }
    this.exec = exec;
    this.opts = opts;
  }

  get(signal?: AbortSignal): Promise<Credentials> {
    const c = this.cached;
    if (c && (c.expiresAt === undefined || this.opts.clock.now() < c.expiresAt)) return Promise.resolve(c.creds);
    return this.run(signal);
  }

  async refreshAfterUnauthorized(used: Credentials, signal?: AbortSignal): Promise<boolean> {
    // Someone already refreshed since `used` was handed out: just use the newer credentials.
    if (this.cached && !sameCredentials(this.cached.creds, used)) return true;
    this.cached = undefined;
    const fresh = await this.run(signal);
    return !sameCredentials(fresh, used);
  }

  private run(signal?: AbortSignal): Promise<Credentials> {
    if (!this.inflight) {
      this.inflight = this.runPlugin(signal).finally(() => {
        this.inflight = undefined;
      });
    }
    return this.inflight;
  }

  private interactive(): boolean {
    const mode = this.exec.interactiveMode ?? "IfAvailable";
    const tty = this.opts.stdinIsTerminal ?? Boolean(process.stdin.isTTY);
    if (mode === "Never") return false;
    if (mode === "Always" && !tty) {
      throw new ExecCredentialError("exec plugin cannot support interactive mode: standard input is not a terminal");
    }
    return tty;
  }

  private execInfo(interactive: boolean): string {
    const spec: Obj = { interactive };
    if (this.exec.provideClusterInfo && this.opts.cluster) {
      const c = this.opts.cluster;
      const cluster: Obj = { server: c.server };
      if (c.tlsServerName) cluster["tls-server-name"] = c.tlsServerName;
      if (c.insecureSkipTlsVerify) cluster["insecure-skip-tls-verify"] = true;
      if (c.certificateAuthorityData) cluster["certificate-authority-data"] = c.certificateAuthorityData.toString("base64");
      if (c.proxyUrl) cluster["proxy-url"] = c.proxyUrl;
      if (c.disableCompression) cluster["disable-compression"] = true;
      if (c.config !== undefined) cluster.config = c.config;
      spec.cluster = cluster;
    }
    return JSON.stringify({ kind: "ExecCredential", apiVersion: this.exec.apiVersion, spec });
  }

  private async runPlugin(signal?: AbortSignal): Promise<Credentials> {
    const interactive = this.interactive();
    const env: Record<string, string | undefined> = { ...(this.opts.env ?? process.env) };
    for (const e of this.exec.env) env[e.name] = e.value;
    env.KUBERNETES_EXEC_INFO = this.execInfo(interactive);
    this.runs++;
    const { stdout, stderr, code, error } = await new Promise<{ stdout: string; stderr: string; code: number | null; error?: Error }>(
      (resolve) => {
        const child = spawn(this.exec.command, this.exec.args, {
          env,
          stdio: [interactive ? "inherit" : "ignore", "pipe", interactive ? "inherit" : "pipe"],
          signal,
        });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        child.stdout?.on("data", (b: Buffer) => out.push(b));
        child.stderr?.on("data", (b: Buffer) => err.push(b));
        let spawnError: Error | undefined;
        child.on("error", (e) => {
          spawnError = e;
        });
        child.on("close", (exitCode) => {
          resolve({
            stdout: Buffer.concat(out).toString("utf8"),
            stderr: Buffer.concat(err).toString("utf8"),
            code: exitCode,
            error: spawnError,
          });
        });
      },
    );
    if (error) {
      if (signal?.aborted) throw signal.reason;
      const notFound = (error as { code?: string }).code === "ENOENT";
      let msg = notFound ? `exec: executable ${this.exec.command} not found` : `exec: ${error.message}`;
      if (notFound && this.exec.installHint) msg += `\n\n${this.exec.installHint}`;
      throw new ExecCredentialError(msg, { cause: error });
    }
    if (code !== 0) {
      const tail = stderr.trim();
      throw new ExecCredentialError(
        `exec: executable ${this.exec.command} failed with exit code ${code}${tail ? `: ${tail.slice(-2048)}` : ""}`,
      );
    }
    const cached = this.decode(stdout);
    this.cached = cached;
    return cached.creds;
  }

  private decode(stdout: string): Cached {
    let doc: unknown;
    try {
      doc = JSON.parse(stdout);
    } catch (e) {
      throw new ExecCredentialError(`decoding stdout: ${(e as Error).message}`, { cause: e });
    }
    if (!isObj(doc) || doc.kind !== "ExecCredential") throw new ExecCredentialError("decoding stdout: not an ExecCredential object");
    if (doc.apiVersion !== this.exec.apiVersion) {
      throw new ExecCredentialError(
        `exec plugin is configured to use API version ${this.exec.apiVersion}, plugin returned version ${String(doc.apiVersion)}`,
      );
    }
    const status = doc.status;
    if (!isObj(status)) throw new ExecCredentialError("exec plugin didn't return a status field");
    const token = typeof status.token === "string" ? status.token : "";
    const cert = typeof status.clientCertificateData === "string" ? status.clientCertificateData : "";
    const key = typeof status.clientKeyData === "string" ? status.clientKeyData : "";
    if (!token && !cert && !key) throw new ExecCredentialError("exec plugin didn't return a token or cert/key pair");
    if ((cert === "") !== (key === "")) throw new ExecCredentialError("exec plugin returned only certificate or key, not both");
    const creds: Credentials = {};
    if (token) creds.authorization = `Bearer ${token}`;
    if (cert) creds.clientCert = { cert, key };
    const out: Cached = { creds };
    if (typeof status.expirationTimestamp === "string") {
      const t = Date.parse(status.expirationTimestamp);
      if (Number.isNaN(t)) throw new ExecCredentialError(`exec plugin returned an invalid expirationTimestamp "${status.expirationTimestamp}"`);
      out.expiresAt = t;
    }
    return out;
  }
}
