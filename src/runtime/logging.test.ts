import { describe, expect, it } from "vitest";
import { InvalidLogLevelError, captureLogger, createLogger, formatPrettyLine, parseLogLevel, silentLogger } from "./logging.js";

function sink(isTTY = false) {
  const lines: string[] = [];
  return { lines, dest: { isTTY, write: (s: string) => lines.push(s) } };
}

describe("parseLogLevel", () => {
  it.each([
    ["info", "info"],
    ["DEBUG", "debug"],
    ["silent", "silent"],
    ["0", "info"],
    ["2", "debug"],
    ["4", "debug"],
    ["5", "trace"],
    ["10", "trace"],
  ])("%s → %s", (input, want) => {
    expect(parseLogLevel(input)).toBe(want);
  });
  it("rejects nonsense", () => {
    expect(() => parseLogLevel("loud")).toThrow(InvalidLogLevelError);
    expect(() => createLogger({ level: "-1" })).toThrow(InvalidLogLevelError);
  });
});

describe("createLogger", () => {
  it("writes JSON lines with structured keys and serialized errors by default", () => {
    const { lines, dest } = sink();
    const log = createLogger({ destination: dest, name: "kubeloop" });
    log.child({ controller: "deployment" }).error({ object: "ns/web", reconcileID: "r1", err: new Error("boom") }, "Reconciler error");
    expect(lines).toHaveLength(1);
    const rec = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(rec).toMatchObject({ level: 50, name: "kubeloop", controller: "deployment", object: "ns/web", reconcileID: "r1", msg: "Reconciler error" });
    expect(rec.err).toMatchObject({ type: "Error", message: "boom" });
  });

  it("honours the level", () => {
    const { lines, dest } = sink();
    const log = createLogger({ destination: dest, level: "warn" });
    log.info("hidden");
    log.warn("shown");
    expect(lines).toHaveLength(1);
  });

  it("is readable on a TTY (or when pretty is set)", () => {
    const { lines, dest } = sink(true);
    const log = createLogger({ destination: dest, colors: false, name: "mgr" });
    log.info({ controller: "rs", object: "ns/a b", workers: 2 }, "Starting workers");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}\[mgr\] Starting workers controller=rs object="ns\/a b" workers=2\n$/);
    const plain = sink(false);
    createLogger({ destination: plain.dest, pretty: true, colors: true }).warn("careful");
    expect(plain.lines[0]).toContain("\u001b[33mWARN ");
    expect(plain.lines[0]).toContain("careful");
  });
});

describe("formatPrettyLine", () => {
  it("prints error stacks under the line and passes non-JSON through", () => {
    const err = new Error("bad");
    const line = JSON.stringify({ level: 50, time: Date.UTC(2026, 0, 1, 12, 0, 0, 5), msg: "failed", err: { message: err.message, stack: err.stack } });
    const out = formatPrettyLine(line);
    expect(out.startsWith("12:00:00.005 ERROR failed err=bad\n")).toBe(true);
    expect(out).toContain("at ");
    expect(formatPrettyLine("not json")).toBe("not json\n");
  });
});

describe("test loggers", () => {
  it("captureLogger keeps parsed records synchronously; silentLogger drops everything", () => {
    const { logger, records } = captureLogger("debug");
    logger.debug({ a: 1 }, "x");
    logger.trace("dropped");
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ level: 20, a: 1, msg: "x" });
    expect(silentLogger().isLevelEnabled("error")).toBe(false);
  });
});
