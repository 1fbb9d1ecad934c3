/**
 * The commit marker (issue 18, defect 7): a database that lost committed writes — a truncated
 * or damaged WAL, an older copy — is detected at start and refused with a clear message, unless
 * the loss is accepted; and a database merely ahead of its marker (a crash between the commit
 * and the marker's write) opens as usual.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CommitMarker, commitMarkerFileName, DataLossError, readMarker } from "./commitmarker.js";
import { CompactedError } from "./errors.js";
import { databaseFileName, SqliteStorage } from "./sqlite.js";

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "kubeloop-marker-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const cm = (name: string, v = "0") => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, data: { v } });

function markerBytes(dir: string): Buffer {
  return readFileSync(join(dir, commitMarkerFileName));
}

describe("readMarker", () => {
  it("reads the newest intact slot, and reports a file with none as damaged", () => {
    const dir = tempDir();
    const m = CommitMarker.open(dir, { sync: false });
    expect(m.state).toEqual({ kind: "missing" });
    m.record(5);
    m.record(9);
    m.close();
    const both = markerBytes(dir);
    expect(both.length).toBe(64);
    expect(readMarker(both)).toEqual({ kind: "recorded", revision: 9, sequence: 2n });
    // A torn write damages the slot being written: the other one still holds the last record.
    const torn = Buffer.from(both);
    torn[16] ^= 0xff; // slot 0 holds sequence 2: its revision bytes
    expect(readMarker(torn)).toEqual({ kind: "recorded", revision: 5, sequence: 1n });
    const bothBad = Buffer.from(both);
    bothBad[17] ^= 1;
    bothBad[32 + 17] ^= 1;
    expect(readMarker(bothBad)).toEqual({ kind: "damaged" });
    expect(readMarker(Buffer.from("garbage"))).toEqual({ kind: "damaged" });
    expect(readMarker(Buffer.alloc(0))).toEqual({ kind: "missing" });
  });
});

/** A data directory as a crash leaves it: the files copied while the store is open (WAL not checkpointed). */
async function crashImage(n: number): Promise<{ dir: string; lastRev: number }> {
  const live = tempDir();
  const s = SqliteStorage.open(live);
  let lastRev = 0;
  for (let i = 0; i < n; i++) lastRev = (await s.create(`/registry/core/configmaps/default/cm-${i}`, cm(`cm-${i}`))).rev;
  const image = tempDir();
  for (const f of [databaseFileName, `${databaseFileName}-wal`, commitMarkerFileName]) {
    if (existsSync(join(live, f))) copyFileSync(join(live, f), join(image, f));
  }
  await s.close();
  return { dir: image, lastRev };
}

function openError(dir: string): unknown {
  try {
    SqliteStorage.open(dir).close();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe("SqliteStorage and its commit marker", () => {
  it("records every group commit", async () => {
    const dir = tempDir();
    const s = SqliteStorage.open(dir);
    const r = await Promise.all([s.create("/k/a", cm("a")), s.create("/k/b", cm("b"))]);
    expect(readMarker(markerBytes(dir))).toMatchObject({ kind: "recorded", revision: r[1].rev });
    await s.update("/k/a", cm("a", "1"));
    expect(readMarker(markerBytes(dir))).toMatchObject({ kind: "recorded", revision: s.currentRevision() });
    await s.close();
    expect(statSync(join(dir, commitMarkerFileName)).mode & 0o777).toBe(0o600);
  });

  it("opens a crash image whose WAL is intact", async () => {
    const { dir, lastRev } = await crashImage(50);
    expect(existsSync(join(dir, `${databaseFileName}-wal`))).toBe(true);
    const s = SqliteStorage.open(dir);
    expect(s.currentRevision()).toBe(lastRev);
    await s.close();
  });

  it("refuses a database whose WAL was truncated, naming the missing revisions", async () => {
    const { dir, lastRev } = await crashImage(50);
    const wal = join(dir, `${databaseFileName}-wal`);
    truncateSync(wal, Math.floor(statSync(wal).size / 2));
    const err = openError(dir);
    expect(err).toBeInstanceOf(DataLossError);
    const e = err as DataLossError;
    expect(e.committedRevision).toBe(lastRev);
    expect(e.databaseRevision).toBeLessThan(lastRev);
    expect(e.message).toContain(`but revision ${lastRev} was committed`);
    expect(e.message).toContain("--accept-data-loss");
    // Refusing changed nothing: it refuses again.
    expect(openError(dir)).toBeInstanceOf(DataLossError);
  });

  it("refuses a database whose WAL was damaged", async () => {
    const { dir, lastRev } = await crashImage(50);
    const wal = join(dir, `${databaseFileName}-wal`);
    const bytes = readFileSync(wal);
    // Damage a frame in the middle: SQLite's frame checksums end the replay there.
    for (let i = Math.floor(bytes.length / 2); i < Math.floor(bytes.length / 2) + 64; i++) bytes[i] ^= 0x5a;
    writeFileSync(wal, bytes);
    const err = openError(dir) as DataLossError;
    expect(err).toBeInstanceOf(DataLossError);
    expect(err.committedRevision).toBe(lastRev);
  });

  it("refuses a database replaced by an older copy", async () => {
    const dir = tempDir();
    const s = SqliteStorage.open(dir);
    await s.create("/k/a", cm("a"));
    await s.close();
    const old = readFileSync(join(dir, databaseFileName));
    const s2 = SqliteStorage.open(dir);
    await s2.create("/k/b", cm("b"));
    await s2.close();
    writeFileSync(join(dir, databaseFileName), old);
    expect(openError(dir)).toBeInstanceOf(DataLossError);
  });

  it("refuses when the marker itself is damaged", async () => {
    const dir = tempDir();
    const s = SqliteStorage.open(dir);
    await s.create("/k/a", cm("a"));
    await s.close();
    writeFileSync(join(dir, commitMarkerFileName), Buffer.alloc(64, 7));
    const err = openError(dir) as DataLossError;
    expect(err).toBeInstanceOf(DataLossError);
    expect(err.committedRevision).toBeUndefined();
    expect(err.message).toContain("is damaged");
    const accepted = SqliteStorage.open(dir, { acceptDataLoss: true });
    expect((await accepted.get("/k/a"))?.object.metadata?.name).toBe("a");
    await accepted.close();
    expect(openError(dir)).toBeUndefined();
  });

  it("opens a database ahead of its marker (a crash between the commit and the marker's write)", async () => {
    const dir = tempDir();
    const s = SqliteStorage.open(dir);
    await s.create("/k/a", cm("a"));
    await s.create("/k/b", cm("b"));
    const rev = s.currentRevision();
    await s.close();
    const m = CommitMarker.open(dir, { sync: false });
    m.record(rev - 1);
    m.close();
    const again = SqliteStorage.open(dir);
    expect(again.currentRevision()).toBe(rev);
    await again.close();
    expect(readMarker(markerBytes(dir))).toMatchObject({ revision: rev });
  });

  it("with acceptDataLoss, continues after the last committed revision and never reuses one", async () => {
    const { dir, lastRev } = await crashImage(50);
    const wal = join(dir, `${databaseFileName}-wal`);
    truncateSync(wal, Math.floor(statSync(wal).size / 2));
    const s = SqliteStorage.open(dir, { acceptDataLoss: true });
    try {
      expect(s.startupWarnings[0]).toMatch(/committed revision\(s\) are missing.*accepted: continuing from revision/);
      expect(s.currentRevision()).toBe(lastRev);
      expect(s.compactedRevision()).toBe(lastRev);
      // What the database still held is there; a watch from before the loss is told to relist.
      expect(await s.get("/registry/core/configmaps/default/cm-0")).toBeDefined();
      expect(() => s.watch("/registry/", { fromRevision: lastRev - 10 })).toThrow(CompactedError);
      const next = await s.create("/registry/core/configmaps/default/after", cm("after"));
      expect(next.rev).toBe(lastRev + 1);
    } finally {
      await s.close();
    }
    // The loss is behind: a plain start works, and revisions go on.
    const again = SqliteStorage.open(dir);
    expect(again.currentRevision()).toBe(lastRev + 1);
    expect((await again.list("/registry/core/configmaps/default/")).items.map((i) => i.object.metadata?.name)).toContain("after");
    await again.close();
  });
});
