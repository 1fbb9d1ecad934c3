/** The X.509 issuer lives in apimachinery/pki (shared with the runtime's webhook server); re-exported here. */
export * from "../../apimachinery/pki/x509.js";
