/**
 * The commit marker: a record, outside the database, of the last revision the database
 * committed, so that a database that silently lost committed transactions is noticed when the
 * server starts instead of serving without them.
 *
 * SQLite recovers a WAL up to its last intact commit frame: a WAL truncated or damaged after a
 * crash (or a data directory restored from an older copy) opens without an error, just without
 * the later commits — writes that were acknowledged to clients. With the marker the server
 * refuses to start in that case (DataLossError, as etcd refuses on a WAL checksum mismatch),
 * unless told to accept the loss.
 *
 * File (`<dataDir>/kubeloop.commit`, 0600): two 32-byte slots, written alternately so that a
 * torn write can only damage the slot being written — the other still holds the previous record:
 *
 *   offset 0  magic "KLCM"
 *          4  format version (u32 LE, 1)
 *          8  sequence number (u64 LE; the newer valid slot wins)
 *         16  revision (u64 LE)
 *         24  reserved (u32, 0)
 *         28  CRC-32 of bytes 0..27 (u32 LE)
 *
 * Guarantee: after each group commit the marker is rewritten with the commit's revision; with
 * durability "full" it is fdatasync'ed before the writes are acknowledged, so every acknowledged
 * write is at or below the recorded revision, and a database found behind it has lost
 * acknowledged writes. With durability "process" it reaches the page cache only (like the WAL):
 * after a power loss either may be behind, and a database behind the marker is reported the
 * same way. A database ahead of the marker (a crash between the commit and the marker write) is
 * normal: the marker catches up.
 */
import { closeSync, fdatasyncSync, fstatSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { ensurePrivateFile } from "../privatefiles.js";

export const commitMarkerFileName = "kubeloop.commit";

const magic = Buffer.from("KLCM", "latin1");
const formatVersion = 1;
const slotSize = 32;

/** What the marker says: a revision, nothing yet (a new file), or damaged (no slot is valid). */
export type MarkerState = { kind: "recorded"; revision: number; sequence: bigint } | { kind: "missing" } | { kind: "damaged" };

function encodeSlot(sequence: bigint, revision: number): Buffer {
  const b = Buffer.alloc(slotSize);
  magic.copy(b, 0);
  b.writeUInt32LE(formatVersion, 4);
  b.writeBigUInt64LE(sequence, 8);
  b.writeBigUInt64LE(BigInt(revision), 16);
  b.writeUInt32LE(crc32(b.subarray(0, 28)), 28);
  return b;
}

function decodeSlot(b: Buffer): { sequence: bigint; revision: number } | undefined {
  if (b.length < slotSize || !b.subarray(0, 4).equals(magic) || b.readUInt32LE(4) !== formatVersion) return undefined;
  if (crc32(b.subarray(0, 28)) !== b.readUInt32LE(28)) return undefined;
  return { sequence: b.readBigUInt64LE(8), revision: Number(b.readBigUInt64LE(16)) };
}

/** Reads the state of a marker file's contents. */
export function readMarker(contents: Buffer): MarkerState {
  if (contents.length === 0) return { kind: "missing" };
  const slots = [decodeSlot(contents.subarray(0, slotSize)), decodeSlot(contents.subarray(slotSize, 2 * slotSize))];
  let best: { sequence: bigint; revision: number } | undefined;
  for (const s of slots) if (s && (!best || s.sequence > best.sequence)) best = s;
  return best ? { kind: "recorded", ...best } : { kind: "damaged" };
}

/** The database is behind the commit marker, or the marker is damaged: committed writes may be missing. */
export class DataLossError extends Error {
  constructor(
    readonly dataDir: string,
    /** The revision the database holds. */
    readonly databaseRevision: number,
    /** The revision recorded as committed; undefined when the marker is damaged. */
    readonly committedRevision: number | undefined,
  ) {
    const marker = join(dataDir, commitMarkerFileName);
    const what =
      committedRevision === undefined
        ? `the commit marker ${marker} is damaged (no intact record), so whether committed writes are missing cannot be told`
        : `the database ends at revision ${databaseRevision}, but revision ${committedRevision} was committed (recorded in ${marker}): ` +
          `${committedRevision - databaseRevision} committed revision(s) are missing — the write-ahead log was truncated or damaged, or the database was replaced by an older copy`;
    super(
      `data directory ${dataDir}: ${what}. Restore the data directory from a backup, or start with --accept-data-loss ` +
        `(persistence.acceptDataLoss) to continue from what the database holds; resource versions then continue after ` +
        `${committedRevision ?? databaseRevision}, and clients relist.`,
    );
    this.name = "DataLossError";
  }
}

/** The open marker file of a data directory. Not safe for two processes (the database's lock guards it). */
export class CommitMarker {
  private sequence: bigint;
  private closed = false;

  private constructor(
    private readonly fd: number,
    readonly state: MarkerState,
    private readonly sync: boolean,
  ) {
    this.sequence = state.kind === "recorded" ? state.sequence : 0n;
  }

  /** Opens (creating, 0600) the marker of `dataDir`; `sync`: fdatasync every record. */
  static open(dataDir: string, opts: { sync: boolean }): CommitMarker {
    const file = join(dataDir, commitMarkerFileName);
    ensurePrivateFile(file);
    const fd = openSync(file, "r+");
    try {
      const size = Math.min(fstatSync(fd).size, 2 * slotSize);
      const contents = Buffer.alloc(size);
      if (size > 0) readSync(fd, contents, 0, size, 0);
      return new CommitMarker(fd, readMarker(contents), opts.sync);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /**
   * The check at start: a DataLossError when the database (at `databaseRevision`) is behind
   * the recorded revision or the marker is damaged; undefined when all is well (or the marker
   * is new: there is nothing to compare with).
   */
  check(dataDir: string, databaseRevision: number): DataLossError | undefined {
    if (this.state.kind === "damaged") return new DataLossError(dataDir, databaseRevision, undefined);
    if (this.state.kind === "recorded" && this.state.revision > databaseRevision) return new DataLossError(dataDir, databaseRevision, this.state.revision);
    return undefined;
  }

  /** Records `revision` as committed (in the slot not holding the newest record). */
  record(revision: number): void {
    if (this.closed) return;
    this.sequence += 1n;
    const slot = Number(this.sequence % 2n);
    writeSync(this.fd, encodeSlot(this.sequence, revision), 0, slotSize, slot * slotSize);
    if (this.sync) fdatasyncSync(this.fd);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
