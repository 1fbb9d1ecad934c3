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
import { ClientEventSink, EventBroadcaster, KubeClient, SharedInformerFactory, createLogger } from "kubeloop";
import { FooController, controllerAgentName } from "./controller.js";

async function main(): Promise<void> {
  const logger = createLogger({ name: controllerAgentName });

  // --kubeconfig, else KUBECONFIG, else the in-cluster config in a pod, else ~/.kube/config.
  const client = KubeClient.fromConfig();
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
    await controller.run(stop.signal, 2);
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
