/**
 * The request instrumentation around the server's request listener (kube-apiserver's
 * WithRequestInfo + InstrumentRouteFunc + max-in-flight watermark, at the outermost layer), and
 * the /metrics endpoint.
 *
 * For every request: in-flight counting (or, for long-running requests, the
 * apiserver_longrunning_requests gauge) from arrival until the response closes; for resource
 * requests, apiserver_request_total and apiserver_request_duration_seconds when it closes, with
 * the status code sent. GET /metrics is answered here after the same authentication and
 * authorization as every request (`authorize`: nonResourceURL get /metrics, which
 * system:masters and the system:monitoring group have).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { StatusError } from "../../apimachinery/errors.js";
import { isMutatingMethod, type ApiServerMetrics } from "./metrics.js";
import { RequestLabelsCache } from "./requestlabels.js";

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

export interface InstrumentOptions {
  /** Authenticates and authorizes a /metrics request (throws a 401/403 StatusError); absent: open. */
  authorize?: (req: IncomingMessage, url: URL) => void | Promise<void>;
  /** Writes an error as a Status (the server's writeError). */
  writeError: (res: ServerResponse, err: unknown) => void;
}

function isMetricsPath(target: string): boolean {
  return target === "/metrics" || target.startsWith("/metrics?") || target === "/metrics/";
}

async function serveMetrics(m: ApiServerMetrics, opts: InstrumentOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (opts.authorize) await opts.authorize(req, url);
    if (req.method !== "GET" && req.method !== "HEAD") {
      req.resume();
      throw new StatusError({ message: "the server does not allow this method on the requested resource", reason: "MethodNotAllowed", details: {}, code: 405 });
    }
    const { contentType, body } = await m.expose();
    const data = Buffer.from(body);
    res.writeHead(200, { "Content-Type": contentType, "Content-Length": data.length });
    res.end(req.method === "HEAD" ? undefined : data);
  } catch (err) {
    opts.writeError(res, err);
  }
}

/** Request lines whose labels are kept: a bound on memory, not a tuning knob. */
const maxKeptLabels = 4096;

/** Wraps `handler` with the request metrics and the /metrics endpoint. */
export function instrumentRequests(m: ApiServerMetrics, handler: RequestListener, opts: InstrumentOptions): RequestListener {
  // Labels objects are kept per request line, so metrics.ts resolves their series once.
  const labelsOf = new RequestLabelsCache(maxKeptLabels);
  return (req, res) => {
    const target = req.url ?? "/";
    if (isMetricsPath(target)) {
      void serveMetrics(m, opts, req, res);
      return;
    }
    const start = performance.now();
    const labels = labelsOf.labels(req.method, target, req.headers["content-type"]);
    if (labels?.longRunning) {
      const gauge = m.longRunningGauge(labels);
      gauge.inc();
      res.once("close", () => {
        gauge.dec();
        m.observeRequest(labels, res.statusCode, (performance.now() - start) / 1000);
      });
    } else {
      const mutating = isMutatingMethod(req.method);
      m.inFlight.enter(mutating);
      res.once("close", () => {
        m.inFlight.leave(mutating);
        if (labels) m.observeRequest(labels, res.statusCode, (performance.now() - start) / 1000);
      });
    }
    handler(req, res);
  };
}
