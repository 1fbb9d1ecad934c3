/** kubeloop/testing: test doubles for controllers. */
export { FakeClock } from "../apimachinery/clock.js";
