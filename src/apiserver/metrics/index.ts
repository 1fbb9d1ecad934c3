/** The API server's own metrics (kube-apiserver's names and labels) and their instrumentation. */
export { ApiServerMetrics, InFlightRequests, equalApartFromVolatile, isMutatingMethod, requestDurationBuckets } from "./metrics.js";
export { instrumentRequests, type InstrumentOptions, type RequestListener } from "./instrument.js";
export { requestLabels, type RequestLabels } from "./requestlabels.js";
