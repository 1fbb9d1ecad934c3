/**
 * The SQLite driver under SqliteStorage: Node's built-in `node:sqlite` where the Node version has
 * it unflagged (22.13+, 23.4+, and every later release), else the optional `better-sqlite3`
 * (Node 20). A user who only wants the client library installs neither: nothing here is loaded
 * until a data directory is opened.
 *
 * Both are exposed through the subset of better-sqlite3's synchronous API the storage uses
 * (`pragma`, `exec`, `prepare` with `pluck` / `raw` / `get` / `run` / `iterate`, `transaction`,
 * `close`), so the storage code is one code path. `KUBELOOP_SQLITE_DRIVER=node:sqlite|better-sqlite3`
 * forces one (tests, or to compare them).
 */
import { createRequire } from "node:module";

export type SqliteDriverName = "node:sqlite" | "better-sqlite3";
export const SQLITE_DRIVERS: readonly SqliteDriverName[] = ["node:sqlite", "better-sqlite3"];

export type SqlValue = number | string | bigint | Buffer | Uint8Array | null;

export interface SqliteStatement {
  run(...params: SqlValue[]): unknown;
  get(...params: SqlValue[]): unknown;
  iterate(...params: SqlValue[]): IterableIterator<unknown>;
  /** Rows become their first column's value. */
  pluck(): SqliteStatement;
  /** Rows become arrays of column values. */
  raw(): SqliteStatement;
}

export interface SqliteDatabase {
  pragma(source: string): unknown;
  exec(sql: string): unknown;
  prepare(sql: string): SqliteStatement;
  /** Wraps `fn` in BEGIN IMMEDIATE … COMMIT (ROLLBACK when it throws). */
  transaction<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void;
  close(): void;
}

export interface OpenOptions {
  /** Busy timeout in ms (waiting for another connection's lock). */
  timeout?: number;
  /** Default: KUBELOOP_SQLITE_DRIVER, else node:sqlite when available, else better-sqlite3. */
  driver?: SqliteDriverName;
}

export class SqliteDriverUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SqliteDriverUnavailableError";
  }
}

const require = createRequire(import.meta.url);

// --- node:sqlite ---------------------------------------------------------------------------------

interface NodeStatementSync {
  run(...params: SqlValue[]): unknown;
  get(...params: SqlValue[]): Record<string, unknown> | undefined;
  iterate?(...params: SqlValue[]): IterableIterator<Record<string, unknown>>;
  all(...params: SqlValue[]): Array<Record<string, unknown>>;
}
interface NodeDatabaseSync {
  exec(sql: string): void;
  prepare(sql: string): NodeStatementSync;
  close(): void;
}
type NodeSqliteModule = { DatabaseSync: new (path: string) => NodeDatabaseSync };

type RowShape = "object" | "pluck" | "raw";

class NodeStatement implements SqliteStatement {
  constructor(
    private readonly stmt: NodeStatementSync,
    private readonly shape: RowShape = "object",
  ) {}

  private shaped(row: Record<string, unknown> | undefined): unknown {
    if (row === undefined || this.shape === "object") return row;
    const values = Object.values(row);
    return this.shape === "pluck" ? values[0] : values;
  }

  run(...params: SqlValue[]): unknown {
    return this.stmt.run(...params);
  }
  get(...params: SqlValue[]): unknown {
    return this.shaped(this.stmt.get(...params));
  }
  *iterate(...params: SqlValue[]): IterableIterator<unknown> {
    // StatementSync#iterate is there from 22.13 / 23.4; all() everywhere.
    const rows = this.stmt.iterate ? this.stmt.iterate(...params) : this.stmt.all(...params);
    for (const row of rows) yield this.shaped(row);
  }
  pluck(): SqliteStatement {
    return new NodeStatement(this.stmt, "pluck");
  }
  raw(): SqliteStatement {
    return new NodeStatement(this.stmt, "raw");
  }
}

class NodeSqliteDatabase implements SqliteDatabase {
  constructor(private readonly db: NodeDatabaseSync) {}

  pragma(source: string): unknown {
    return this.db.prepare(`PRAGMA ${source}`).all();
  }
  exec(sql: string): unknown {
    this.db.exec(sql);
    return this;
  }
  prepare(sql: string): SqliteStatement {
    return new NodeStatement(this.db.prepare(sql));
  }
  transaction<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
    return (...args: A) => {
      this.db.exec("BEGIN IMMEDIATE");
      try {
        fn(...args);
      } catch (err) {
        this.db.exec("ROLLBACK");
        throw err;
      }
      this.db.exec("COMMIT");
    };
  }
  close(): void {
    this.db.close();
  }
}

// --- loading ---------------------------------------------------------------------------------------

function loadNodeSqlite(): NodeSqliteModule | Error {
  try {
    return require("node:sqlite") as NodeSqliteModule;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

type BetterSqlite3 = new (file: string, opts?: { timeout?: number }) => SqliteDatabase;

let betterSqlite3: BetterSqlite3 | Error | undefined;

/** better-sqlite3 loads its native addon on first use: open an in-memory database to know it works here. */
function loadBetterSqlite3(): BetterSqlite3 | Error {
  if (betterSqlite3 === undefined) {
    try {
      const B = require("better-sqlite3") as BetterSqlite3;
      new B(":memory:").close();
      betterSqlite3 = B;
    } catch (err) {
      // e.g. not installed, or built for another Node ABI ("Module did not self-register").
      betterSqlite3 = err instanceof Error ? err : new Error(String(err));
    }
  }
  return betterSqlite3;
}

/** The drivers that load in this process, in order of preference. */
export function availableSqliteDrivers(): SqliteDriverName[] {
  return SQLITE_DRIVERS.filter((d) => !((d === "node:sqlite" ? loadNodeSqlite() : loadBetterSqlite3()) instanceof Error));
}

function chosenDriver(opts: OpenOptions): SqliteDriverName | undefined {
  const forced = opts.driver ?? process.env.KUBELOOP_SQLITE_DRIVER;
  if (forced === undefined || forced === "") return undefined;
  if (!SQLITE_DRIVERS.includes(forced as SqliteDriverName)) {
    throw new SqliteDriverUnavailableError(`KUBELOOP_SQLITE_DRIVER="${forced}": want one of ${SQLITE_DRIVERS.join(", ")}`);
  }
  return forced as SqliteDriverName;
}

/** The driver openSqlite would use now. */
export function defaultSqliteDriver(opts: OpenOptions = {}): SqliteDriverName {
  const forced = chosenDriver(opts);
  if (forced) return forced;
  if (!(loadNodeSqlite() instanceof Error)) return "node:sqlite";
  return "better-sqlite3";
}

/** Opens (creating) a database file with the chosen driver. Throws SqliteDriverUnavailableError with what to do. */
export function openSqlite(file: string, opts: OpenOptions = {}): SqliteDatabase {
  const driver = defaultSqliteDriver(opts);
  const timeout = opts.timeout ?? 5000;
  if (driver === "node:sqlite") {
    const mod = loadNodeSqlite();
    if (mod instanceof Error) {
      throw new SqliteDriverUnavailableError(`node:sqlite is not available in Node.js ${process.version} (built in from 22.13 and 23.4): ${mod.message}`);
    }
    const db = new NodeSqliteDatabase(new mod.DatabaseSync(file));
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(timeout))}`);
    return db;
  }
  const Better = loadBetterSqlite3();
  if (Better instanceof Error) {
    throw new SqliteDriverUnavailableError(
      `persistence (--data-dir) needs SQLite: Node.js ${process.version} has no node:sqlite (it is built in from 22.13), ` +
        `and the optional dependency better-sqlite3 did not load (${Better.message.split("\n")[0]}); ` +
        "use Node.js 22.13 or newer, or install it: npm install better-sqlite3",
    );
  }
  return new Better(file, { timeout });
}

/** Whether a driver error means "the database is locked by another connection". */
export function isBusyError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const e = err as { code?: unknown; errcode?: unknown };
  // better-sqlite3: code SQLITE_BUSY; node:sqlite: errcode 5 (SQLITE_BUSY) and its extended codes.
  return e.code === "SQLITE_BUSY" || (typeof e.errcode === "number" && (e.errcode & 0xff) === 5);
}
