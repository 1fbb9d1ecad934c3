/**
 * Runs the built kubeloop CLI (dist/cli/main.js, the image's ENTRYPOINT) as the container of a
 * Deployment manifest would run in a pod: exactly the container's args and env plus the image's
 * ENV, the Kubernetes service variables, and the ServiceAccount's token, CA and namespace mounted
 * at /var/run/secrets/kubernetes.io/serviceaccount, and the pod's name as hostname — in private
 * mount and UTS namespaces (`unshare`, as root), so nothing outside the child sees either.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

export const root = fileURLToPath(new URL("../../", import.meta.url));

/** Whether this machine can give a child its own mount namespace (root with unshare). */
export function canUnshare(): boolean {
  const r = spawnSync("unshare", ["-m", "-u", "--propagation", "private", "sh", "-c", "hostname probe"], { stdio: "ignore" });
  return r.status === 0;
}

export interface ContainerSpec {
  args: string[];
  env: Array<{ name: string; value?: string }>;
  ports: Array<{ name: string; containerPort: number }>;
  readinessProbe?: { httpGet: { path: string; port: string | number } };
  livenessProbe?: { httpGet: { path: string; port: string | number } };
}

/** The first container of the Deployment in a manifest (YAML text of one object). */
export function containerOf(deploymentYaml: string): ContainerSpec {
  const d = parse(deploymentYaml) as { spec: { template: { spec: { containers: ContainerSpec[] } } } };
  const c = d.spec.template.spec.containers[0];
  return { ...c, env: c.env ?? [], args: c.args ?? [] };
}

/** The image's ENTRYPOINT and ENV from deploy/Dockerfile (its last stage). */
export function imageOf(dockerfile = readFileSync(join(root, "deploy/Dockerfile"), "utf8")): { entrypoint: string[]; env: Record<string, string> } {
  const stages = dockerfile.split(/^FROM /m);
  const last = stages[stages.length - 1];
  const ep = /^ENTRYPOINT (\[.*\])$/m.exec(last);
  if (!ep) throw new Error("deploy/Dockerfile: no ENTRYPOINT in the last stage");
  const env: Record<string, string> = {};
  for (const m of last.matchAll(/^ENV (\w+)=(\S+)$/gm)) env[m[1]] = m[2];
  return { entrypoint: JSON.parse(ep[1]) as string[], env };
}

export interface PodProcess {
  child: ChildProcess;
  output(): string;
  /** SIGTERM (as the kubelet stops a container); resolves to the exit code. */
  stop(): Promise<number | null>;
  exited: Promise<number | null>;
}

export interface RunAsPodOptions {
  container: ContainerSpec;
  /** The API server's port on 127.0.0.1 (KUBERNETES_SERVICE_HOST/PORT). */
  apiPort: number;
  token: string;
  caPem: string;
  namespace: string;
  podName: string;
}

export function runAsPod(o: RunAsPodOptions): PodProcess {
  const image = imageOf();
  const sa = mkdtempSync(join(tmpdir(), "kubeloop-sa-"));
  writeFileSync(join(sa, "token"), o.token);
  writeFileSync(join(sa, "ca.crt"), o.caPem);
  writeFileSync(join(sa, "namespace"), o.namespace);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOSTNAME: o.podName,
    HOME: "/nonexistent",
    KUBERNETES_SERVICE_HOST: "127.0.0.1",
    KUBERNETES_SERVICE_PORT: String(o.apiPort),
    ...image.env,
  };
  for (const e of o.container.env) env[e.name] = e.value ?? "";
  // The image runs `node dist/cli/main.js` in its WORKDIR (dist/, node_modules/, deploy/crds/).
  const [cmd, ...entryArgs] = image.entrypoint;
  // A pod's hostname is its name (its own UTS namespace).
  const script =
    'hostname "$HOSTNAME" && mount -t tmpfs tmpfs /run && mkdir -p /run/secrets/kubernetes.io/serviceaccount && ' +
    'mount --bind "$SA_DIR" /run/secrets/kubernetes.io/serviceaccount && unset SA_DIR && exec "$@"';
  const child = spawn("unshare", ["-m", "-u", "--propagation", "private", "sh", "-c", script, "sh", cmd === "node" ? process.execPath : cmd, ...entryArgs, ...o.container.args], {
    cwd: root,
    env: { ...env, SA_DIR: sa },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    stop: async () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}
