/**
 * Runs the sample controller against a cluster (or `kubeloop up`):
 *
 *   kubectl apply -f examples/sample-controller/crd.yaml
 *   npx tsc -p tsconfig.json --outDir .sample
 *   node .sample/examples/sample-controller/main.js --kubeconfig ~/.kube/config
 *   kubectl apply -f examples/sample-controller/example-foo.yaml
 *
 * Stops gracefully on SIGINT/SIGTERM.
 */
import { ClientEventSink, EventBroadcaster, KubeClient, SharedInformerFactory, createLogger } from "../../src/index.js";
import { FooController, controllerAgentName } from "./controller.js";

async function main(): Promise<void> {
  const i = process.argv.indexOf("--kubeconfig");
  const kubeconfigPath = i >= 0 ? process.argv[i + 1] : undefined;
  const logger = createLogger({ name: controllerAgentName });

  const client = KubeClient.fromEnvironment({ kubeconfigPath });
  const informers = new SharedInformerFactory(client);
  const broadcaster = new EventBroadcaster({ logger });
  broadcaster.startStructuredLogging((fields, msg) => logger.info(fields, msg));
  broadcaster.startRecordingToSink(new ClientEventSink(client));
  const controller = new FooController({
    client,
    informers,
    recorder: broadcaster.newRecorder({ component: controllerAgentName }),
    logger,
  });

  const stop = new AbortController();
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => stop.abort());
  // Informers start here; run() waits for their caches before starting the workers.
  informers.start(stop.signal);
  try {
    await controller.run(2, stop.signal);
  } finally {
    await informers.shutdown();
    await broadcaster.shutdown();
    await client.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
