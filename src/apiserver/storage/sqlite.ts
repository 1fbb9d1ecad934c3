/**
 * SqliteStorage: the persistent store — kine's log table in SQLite (node:sqlite, or better-sqlite3
 * on Node 20: sqlitedriver.ts) under an
 * in-memory read side (MemoryStorage), with group commit.
 *
 * On disk (`<dataDir>/kubeloop.db`):
 *   log(id INTEGER PRIMARY KEY  -- the revision of the write
 *       key TEXT, value TEXT     -- the object as JSON (NULL for a deletion)
 *       prev_revision INTEGER    -- the revision this write replaced (0 for a create)
 *       deleted INTEGER)         -- 1 for a deletion
 *   INDEX log_key (key, id);  meta(name, value): "compacted" = the compacted revision.
 *
 * Invariants:
 * - Every revision in (compacted, revision] has exactly one row: the retained log, contiguous
 *   (one writer, explicit ids). Rows at or below `compacted` are the base versions: the newest
 *   live version of each key at the floor. Compaction deletes rows superseded by a row at or
 *   below the new floor, and deletion rows at or below it, in one transaction with the new floor.
 * - The revision after a restart is max(max(id), compacted): never reused, even when the newest
 *   rows were compacted away.
 * - A write is acknowledged (its promise resolves, so the HTTP answer is sent) only after its
 *   transaction committed. Watchers and readers see a write only after that commit too: the
 *   read side (MemoryStorage) is updated after the commit.
 * - Between staging and commit, `pending` holds the newest staged state per key: writes are
 *   validated (existence, compare-and-swap, no-op detection) against it, so the revisions
 *   staged in one batch are exactly those MemoryStorage would assign.
 *
 * Group commit: writes staged in the same event-loop turn are committed by one transaction in
 * a setImmediate callback — every request whose body arrived in the same poll phase shares one
 * commit (and one fsync).
 *
 * Durability (`durability` option): "full" (default) sets synchronous=FULL: WAL frames are fsynced at
 * every commit, so an acknowledged write survives a process crash (SIGKILL) and a power loss
 * or kernel crash. "process" sets synchronous=NORMAL: a commit is written to the WAL file
 * (the OS page cache) before it returns, which survives SIGKILL of this process but can lose
 * the last commits on power loss. Both meet "a crash (SIGKILL) loses no acknowledged write";
 * the default is FULL because with group commit one fsync serves a whole batch and the measured
 * cost is small (bench/apiserver/persistence.bench.ts).
 *
 * Every group commit is recorded in the commit marker (commitmarker.ts) before its writes are
 * acknowledged; a database found behind its marker at open (a truncated or damaged WAL, an older
 * copy) is refused with a DataLossError unless `acceptDataLoss`. Files are 0600 (privatefiles.ts).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { isBusyError, openSqlite, type SqliteDatabase } from "./sqlitedriver.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { deepCopy, deepFreeze, semanticEqual } from "../../apimachinery/deepcopy.js";
import { KeyExistsError, KeyNotFoundError, RevisionMismatchError } from "./errors.js";
import type { ListRequest, ListResult, Storage, StorageWatch, StoredObject, WatchRequest } from "./interface.js";
import { MemoryStorage, type MemoryStorageOptions } from "./memory.js";
import { ensurePrivateFile, privateDirMode, restrictIfExists } from "../privatefiles.js";
import { CommitMarker } from "./commitmarker.js";

export type Durability = "full" | "process";

export interface SqliteStorageOptions extends MemoryStorageOptions {
  /** See the module comment (default "full"). */
  durability?: Durability;
  /** Commit writes of one event-loop turn together (default true); false: one transaction per write. */
  groupCommit?: boolean;
  /** Compact the log on disk when the in-memory floor moved this many revisions (default 1000). */
  compactEvery?: number;
  /**
   * Start even when the database is behind its commit marker (committed writes are missing) or
   * the marker is damaged, continuing from what the database holds (default false: refuse with a
   * DataLossError). See commitmarker.ts.
   */
  acceptDataLoss?: boolean;
}

/** The database file inside a data directory. */
export const databaseFileName = "kubeloop.db";

interface Staged {
  key: string;
  rev: number;
  /** The new state; null for a deletion. */
  object: KubeObject | null;
  prevRev: number;
  resolve(r: StoredObject): void;
  reject(err: unknown): void;
}

interface PendingState {
  rev: number;
  object: KubeObject | null;
}

function withRevision(obj: KubeObject, rev: number): KubeObject {
  const copy = deepCopy(obj);
  copy.metadata = { ...(copy.metadata ?? {}), resourceVersion: String(rev) };
  return copy;
}

/** Thrown when another process holds the data directory. */
export class DataDirInUseError extends Error {
  constructor(readonly dataDir: string) {
    super(`data directory ${dataDir} is in use by another process`);
    this.name = "DataDirInUseError";
  }
}

export class SqliteStorage implements Storage {
  private readonly db: SqliteDatabase;
  private readonly memory: MemoryStorage;
  private readonly groupCommit: boolean;
  private readonly compactEvery: number;
  /** The last revision handed to a staged write (≥ memory.currentRevision()). */
  private staged: number;
  private readonly pending = new Map<string, PendingState>();
  private queue: Staged[] = [];
  private scheduled = false;
  /** Settles when the batch being staged is committed (or failed). */
  private batch: { promise: Promise<void>; resolve(): void; reject(err: unknown): void } | undefined;
  private dbCompacted: number;
  private closed = false;
  private readonly insertBatch: (rows: readonly Staged[]) => void;
  /** The record of the last committed revision (commitmarker.ts); set once the lock is held. */
  private marker: CommitMarker | undefined;
  /** Why a write's commit marker could not be recorded, if it could not (the write is committed). */
  markerError: unknown;
  /** What the server should log after opening (an accepted data loss). */
  readonly startupWarnings: string[] = [];
  private readonly compactTo: (from: number, to: number) => void;

  /** Opens (creating if needed) the store in `dataDir` and loads its state. */
  static open(dataDir: string, opts: SqliteStorageOptions = {}): SqliteStorage {
    mkdirSync(dataDir, { recursive: true, mode: privateDirMode });
    const file = join(dataDir, databaseFileName);
    // Every Secret is in these: 0600 (SQLite gives its -wal and -shm files the database's mode).
    ensurePrivateFile(file);
    for (const suffix of ["-wal", "-shm"]) restrictIfExists(file + suffix);
    return new SqliteStorage(file, dataDir, opts);
  }

  private constructor(file: string, dataDir: string, opts: SqliteStorageOptions) {
    this.groupCommit = opts.groupCommit ?? true;
    this.compactEvery = Math.max(1, opts.compactEvery ?? 1000);
    // A short busy timeout: the only contention is another process holding the directory.
    const db = openSqlite(file, { timeout: 100 });
    this.db = db;
    try {
      db.pragma("journal_mode = WAL");
      db.pragma(`synchronous = ${opts.durability === "process" ? "NORMAL" : "FULL"}`);
      // One server per data directory: take the write lock now and keep it.
      db.pragma("locking_mode = EXCLUSIVE");
      db.exec("BEGIN IMMEDIATE; COMMIT;");
      db.exec(`
        CREATE TABLE IF NOT EXISTS log (
          id INTEGER PRIMARY KEY,
          key TEXT NOT NULL,
          value TEXT,
          prev_revision INTEGER NOT NULL,
          deleted INTEGER NOT NULL
        );
        CREATE INDEX IF NOT EXISTS log_key ON log (key, id);
        CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
      `);
      const getMeta = db.prepare("SELECT value FROM meta WHERE name = ?").pluck();
      const setMeta = db.prepare("INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)");
      let compacted = getMeta.get("compacted") as number | undefined;
      if (compacted === undefined) {
        compacted = opts.initialRevision ?? 1;
        setMeta.run("compacted", compacted);
      }
      const maxId = (db.prepare("SELECT MAX(id) FROM log").pluck().get() as number | null) ?? 0;
      let revision = Math.max(compacted, maxId);

      const insert = db.prepare("INSERT INTO log (id, key, value, prev_revision, deleted) VALUES (?, ?, ?, ?, ?)");
      this.insertBatch = db.transaction((batch: readonly Staged[]) => {
        for (const s of batch) {
          insert.run(s.rev, s.key, s.object === null ? null : JSON.stringify(s.object), s.prevRev, s.object === null ? 1 : 0);
        }
      });
      const dropSuperseded = db.prepare(
        "DELETE FROM log WHERE id IN (SELECT prev_revision FROM log WHERE id > ? AND id <= ? AND prev_revision > 0)",
      );
      const dropDeletions = db.prepare("DELETE FROM log WHERE id > ? AND id <= ? AND deleted = 1");
      this.compactTo = db.transaction((from: number, to: number) => {
        dropSuperseded.run(from, to);
        dropDeletions.run(from, to);
        setMeta.run("compacted", to);
      });

      // Committed writes the database no longer holds (commitmarker.ts): refuse, or accept the loss.
      const marker = CommitMarker.open(dataDir, { sync: opts.durability !== "process" });
      this.marker = marker;
      const loss = marker.check(dataDir, revision);
      if (loss) {
        if (!opts.acceptDataLoss) throw loss;
        // Revisions must never be reused: what the database holds becomes the floor's base
        // versions and the revision continues after the last one committed (watches and
        // lists from before answer 410, and clients relist).
        const floor = Math.max(revision, loss.committedRevision ?? revision);
        this.compactTo(compacted, revision);
        setMeta.run("compacted", floor);
        compacted = floor;
        revision = floor;
        this.startupWarnings.push(`${loss.message} (accepted: continuing from revision ${revision})`);
      }

      this.memory = new MemoryStorage({ ...opts, initialRevision: compacted });
      const rows = db.prepare("SELECT id, key, value, deleted FROM log ORDER BY id").raw().iterate() as IterableIterator<
        [number, string, string | null, number]
      >;
      this.memory.restore(compacted, revision, {
        *[Symbol.iterator]() {
          for (const [id, key, value, deleted] of rows) {
            yield { key, rev: id, object: deleted || value === null ? null : deepFreeze(JSON.parse(value) as KubeObject) };
          }
        },
      });
      this.staged = this.memory.currentRevision();
      this.dbCompacted = compacted;
      marker.record(this.staged);
      // The in-memory window may be narrower than what the disk kept: bring the disk in line.
      this.compactDisk();
    } catch (err) {
      db.close();
      this.marker?.close();
      if (isBusyError(err)) throw new DataDirInUseError(dataDir);
      throw err;
    }
  }

  currentRevision(): number {
    return this.memory.currentRevision();
  }

  compactedRevision(): number {
    return this.memory.compactedRevision();
  }

  /** The compacted revision recorded on disk (≤ compactedRevision(); for tests). */
  diskCompactedRevision(): number {
    return this.dbCompacted;
  }

  /** Rows in the log table (for tests and metrics). */
  diskRows(): number {
    return this.db.prepare("SELECT COUNT(*) FROM log").pluck().get() as number;
  }

  retainedEvents(): number {
    return this.memory.retainedEvents();
  }

  watcherCount(): number {
    return this.memory.watcherCount();
  }

  get(key: string): Promise<StoredObject | undefined> {
    return this.memory.get(key);
  }

  list(prefix: string, req?: ListRequest): Promise<ListResult> {
    return this.memory.list(prefix, req);
  }

  watch(prefix: string, req: WatchRequest): StorageWatch {
    return this.memory.watch(prefix, req);
  }

  /** The newest state of a key, staged writes included. */
  private latest(key: string): PendingState | undefined {
    const p = this.pending.get(key);
    if (p) return p.object === null ? undefined : p;
    const c = this.memory.getSync(key);
    return c ? { rev: c.rev, object: c.object } : undefined;
  }

  async create(key: string, obj: KubeObject): Promise<StoredObject> {
    this.assertOpen();
    if (this.latest(key)) throw new KeyExistsError(key);
    const rev = this.staged + 1;
    return this.stage(key, rev, deepFreeze(withRevision(obj, rev)), 0);
  }

  async update(key: string, obj: KubeObject, expectedRev?: number): Promise<StoredObject> {
    this.assertOpen();
    const cur = this.latest(key);
    if (!cur || cur.object === null) throw new KeyNotFoundError(key);
    if (expectedRev !== undefined && expectedRev !== cur.rev) throw new RevisionMismatchError(key, expectedRev, cur.rev);
    const next = withRevision(obj, cur.rev);
    if (semanticEqual(next, cur.object)) {
      // A no-op: acknowledge only once the state it matches is durable.
      if (this.pending.has(key)) await this.batch?.promise;
      return { key, rev: cur.rev, object: cur.object };
    }
    const rev = this.staged + 1;
    next.metadata!.resourceVersion = String(rev);
    return this.stage(key, rev, deepFreeze(next), cur.rev);
  }

  async delete(key: string, expectedRev?: number): Promise<StoredObject> {
    this.assertOpen();
    const cur = this.latest(key);
    if (!cur) throw new KeyNotFoundError(key);
    if (expectedRev !== undefined && expectedRev !== cur.rev) throw new RevisionMismatchError(key, expectedRev, cur.rev);
    return this.stage(key, this.staged + 1, null, cur.rev);
  }

  private stage(key: string, rev: number, object: KubeObject | null, prevRev: number): Promise<StoredObject> {
    this.staged = rev;
    this.pending.set(key, { rev, object });
    if (!this.batch) {
      let resolve!: () => void;
      let reject!: (err: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      // Callers that never await the batch must not see an unhandled rejection.
      promise.catch(() => undefined);
      this.batch = { promise, resolve, reject };
    }
    const result = new Promise<StoredObject>((resolve, reject) => {
      this.queue.push({ key, rev, object, prevRev, resolve, reject });
    });
    if (!this.groupCommit) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return result;
  }

  /** Commits the staged writes in one transaction, then publishes them. Synchronous. */
  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    const done = this.batch;
    this.queue = [];
    this.batch = undefined;
    if (batch.length === 0) {
      done?.resolve();
      return;
    }
    try {
      this.insertBatch(batch);
    } catch (err) {
      // Nothing of the batch is durable: forget it, and reuse its revisions.
      this.pending.clear();
      this.staged = this.memory.currentRevision();
      for (const s of batch) s.reject(err);
      done?.reject(err);
      return;
    }
    this.pending.clear();
    try {
      // Before any write of the batch is acknowledged.
      this.marker?.record(batch[batch.length - 1].rev);
    } catch (err) {
      // The batch is committed: it stays acknowledged; a later start sees the database ahead.
      this.markerError = err;
    }
    for (const s of batch) {
      try {
        s.resolve(this.memory.applyCommitted(s.key, s.rev, s.object));
      } catch (err) {
        s.reject(err);
      }
    }
    done?.resolve();
    if (this.memory.compactedRevision() - this.dbCompacted >= this.compactEvery) this.compactDisk();
  }

  /** Deletes rows no longer needed below the in-memory floor. */
  private compactDisk(): void {
    const floor = Math.min(this.memory.compactedRevision(), this.memory.currentRevision());
    if (floor <= this.dbCompacted) return;
    this.compactTo(this.dbCompacted, floor);
    this.dbCompacted = floor;
  }

  compact(rev: number): void {
    this.memory.compact(rev);
    this.compactDisk();
  }

  /** Commits what is staged, ends the watches and closes the database. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.queue.length > 0) this.flush();
    this.closed = true;
    await this.memory.close();
    this.db.close();
    this.marker?.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("storage is closed");
  }
}
