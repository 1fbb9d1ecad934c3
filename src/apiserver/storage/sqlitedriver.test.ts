import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStorage, DataDirInUseError } from "./sqlite.js";
import { SQLITE_DRIVERS, SqliteDriverUnavailableError, availableSqliteDrivers, defaultSqliteDriver, isBusyError, openSqlite, type SqliteDriverName } from "./sqlitedriver.js";

const [major, minor] = process.versions.node.split(".").map(Number);
/** node:sqlite is unflagged from 22.13 and 23.4. */
const hasNodeSqlite = major > 23 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13);
const available = availableSqliteDrivers();
const dir = () => mkdtempSync(join(tmpdir(), "kubeloop-sqlitedriver-"));

const saved = process.env.KUBELOOP_SQLITE_DRIVER;
afterEach(() => {
  if (saved === undefined) delete process.env.KUBELOOP_SQLITE_DRIVER;
  else process.env.KUBELOOP_SQLITE_DRIVER = saved;
});

describe("the SQLite driver", () => {
  it(`is node:sqlite where Node has it (Node ${process.version}: ${hasNodeSqlite ? "node:sqlite" : "better-sqlite3"})`, () => {
    delete process.env.KUBELOOP_SQLITE_DRIVER;
    expect(defaultSqliteDriver()).toBe(hasNodeSqlite ? "node:sqlite" : "better-sqlite3");
    expect(available.length).toBeGreaterThan(0);
    if (hasNodeSqlite) expect(available).toContain("node:sqlite");
  });

  it("rejects an unknown forced driver, and says what to do when a forced one is missing", () => {
    expect(() => openSqlite(join(dir(), "x.db"), { driver: "sqlite4" as SqliteDriverName })).toThrow(/want one of node:sqlite, better-sqlite3/);
    for (const d of SQLITE_DRIVERS.filter((d) => !available.includes(d))) {
      expect(() => openSqlite(join(dir(), "x.db"), { driver: d })).toThrow(SqliteDriverUnavailableError);
      expect(() => openSqlite(join(dir(), "x.db"), { driver: d })).toThrow(d === "better-sqlite3" ? /npm install better-sqlite3/ : /built in from 22\.13/);
    }
  });
});

describe.each(available)("driver %s", (driver) => {
  it("runs the statements the storage uses: pragma, exec, pluck, raw, iterate, transactions", () => {
    const db = openSqlite(join(dir(), "t.db"), { driver, timeout: 100 });
    try {
      expect(JSON.stringify(db.pragma("journal_mode = WAL"))).toContain("wal");
      db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); CREATE TABLE m (k TEXT PRIMARY KEY, n INTEGER NOT NULL);");
      const insert = db.prepare("INSERT INTO t (id, v) VALUES (?, ?)");
      const many = db.transaction((rows: Array<[number, string | null]>) => {
        for (const [id, v] of rows) insert.run(id, v);
      });
      many([
        [1, "a"],
        [2, null],
      ]);
      expect(() =>
        many([
          [3, "c"],
          [1, "duplicate"],
        ]),
      ).toThrow();
      expect(db.prepare("SELECT COUNT(*) FROM t").pluck().get()).toBe(2);
      expect(db.prepare("SELECT MAX(id) FROM t WHERE id > ?").pluck().get(10)).toBeNull();
      expect([...db.prepare("SELECT id, v FROM t ORDER BY id").raw().iterate()]).toEqual([
        [1, "a"],
        [2, null],
      ]);
      expect(db.prepare("SELECT v FROM t WHERE id = ?").pluck().get(9)).toBeUndefined();
    } finally {
      db.close();
    }
  });

  it("reports a lock held by another connection as busy", () => {
    const file = join(dir(), "lock.db");
    const a = openSqlite(file, { driver, timeout: 50 });
    a.pragma("journal_mode = WAL");
    a.pragma("locking_mode = EXCLUSIVE");
    a.exec("BEGIN IMMEDIATE; COMMIT;");
    const b = openSqlite(file, { driver, timeout: 50 });
    try {
      let err: unknown;
      try {
        b.exec("BEGIN IMMEDIATE; COMMIT;");
      } catch (e) {
        err = e;
      }
      expect(isBusyError(err)).toBe(true);
      expect(isBusyError(new Error("other"))).toBe(false);
    } finally {
      b.close();
      a.close();
    }
  });

  it("backs SqliteStorage: writes survive a reopen, and a second server is refused the directory", async () => {
    process.env.KUBELOOP_SQLITE_DRIVER = driver;
    const dataDir = dir();
    const s = SqliteStorage.open(dataDir);
    const created = await s.create("/registry/core/configmaps/default/a", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "default" }, data: { k: "v" } });
    await s.update("/registry/core/configmaps/default/a", { ...created.object, data: { k: "w" } });
    expect(() => SqliteStorage.open(dataDir)).toThrow(DataDirInUseError);
    await s.close();
    const again = SqliteStorage.open(dataDir);
    try {
      expect((await again.get("/registry/core/configmaps/default/a"))?.object).toMatchObject({ data: { k: "w" } });
      expect(again.currentRevision()).toBe(s.currentRevision());
    } finally {
      await again.close();
    }
  });
});
