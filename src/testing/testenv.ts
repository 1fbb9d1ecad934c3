/**
 * `startTestEnv()`: a test environment in the manner of controller-runtime's envtest. It runs the
 * embedded API server in-process on a free loopback port, installs CRDs (from directories of YAML
 * files and/or TypeScript declarations) and waits until each is Established, and runs a chosen
 * set of kubeloop's built-in controllers. By default it runs none, like envtest, so the controller
 * under test is the only one acting. It hands back a typed client, the kubeconfig path (for
 * kubectl or a second process) and the manager, on which the test's own controllers are set up.
 *
 *   await using env = await startTestEnv({ crds: [widgets], crdDirectoryPaths: ["deploy/crds"] });
 *   setupWidgetController(env.manager);
 *   await env.start();                       // runs the manager (the test's controllers)
 *   await env.client.resource(widgets.resource, "default").create(...);
 *
 * With `webhooks`, the test's admission handlers are served and their configurations installed
 * and in effect before it resolves (testenvwebhooks.ts; envtest's WebhookInstallOptions).
 *
 * Shutdown is `stop()`, `await using` (Symbol.asyncDispose) or aborting `signal`, and it is
 * idempotent: the manager, then the webhook server, the built-in controllers, the client and the
 * server stop in that order.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import type { CustomResourceDefinition } from "../apimachinery/api/apiextensions/v1.js";
import { parseAllDocuments } from "yaml";
import type { Clock } from "../apimachinery/clock.js";
import type { TypedObject } from "../apimachinery/types.js";
import type { StartApiServerOptions } from "../apiserver/index.js";
import type { KubeClient } from "../client/kubeclient.js";
import type { ControllerName, RunningControlPlane } from "../controlplane/index.js";
import { dropManagedFields, SharedInformerFactory } from "../informers/index.js";
import type { CustomResourceInfo } from "../runtime/crd/customresource.js";
import { installCRDs } from "../runtime/crd/install.js";
import { silentLogger, type Logger } from "../runtime/logging.js";
import { Manager } from "../runtime/manager.js";
import { TestEnvError } from "./testenverror.js";
import { installTestEnvWebhooks, type TestEnvWebhookOptions, type TestEnvWebhooks, type WebhookConfiguration } from "./testenvwebhooks.js";

export { TestEnvError };

export interface TestEnvOptions {
  /** Built-in controllers to run (default none, as envtest); "application" also installs its CRD. */
  controllers?: readonly ControllerName[];
  /** CRDs declared with defineCustomResource. */
  crds?: readonly CustomResourceInfo[];
  /** Files or directories of YAML CRDs (.yaml/.yml/.json; documents of other kinds are skipped). */
  crdDirectoryPaths?: readonly string[];
  /** Fail when a crdDirectoryPaths entry does not exist (default true, as envtest's ErrorIfCRDPathMissing). */
  errorIfCRDPathMissing?: boolean;
  /** The clock of the server, the built-in controllers and the manager; a FakeClock makes their time the test's. */
  clock?: Clock;
  /** Aborting it stops the environment. */
  signal?: AbortSignal;
  logger?: Logger;
  /** Options passed to the API server (port, dataDir, auth, ...). */
  apiServer?: Omit<StartApiServerOptions, "clock" | "logger">;
  /** How long to wait for each CRD to be Established (default 30 000 ms). */
  crdInstallTimeoutMs?: number;
  /**
   * Admission webhooks (envtest's WebhookInstallOptions): handlers registered on a WebhookServer
   * the environment serves on a free loopback port with a generated CA, and the webhook
   * configurations (objects, YAML paths, or generated from the handlers) pointed at it,
   * installed and in effect before startTestEnv resolves.
   */
  webhooks?: TestEnvWebhookOptions;
}

export interface TestEnv {
  /** The API server's URL (https://127.0.0.1:port). */
  url: string;
  /** A kubeconfig for the server (admin), usable by kubectl and other processes. */
  kubeconfigPath: string;
  /** A client with no client-side rate limit. */
  client: KubeClient;
  /** A manager for the test's own controllers (its own informers; not started until start()). */
  manager: Manager;
  /** The CRDs installed, as the server stored them (Established). */
  crds: CustomResourceDefinition[];
  /** The control plane underneath (server, built-in controllers' manager). */
  controlPlane: RunningControlPlane;
  /** With `webhooks`: the webhook server's address, certificate directory and the configurations installed. */
  webhooks?: TestEnvWebhooks;
  /** Starts `manager` (runs until stop) and resolves once its informers have synced. */
  start(): Promise<void>;
  /** Stops everything; idempotent. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The CRD documents in the given files and directories (directories: their files, sorted, not recursive). */
export function readCRDFiles(paths: readonly string[], errorIfMissing = true): CustomResourceDefinition[] {
  return readManifests(paths, ["CustomResourceDefinition"], "CRD", errorIfMissing) as CustomResourceDefinition[];
}

/** The Mutating/ValidatingWebhookConfiguration documents in the given files and directories (as readCRDFiles). */
export function readWebhookConfigurationFiles(paths: readonly string[], errorIfMissing = true): WebhookConfiguration[] {
  return readManifests(paths, ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"], "webhook configuration", errorIfMissing) as WebhookConfiguration[];
}

function readManifests(paths: readonly string[], kinds: readonly string[], what: string, errorIfMissing: boolean): unknown[] {
  const out: unknown[] = [];
  for (const p of paths) {
    let files: string[];
    try {
      files = statSync(p).isDirectory()
        ? readdirSync(p)
            .filter((f) => [".yaml", ".yml", ".json"].includes(extname(f)))
            .sort()
            .map((f) => join(p, f))
        : [p];
    } catch {
      if (errorIfMissing) throw new TestEnvError(`${what} path ${p} does not exist`);
      continue;
    }
    for (const file of files) {
      for (const doc of parseAllDocuments(readFileSync(file, "utf8"))) {
        if (doc.errors.length) throw new TestEnvError(`${file}: invalid YAML: ${doc.errors[0].message}`);
        const v = doc.toJS() as { kind?: unknown } | null;
        if (v && typeof v.kind === "string" && kinds.includes(v.kind)) out.push(v);
      }
    }
  }
  return out;
}

/** Starts a test environment; see the module comment. */
export async function startTestEnv(opts: TestEnvOptions = {}): Promise<TestEnv> {
  if (opts.signal?.aborted) throw new TestEnvError("the signal is already aborted");
  const fromFiles = readCRDFiles(opts.crdDirectoryPaths ?? [], opts.errorIfCRDPathMissing ?? true);
  // Webhook configuration paths are always required to exist (envtest reads them the same way).
  const webhookFiles = opts.webhooks ? readWebhookConfigurationFiles(opts.webhooks.paths ?? []) : [];
  const logger: Logger = opts.logger ?? silentLogger();
  // Loaded on demand: unit tests importing kubeloop/testing for FakeClient do not load the server.
  const { startControlPlane } = await import("../controlplane/index.js");
  const cp = await startControlPlane({ ...opts.apiServer, controllers: opts.controllers ?? [], clock: opts.clock, logger });
  let crds: CustomResourceDefinition[];
  try {
    // Installation polls on the real clock: a fake clock would never advance during setup.
    crds = await installCRDs(cp.client, [...fromFiles, ...(opts.crds ?? [])], { signal: opts.signal, timeoutMs: opts.crdInstallTimeoutMs, pollMs: 10 });
  } catch (err) {
    await cp.stop();
    throw err;
  }
  const informers = new SharedInformerFactory(cp.client, { clock: opts.clock, transform: dropManagedFields as (o: TypedObject) => TypedObject });
  const manager = new Manager({ client: cp.client, informers, clock: opts.clock, logger });
  let webhooks: Awaited<ReturnType<typeof installTestEnvWebhooks>> | undefined;
  if (opts.webhooks) {
    try {
      webhooks = await installTestEnvWebhooks(opts.webhooks, { client: cp.client, server: cp.api.server, fromFiles: webhookFiles, registry: manager.registry, logger, signal: opts.signal });
    } catch (err) {
      await cp.stop();
      throw err;
    }
  }
  const ac = new AbortController();
  let running: Promise<void> | undefined;
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      ac.abort();
      await running?.catch(() => undefined);
      await webhooks?.stop();
      await cp.stop();
    })());
  opts.signal?.addEventListener("abort", () => void stop(), { once: true });
  return {
    url: cp.api.url,
    kubeconfigPath: cp.api.kubeconfigPath,
    client: cp.client,
    manager,
    crds,
    controlPlane: cp,
    ...(webhooks ? { webhooks: webhooks.webhooks } : {}),
    start: async () => {
      if (stopped) throw new TestEnvError("the test environment is stopped");
      running ??= manager.start(ac.signal).catch((err: unknown) => {
        if (!ac.signal.aborted) logger.error({ err }, "the test environment's manager stopped with an error");
      });
      await manager.waitForCacheSync(ac.signal);
      await cp.ready;
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
