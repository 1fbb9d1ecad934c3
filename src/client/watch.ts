/**
 * Watch decoding: a streaming JSON response → an async iterable of typed watch events.
 *
 * kube-apiserver writes one JSON object per event, newline-terminated, but a chunk boundary may
 * fall anywhere (inside a string, inside a multi-byte character) and a chunk may carry several
 * events. `JsonObjectFramer` therefore cuts the byte stream on balanced top-level braces outside
 * strings rather than on newlines — like client-go's json framer (a json.Decoder), it accepts
 * objects with or without separators between them.
 *
 * End of stream (client-go's StreamWatcher): the iterator returns when the server closes the
 * response, when the caller's signal aborts, or when the consumer stops iterating (which cancels
 * the request). A cut connection (reset, premature close, truncated final frame) also just ends
 * the stream, as client-go treats it as EOF; a frame that is not a valid event yields one ERROR
 * event with a 500 InternalError Status (cause "ClientWatchDecoding") and ends the stream.
 */
import type { Status } from "../apimachinery/api/meta/v1.js";
import type { TypedObject } from "../apimachinery/types.js";
import type { WatchEvent, WatchEventType, WatchStream } from "./interfaces.js";
import { isProbableEOF, type RestStream } from "./transport.js";

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Splits a byte stream into complete top-level JSON objects.
 *
 * State between chunks: `pending` holds the bytes of the object in progress (or nothing),
 * `depth` its brace nesting, `inString`/`escaped` the string scanner's state; bytes outside any
 * object (whitespace, newlines) are skipped.
 */
export class JsonObjectFramer {
  private pending: Buffer[] = [];
  private depth = 0;
  private inString = false;
  private escaped = false;

  /** Feeds one chunk; returns the objects it completed (as UTF-8 text). */
  push(chunk: Uint8Array): string[] {
    const out: string[] = [];
    this.scan(asBuffer(chunk), 0, false, (text) => out.push(text));
    return out;
  }

  /**
   * Feeds one chunk; returns the objects it completed, parsed (a frame that is not valid JSON
   * comes back as a `FrameSyntaxError`, in its place).
   *
   * The fast path, for what every API server writes (one object per line): a raw newline can only
   * stand between JSON tokens (a string cannot hold one), so when an object starts at `i` and a
   * newline follows, `JSON.parse` of the bytes up to it either succeeds — and then they are exactly
   * one object — or fails, and only then are they scanned byte by byte (pretty-printed or
   * concatenated objects). That leaves one native search and one parse per event, instead of a
   * JavaScript loop over every byte outside strings. An object that straddles chunks is scanned up
   * to the chunk's end, then parsed whole from its start once a newline follows.
   */
  pushParsed(chunk: Uint8Array): unknown[] {
    const buf = asBuffer(chunk);
    const out: unknown[] = [];
    const emit = (text: string) => out.push(parseFrame(text));
    let i = 0;
    if (this.depth > 0) {
      // An object begun in an earlier chunk. Where this chunk has a newline, the bytes from the
      // object's `{` up to it are that whole object if they parse (as on the fast path below);
      // otherwise the scanner goes on from its state, which nothing here changed.
      const nl = buf.indexOf(0x0a);
      const v = nl >= 0 ? parseObject(Buffer.concat([...this.pending, buf.subarray(0, nl)]), 0, undefined) : undefined;
      if (v !== undefined) {
        out.push(v);
        this.pending = [];
        this.depth = 0;
        this.inString = false;
        this.escaped = false;
        i = nl + 1;
      } else {
        i = this.scan(buf, 0, true, emit);
      }
    }
    const n = buf.length;
    while (i < n) {
      const b = buf[i];
      if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) {
        i++;
        continue;
      }
      if (b === OPEN) {
        const nl = buf.indexOf(0x0a, i);
        const v = nl >= 0 ? parseObject(buf, i, nl) : undefined;
        if (v !== undefined) {
          out.push(v);
          i = nl + 1;
          continue;
        }
      }
      i = this.scan(buf, i, true, emit);
    }
    return out;
  }

  /**
   * The byte scanner: from `from`, continues the object in progress (or starts one at the next
   * `{`) and hands each completed object's text to `emit`; with `once`, returns right after the
   * first object it completes, else at the end of the chunk. Returns where it stopped.
   *
   * String contents (most of the bytes of a Kubernetes object) are skipped with `indexOf` for
   * the closing quote rather than byte by byte; a quote preceded by an odd run of backslashes is
   * escaped. A backslash run cannot straddle chunks unseen: an unpaired backslash at a chunk's
   * end sets `escaped`, which consumes the next chunk's first byte.
   */
  private scan(buf: Buffer, from: number, once: boolean, emit: (text: string) => void): number {
    const n = buf.length;
    let start = this.depth > 0 ? from : -1;
    let i = from;
    while (i < n) {
      if (this.inString) {
        let at = i;
        if (this.escaped) {
          this.escaped = false;
          at = i + 1;
          if (at >= n) {
            i = n;
            break;
          }
        }
        let q = buf.indexOf(QUOTE, at);
        while (q >= 0) {
          let k = q - 1;
          while (k >= at && buf[k] === BACKSLASH) k--;
          if ((q - 1 - k) % 2 === 0) break;
          q = buf.indexOf(QUOTE, q + 1);
        }
        if (q < 0) {
          let k = n - 1;
          while (k >= at && buf[k] === BACKSLASH) k--;
          this.escaped = (n - 1 - k) % 2 === 1;
          i = n;
          break;
        }
        this.inString = false;
        i = q + 1;
        continue;
      }
      const b = buf[i];
      if (this.depth === 0) {
        if (b === OPEN) {
          start = i;
          this.depth = 1;
        } else if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) {
          throw new SyntaxError(`unexpected byte 0x${b.toString(16)} between watch events`);
        }
      } else if (b === QUOTE) {
        this.inString = true;
      } else if (b === OPEN) {
        this.depth++;
      } else if (b === CLOSE) {
        this.depth--;
        if (this.depth === 0) {
          const tail = buf.subarray(start, i + 1);
          emit(this.pending.length === 0 ? tail.toString("utf8") : Buffer.concat([...this.pending, tail]).toString("utf8"));
          this.pending = [];
          start = -1;
          if (once) return i + 1;
        }
      }
      i++;
    }
    if (this.depth > 0 && start >= 0) {
      // Copy: the transport may reuse the chunk's memory.
      this.pending.push(Buffer.from(buf.subarray(start)));
    }
    return n;
  }

  /** True when an object is partly received. */
  get partial(): boolean {
    return this.depth > 0;
  }
}

/** `JSON.parse` of `buf[from, to)` when that is one JSON object, else undefined. */
function parseObject(buf: Buffer, from: number, to: number | undefined): object | undefined {
  let v: unknown;
  try {
    v = JSON.parse(buf.toString("utf8", from, to));
  } catch {
    return undefined;
  }
  return typeof v === "object" && v !== null ? v : undefined;
}

function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** A frame that is not valid JSON (`JSON.parse`'s message). */
export class FrameSyntaxError {
  constructor(readonly message: string) {}
}

function parseFrame(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    return new FrameSyntaxError((e as Error).message);
  }
}

const EVENT_TYPES = new Set<WatchEventType>(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]);

function decodingError(message: string): WatchEvent<never> {
  const status: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `an error on the server (${JSON.stringify(message)}) has prevented the request from succeeding`,
    reason: "InternalError",
    details: {
      causes: [
        { reason: "UnexpectedServerResponse", message },
        { reason: "ClientWatchDecoding", message },
      ],
    },
    code: 500,
  };
  return { type: "ERROR", object: status };
}

/** Decodes one frame into an event, or explains why it is not one. */
export function decodeWatchEvent<T extends TypedObject>(frame: string): WatchEvent<T> | string {
  return watchEventOf<T>(parseFrame(frame));
}

/**
 * The event a parsed frame holds (`FrameSyntaxError` for one that did not parse), or why it is not
 * one. A valid frame is handed out as the event itself (it has exactly the event's shape), not
 * copied.
 */
function watchEventOf<T extends TypedObject>(doc: unknown): WatchEvent<T> | string {
  if (doc instanceof FrameSyntaxError) return `unable to decode an event from the watch stream: ${doc.message}`;
  if (typeof doc !== "object" || doc === null) return "unable to decode an event from the watch stream: not an object";
  const { type, object } = doc as { type?: unknown; object?: unknown };
  if (typeof type !== "string" || !EVENT_TYPES.has(type as WatchEventType)) {
    return `got invalid watch event type: ${String(type)}`;
  }
  if (typeof object !== "object" || object === null || Array.isArray(object)) {
    return "unable to decode an event from the watch stream: event has no object";
  }
  return doc as WatchEvent<T>;
}

/**
 * The key under which a stream from `watchStream` also offers its events a read at a time
 * (see `watchBatches`).
 */
export const WATCH_BATCHES: unique symbol = Symbol("kubeloop.watchBatches");

/** A watch stream that can also hand out the events of each read together. */
export interface BatchedWatchStream<T extends TypedObject> extends WatchStream<T> {
  [WATCH_BATCHES](): AsyncIterator<readonly WatchEvent<T>[]>;
}

/**
 * The events of `stream` grouped as they arrived: one array per read from the connection (every
 * event that read completed, in order). For a stream from `watchStream` this costs one promise per
 * read instead of one per event; any other stream gives arrays of one event. Iterate either the
 * stream or this, once; stopping early cancels the watch as stopping the stream does.
 */
export function watchBatches<T extends TypedObject>(stream: WatchStream<T>): AsyncIterable<readonly WatchEvent<T>[]> {
  const batched = (stream as Partial<BatchedWatchStream<T>>)[WATCH_BATCHES];
  if (batched) return { [Symbol.asyncIterator]: () => batched.call(stream) };
  return singles(stream);
}

async function* singles<T extends TypedObject>(stream: WatchStream<T>): AsyncGenerator<readonly WatchEvent<T>[]> {
  for await (const ev of stream) yield [ev];
}

/** Wraps a streaming response into a WatchStream. The stream can be iterated once. */
export function watchStream<T extends TypedObject>(res: RestStream): BatchedWatchStream<T> {
  let used = false;
  const claim = () => {
    if (used) throw new Error("a watch stream can be iterated only once");
    used = true;
  };
  return {
    [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
      claim();
      return events(iterate<T>(res))[Symbol.asyncIterator]();
    },
    [WATCH_BATCHES](): AsyncIterator<readonly WatchEvent<T>[]> {
      claim();
      return iterate<T>(res)[Symbol.asyncIterator]();
    },
  };
}

async function* events<T extends TypedObject>(batches: AsyncIterable<readonly WatchEvent<T>[]>): AsyncGenerator<WatchEvent<T>> {
  for await (const batch of batches) for (const ev of batch) yield ev;
}

/**
 * The decoder: one array of events per chunk that completes any. A frame that is not an event
 * ends the batch (the events before it stay) with a decoding ERROR event, and the stream.
 */
async function* iterate<T extends TypedObject>(res: RestStream): AsyncGenerator<readonly WatchEvent<T>[]> {
  const framer = new JsonObjectFramer();
  try {
    for await (const chunk of res.body) {
      let docs: unknown[];
      try {
        docs = framer.pushParsed(chunk);
      } catch (e) {
        yield [decodingError(`unable to decode an event from the watch stream: ${(e as Error).message}`)];
        return;
      }
      if (docs.length === 0) continue;
      for (let i = 0; i < docs.length; i++) {
        const ev = watchEventOf<T>(docs[i]);
        if (typeof ev === "string") {
          docs.length = i;
          docs.push(decodingError(ev));
          yield docs as WatchEvent<T>[];
          return;
        }
      }
      yield docs as WatchEvent<T>[];
    }
  } catch (err) {
    // Cancellation, a reset or a premature close end the stream quietly (client-go: EOF).
    if (res.cancelled || isProbableEOF(err)) return;
    throw err;
  } finally {
    res.cancel();
  }
}
