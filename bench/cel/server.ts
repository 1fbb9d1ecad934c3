/**
 * The embedded API server alone in this process, for bench/cel/create.bench.ts: prints
 * {"url": ...} once listening; answers a "cpu" message with its CPU seconds; exits on "stop".
 */
import { startApiServer } from "../../src/apiserver/index.js";

const api = await startApiServer({ port: 0, insecureHttp: true, server: { maxInFlight: 10_000 } });
process.send?.({ url: api.url });
process.on("message", (m: unknown) => {
  if (m === "cpu") {
    const c = process.cpuUsage();
    process.send?.({ cpuSeconds: (c.user + c.system) / 1e6 });
  } else if (m === "stop") {
    void api.stop().then(() => process.exit(0));
  }
});
