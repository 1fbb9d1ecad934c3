/**
 * One startTestEnv() in a fresh process (spawned by startup.bench.ts): prints a JSON line with
 * the milliseconds from before kubeloop/testing is imported to a ready environment (module load
 * included, as a test file pays it), the startTestEnv() call alone, and the CPU seconds.
 */
import { performance } from "node:perf_hooks";

const t0 = performance.now();
const c0 = process.cpuUsage();
const { startTestEnv } = await import("../../src/testing/index.js");
const { applicationCRD } = await import("../../src/controllers/application/declaration.js");
const t1 = performance.now();
const env = await startTestEnv({ crds: [applicationCRD] });
await env.start();
const t2 = performance.now();
const cpu = process.cpuUsage(c0);
await env.stop();
console.log(JSON.stringify({ totalMs: t2 - t0, startMs: t2 - t1, cpuS: (cpu.user + cpu.system) / 1e6 }));
