/** kubeloop/testing: test doubles for controllers. */
export { FakeClock } from "../apimachinery/clock.js";
export { FakeClient, objectFieldSet } from "./fakeclient.js";
export type { Action, Reactor, ReactorResult, Verb, FakeClientOptions } from "./fakeclient.js";
export { ObjectTracker } from "./tracker.js";
export { AsyncQueue } from "./asyncqueue.js";
export { ControllerFixture, ControllerFixtureError, type ExpectedAction } from "./fixture.js";
export { FakeRecorder } from "../events/broadcaster.js";
export { typedClients } from "../client/typed.js";
