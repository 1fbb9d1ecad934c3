/**
 * Authorizers: the RBAC authorizer (allow when any applicable rule allows; otherwise no opinion,
 * with the resolution errors as the reason) and the decision shape reviews report.
 */
import type { Attributes } from "./attributes.js";
import { describeSource, type RuleResolver } from "./resolver.js";
import { ruleAllows } from "./rules.js";

export interface Decision {
  allowed: boolean;
  /** Set when an authorizer explicitly denied (RBAC never does). */
  denied?: boolean;
  reason: string;
}

export interface Authorizer {
  authorize(attrs: Attributes): Decision;
}

export class RBACAuthorizer implements Authorizer {
  constructor(private readonly resolver: RuleResolver) {}

  authorize(attrs: Attributes): Decision {
    let reason = "";
    let allowed = false;
    const errors: string[] = [];
    this.resolver.visitRulesFor(attrs.user, attrs.namespace, (src, rule, err) => {
      if (rule && src && ruleAllows(attrs, rule)) {
        allowed = true;
        reason = `RBAC: allowed by ${describeSource(src)}`;
        return false;
      }
      if (err) errors.push(err.message);
      return true;
    });
    if (allowed) return { allowed, reason };
    if (errors.length === 0) return { allowed: false, reason: "" };
    // utilerrors.NewAggregate: one error prints alone, several as "[a, b]".
    return { allowed: false, reason: `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`}` };
  }
}
