/** kubeloop/controllers/serviceaccount: the ServiceAccount controller, the token controller (legacy token secrets) and the root CA publisher (kube-root-ca.crt). */
export { ServiceAccountController, SERVICE_ACCOUNT_CONTROLLER_NAME, DEFAULT_SERVICE_ACCOUNT_WORKERS } from "./controller.js";
export type { ServiceAccountControllerOptions } from "./controller.js";
export {
  RootCACertPublisher,
  rootCAFromConfig,
  ROOT_CA_PUBLISHER_NAME,
  ROOT_CA_CONFIGMAP_NAME,
  ROOT_CA_KEY,
  ROOT_CA_DESCRIPTION,
  DESCRIPTION_ANNOTATION,
  DEFAULT_ROOT_CA_PUBLISHER_WORKERS,
} from "./rootcacertpublisher.js";
export type { RootCACertPublisherOptions } from "./rootcacertpublisher.js";
export {
  TokensController,
  isServiceAccountToken,
  TOKEN_CONTROLLER_NAME,
  DEFAULT_TOKEN_WORKERS,
  SECRET_TYPE_SERVICE_ACCOUNT_TOKEN,
  SERVICE_ACCOUNT_NAME_KEY,
  SERVICE_ACCOUNT_UID_KEY,
  SERVICE_ACCOUNT_TOKEN_KEY,
  SERVICE_ACCOUNT_ROOT_CA_KEY,
  SERVICE_ACCOUNT_NAMESPACE_KEY,
} from "./tokens.js";
export type { TokensControllerOptions, TokensRequest, LegacyTokenGenerator, LegacyTokenSubject } from "./tokens.js";
