/**
 * The part of the apps/v1 Deployment defaults (SetDefaults_Deployment) the controller cannot act
 * without: spec.replicas (1) and the strategy (RollingUpdate, 25% surge, 25% unavailable). The API
 * server applies them on every write; the controller fills them into its working copy too, so that
 * objects which never went through an API server (a fake client, a hand-built fixture) behave as
 * they would in a cluster. progressDeadlineSeconds and revisionHistoryLimit are left as they are:
 * absent, they mean "no deadline" and "keep every revision", as upstream reads them.
 * Only absent fields are filled; nothing present is changed.
 */
import type { Deployment } from "../../apimachinery/api/apps/v1.js";
import { ROLLING_UPDATE_STRATEGY } from "./constants.js";

export function withDeploymentDefaults(d: Deployment): Deployment {
  const spec = (d.spec ??= { selector: {}, template: {} });
  spec.replicas ??= 1;
  spec.strategy ??= {};
  spec.strategy.type ||= ROLLING_UPDATE_STRATEGY;
  if (spec.strategy.type === ROLLING_UPDATE_STRATEGY) {
    spec.strategy.rollingUpdate ??= {};
    spec.strategy.rollingUpdate.maxUnavailable ??= "25%";
    spec.strategy.rollingUpdate.maxSurge ??= "25%";
  }
  return d;
}
