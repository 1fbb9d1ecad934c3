import { describe, expect, it } from "vitest";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { EXIT_CODE_ANNOTATION } from "./programs.js";
import { simulatedContainerLog } from "./logs.js";

const t0 = Date.UTC(2026, 0, 1);
const pod = (command: string[], o: { env?: Array<{ name: string; value: string }>; annotations?: Record<string, string> } = {}): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default", ...(o.annotations ? { annotations: o.annotations } : {}) },
  spec: { containers: [{ name: "c", image: "busybox", command, ...(o.env ? { env: o.env } : {}) }] },
});

describe("simulatedContainerLog", () => {
  it.each<[string, string[], { env?: Array<{ name: string; value: string }>; annotations?: Record<string, string> }, boolean, number, Array<[number, string]>]>([
    ["echo", ["sh", "-c", "echo hello"], {}, true, 0, [[0, "hello"]]],
    ["lines after sleeps carry their time", ["sh", "-c", "echo one; sleep 2; echo two"], {}, true, 0, [[0, "one"], [2000, "two"]]],
    ["a running container has written only what is due", ["sh", "-c", "echo one; sleep 2; echo two"], {}, false, 1000, [[0, "one"]]],
    ["$VAR and HOSTNAME", ["sh", "-c", 'echo "hi $NAME from $HOSTNAME$MISSING"'], { env: [{ name: "NAME", value: "bob" }] }, true, 0, [[0, "hi bob from p"]]],
    ["printf", ["sh", "-c", "printf 'a %s\\nb\\n' x"], {}, true, 0, [[0, "a x"], [0, "b"]]],
    ["redirected output is not logged", ["sh", "-c", "echo hidden > /dev/null; echo shown"], {}, true, 0, [[0, "shown"]]],
    ["echo, then a command the simulator does not model", ["sh", "-c", "echo ready; sleep infinity"], {}, false, 60_000, [[0, "ready"]]],
    ["no command: nothing", [], {}, false, 5000, []],
    ["annotations replace the program", ["sh", "-c", "echo hello"], { annotations: { [EXIT_CODE_ANNOTATION]: "1" } }, true, 0, []],
    ["a plain echo command", ["echo", "plain", "words"], {}, true, 0, [[0, "plain words"]]],
  ])("%s", (_n, command, o, finished, elapsed, want) => {
    const run = finished ? { startedAtMs: t0, finishedAtMs: t0 + 1000 } : { startedAtMs: t0 };
    expect(simulatedContainerLog(pod(command, o) as unknown as KubeObject, "c", run, t0 + elapsed).map((l) => [l.timeMs - t0, l.text])).toEqual(want);
  });
});
