/**
 * The child process of the SQLite crash test (sqlite.test.ts): starts the API server on a data
 * directory and writes as fast as it can over loopback HTTP — creates, then updates of what it
 * created — printing one line per acknowledged write (`ack <create|update> <name> <rv>`) until
 * the parent kills it with SIGKILL.
 *
 * Usage (bundled by the test): node sqlite-crashchild.mjs <dataDir> <concurrency> <durability>
 */
import { startApiServer } from "../index.js";
import type { Durability } from "./sqlite.js";

async function main(): Promise<void> {
  const [dataDir, concurrencyArg, durability] = process.argv.slice(2);
  const running = await startApiServer({
    dataDir,
    insecureHttp: true,
    server: { persistence: { durability: (durability ?? "full") as Durability } },
  });
  const base = `${running.url}/api/v1/namespaces/default/configmaps`;
  process.stdout.write(`ready ${running.url}\n`);
  let next = 0;
  const writer = async (): Promise<void> => {
    for (;;) {
      const name = `cm-${next++}`;
      const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { v: "0" } };
      const res = await fetch(base, { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" } });
      const created = (await res.json()) as { metadata: { resourceVersion: string } };
      if (res.status !== 201) throw new Error(`create ${name}: ${res.status}`);
      process.stdout.write(`ack create ${name} ${created.metadata.resourceVersion}\n`);
      const upd = await fetch(`${base}/${name}`, {
        method: "PATCH",
        body: JSON.stringify({ data: { v: "1" } }),
        headers: { "Content-Type": "application/merge-patch+json" },
      });
      const updated = (await upd.json()) as { metadata: { resourceVersion: string } };
      if (upd.status !== 200) throw new Error(`update ${name}: ${upd.status}`);
      process.stdout.write(`ack update ${name} ${updated.metadata.resourceVersion}\n`);
    }
  };
  await Promise.all(Array.from({ length: Number(concurrencyArg ?? "8") }, writer));
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
