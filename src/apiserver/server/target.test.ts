import { describe, expect, it } from "vitest";
import { StatusError } from "../../apimachinery/errors.js";
import { parsePath } from "./requestinfo.js";
import { decodeSegment, parseRequestTarget, pathSegments } from "./target.js";

describe("parseRequestTarget", () => {
  it.each([
    ["/api/v1/pods?watch=1", "/api/v1/pods", "watch=1"],
    ["/api/v1/namespaces/default/configmaps/..", "/api/v1/namespaces/default/configmaps/..", ""],
    ["/api/v1/namespaces/default/configmaps/../secrets/x", "/api/v1/namespaces/default/configmaps/../secrets/x", ""],
    ["/api/v1/namespaces\\default", "/api/v1/namespaces\\default", ""],
    ["/a%2Fb?x=%zz", "/a%2Fb", "x=%zz"],
    ["http://example.com:6443/api?x", "/api", "x"],
    ["http://example.com", "/", ""],
    ["*", "*", ""],
  ])("%s → path %s, query %s (never normalised)", (raw, pathname, search) => {
    const t = parseRequestTarget(raw);
    expect(t.pathname).toBe(pathname);
    expect(t.search).toBe(search);
  });

  it("keeps malformed escapes in the query as they are (Go's Query() drops nothing it can read)", () => {
    expect(parseRequestTarget("/api?labelSelector=a%zz&b=c").searchParams.get("b")).toBe("c");
  });

  it("refuses a target that is neither a path nor an absolute URL", () => {
    expect(() => parseRequestTarget("api/v1")).toThrow(StatusError);
  });
});

describe("path segments", () => {
  it.each([
    ["a%2Fb", "a/b"],
    ["%2e%2E", ".."],
    ["caf%C3%A9", "café"],
    ["%25", "%"],
    ["plain", "plain"],
  ])("%s decodes to %s", (raw, decoded) => {
    expect(decodeSegment(raw)).toBe(decoded);
  });

  it.each(["%", "%z", "%zz", "a%2", "%g0"])("%s is a 400 with Go's message", (raw) => {
    try {
      decodeSegment(raw);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(StatusError);
      expect((err as StatusError).status).toMatchObject({ code: 400, reason: "BadRequest" });
      expect((err as StatusError).message).toMatch(/^invalid URL escape "%/);
    }
  });

  it("splits on raw slashes only: an encoded slash stays inside its segment", () => {
    expect(pathSegments("/api/v1/namespaces/a%2Fb/pods")).toEqual(["api", "v1", "namespaces", "a/b", "pods"]);
  });

  it("routes dot segments as names, never resolving them", () => {
    expect(parsePath("/api/v1/namespaces/default/configmaps/..")).toEqual({
      kind: "resource",
      info: { group: "", version: "v1", namespace: "default", resource: "configmaps", name: "..", watchPath: false },
    });
    // `configmaps/../secrets/x` is not `secrets/x`.
    expect(parsePath("/api/v1/namespaces/default/configmaps/../secrets/x")).toEqual({ kind: "notFound" });
  });
});
