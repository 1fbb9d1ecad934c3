export {
  WebhookServer,
  webhookPath,
  webhookMetricNames,
  DEFAULT_WEBHOOK_PORT,
  CONVERSION_PATH,
  MAX_REQUEST_BYTES,
  type WebhookServerOptions,
  type WebhookTarget,
  type AdmissionWebhookOptions,
  type RegisteredAdmissionWebhook,
  type RawWebhookHandler,
} from "./server.js";
export { allowed, denied, runDefaulting, runValidating, type AdmissionRequest, type AdmissionDecision, type AdmissionOperation, type AdmissionResponse, type DefaultingHandler, type ValidatingHandler } from "./admission.js";
export { ConversionRegistry, type Converter, type ConversionResponseBody } from "./conversion.js";
export { generateServingCertificate, readServingCertificate, DEFAULT_CERT_DIR, DEFAULT_CERT_NAME, DEFAULT_KEY_NAME, type ServingCertificate, type GenerateOptions, type CertFiles } from "./certs.js";
export {
  installWebhookConfigurations,
  webhookConfigurations,
  defaultWebhookName,
  mutatingWebhookConfigurations,
  validatingWebhookConfigurations,
  type InstallWebhooksOptions,
  type InstalledWebhooks,
} from "./install.js";
