/** The DER encoder lives in apimachinery/pki (shared with the runtime's webhook server); re-exported here. */
export * from "../../apimachinery/pki/asn1.js";
