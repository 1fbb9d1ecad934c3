/** kubeloop/testing: test doubles for controllers. */
export { FakeClock } from "../apimachinery/clock.js";
export { FakeClient, objectFieldSet } from "./fakeclient.js";
export type { Action, Reactor, ReactorResult, Verb, FakeClientOptions } from "./fakeclient.js";
export { ObjectTracker } from "./tracker.js";
export { AsyncQueue } from "./asyncqueue.js";
export { ControllerFixture, ControllerFixtureError, FIXTURE_START_TIME, type ExpectedAction, type ControllerFixtureOptions } from "./fixture.js";
export { eventually, settle, EventuallyTimeoutError, type EventuallyOptions, type SettleOptions } from "./eventually.js";
export { FakeRecorder } from "../events/broadcaster.js";
export { typedClients } from "../client/typed.js";
export { startTestEnv, readCRDFiles, readWebhookConfigurationFiles, TestEnvError, type TestEnv, type TestEnvOptions } from "./testenv.js";
export { rewriteClientConfig, type TestEnvWebhookOptions, type TestEnvWebhooks, type WebhookConfiguration } from "./testenvwebhooks.js";
