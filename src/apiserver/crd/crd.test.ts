import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { computeNamesStatus } from "./controller.js";
import { defaultCRD } from "./crdstrategy.js";
import { validateCRD, validateCRDUpdate } from "./crdvalidation.js";
import { findResults } from "./jsonpath.js";
import { customResourcePrinter } from "./printer.js";
import { resolveVersions } from "./crstrategy.js";

function crd(mut: (c: { metadata: Record<string, unknown>; spec: Record<string, unknown>; status: Record<string, unknown> }) => void = () => {}): KubeObject {
  const c = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "foos.example.com" } as Record<string, unknown>,
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural: "foos", kind: "Foo" },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } }],
    } as Record<string, unknown>,
    status: { storedVersions: ["v1"] } as Record<string, unknown>,
  };
  mut(c);
  defaultCRD(c as KubeObject);
  return c as KubeObject;
}

const errors = (o: KubeObject) => validateCRD(o).map((e) => e.toString());

describe("CRD validation (apiextensions validation.go)", () => {
  it("accepts a minimal CRD and defaults singular, listKind and conversion", () => {
    const c = crd();
    expect(errors(c)).toEqual([]);
    expect(c.spec).toMatchObject({ names: { singular: "foo", listKind: "FooList" }, conversion: { strategy: "None" } });
  });

  const cases: [string, Parameters<typeof crd>[0], string[]][] = [
    ["name must be <plural>.<group>", (c) => (c.metadata.name = "bars.example.com"), ['metadata.name: Invalid value: "bars.example.com": must be spec.names.plural+"."+spec.group']],
    [
      "group needs a dot",
      (c) => {
        c.spec.group = "example";
        c.metadata.name = "foos.example";
      },
      ['spec.group: Invalid value: "example": should be a domain with at least one dot'],
    ],
    ["scope", (c) => (c.spec.scope = "Global"), ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']],
    [
      "exactly one storage version",
      (c) => {
        c.spec.versions = [
          { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } },
          { name: "v2", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } },
        ];
      },
      [
        'spec.versions: Invalid value: [{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}},{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]: must have exactly one version marked as storage version',
        'status.storedVersions: Invalid value: ["v1"]: must have the storage version v2',
      ],
    ],
    [
      "schemas are required",
      (c) => (c.spec.versions = [{ name: "v1", served: true, storage: true }]),
      ["spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required"],
    ],
    [
      "names are DNS-1035 labels",
      (c) => ((c.spec.names as Record<string, unknown>).shortNames = ["Bad_Name"]),
      [
        `spec.names.shortNames[0]: Invalid value: "Bad_Name": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      ],
    ],
    [
      "scale paths",
      (c) => ((c.spec.versions as Record<string, unknown>[])[0].subresources = { scale: { specReplicasPath: ".status.x", statusReplicasPath: "status.y" } }),
      [
        'spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.x": should be a json path under .spec',
        'spec.versions[0].subresources.scale.statusReplicasPath: Invalid value: "status.y": must be a simple json path starting with .',
      ],
    ],
    [
      "printer columns",
      (c) => ((c.spec.versions as Record<string, unknown>[])[0].additionalPrinterColumns = [{ name: "X", type: "list", jsonPath: ".spec.x" }]),
      ['spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "list": must be one of boolean,date,integer,number,string'],
    ],
    [
      "protected groups need approval",
      (c) => {
        c.spec.group = "widgets.k8s.io";
        c.metadata.name = "foos.widgets.k8s.io";
      },
      [
        'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
      ],
    ],
  ];
  for (const [name, mut, want] of cases) {
    it(name, () => expect(errors(crd(mut))).toEqual(want));
  }

  it("keeps group and plural immutable, and kind once established", () => {
    const old = crd((c) => (c.status.conditions = [{ type: "Established", status: "True" }]));
    const next = crd((c) => {
      (c.spec.names as Record<string, unknown>).kind = "Bar";
      c.metadata.resourceVersion = "1";
    });
    (old.metadata as Record<string, unknown>).resourceVersion = "1";
    expect(validateCRDUpdate(next, old).map((e) => e.toString())).toEqual(['spec.names.kind: Invalid value: "Bar": field is immutable']);
  });
});

describe("naming and establishing", () => {
  it("accepts free names and establishes at once", () => {
    const status = computeNamesStatus(crd(), [], "2026-01-01T00:00:00Z");
    expect(status.acceptedNames).toEqual({ plural: "foos", singular: "foo", kind: "Foo", listKind: "FooList" });
    expect(status.conditions).toEqual([
      { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found", lastTransitionTime: "2026-01-01T00:00:00Z" },
      { type: "Established", status: "True", reason: "InitialNamesAccepted", message: "the initial names have been accepted", lastTransitionTime: "2026-01-01T00:00:00Z" },
    ]);
  });

  it("refuses names another CRD of the group has accepted", () => {
    const other = crd((c) => {
      c.metadata.name = "bars.example.com";
      c.status.acceptedNames = { plural: "bars", singular: "bar", kind: "Foo", listKind: "FooList", shortNames: ["f"] };
    });
    const mine = crd((c) => ((c.spec.names as Record<string, unknown>).shortNames = ["f"]));
    const status = computeNamesStatus(mine, [other, mine], "2026-01-01T00:00:00Z");
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ["NamesAccepted", "False", "ListKindConflict", '"FooList" is already in use'],
      ["Established", "False", "NotAccepted", "not all names are accepted"],
    ]);
    expect(status.acceptedNames).toMatchObject({ plural: "foos", singular: "foo" });
  });
});

describe("printer-column JSONPath", () => {
  const obj = {
    metadata: { name: "a", labels: { "app.kubernetes.io/name": "x" } },
    spec: { containers: [{ name: "c1", image: "i1" }, { name: "c2", image: "i2" }], n: 3 },
    status: { conditions: [{ type: "Synced", status: "False" }, { type: "Ready", status: "True" }] },
  };
  const cases: [string, unknown[]][] = [
    [".spec.n", [3]],
    ['.status.conditions[?(@.type=="Ready")].status', ["True"]],
    [".spec.containers[*].image", ["i1", "i2"]],
    [".spec.containers[-1].name", ["c2"]],
    [".spec.containers[0:1].name", ["c1"]],
    [".metadata.labels['app.kubernetes.io/name']", ["x"]],
    ["..image", ["i1", "i2"]],
    [".spec.missing", []],
    ["{.spec.n}", [3]],
  ];
  for (const [path, want] of cases) it(path, () => expect(findResults(obj, path)).toEqual(want));
});

describe("custom resource tables", () => {
  it("prints typed cells and ages", () => {
    const c = crd((x) => {
      (x.spec.versions as Record<string, unknown>[])[0].additionalPrinterColumns = [
        { name: "N", type: "integer", jsonPath: ".spec.n" },
        { name: "Obj", type: "string", jsonPath: ".spec.o", priority: 1 },
        { name: "Flag", type: "boolean", jsonPath: ".spec.missing" },
        { name: "Since", type: "date", jsonPath: ".status.since" },
      ];
    });
    const p = customResourcePrinter(resolveVersions(c)[0]);
    expect(p.columns.map((x) => [x.name, x.type, x.priority])).toEqual([
      ["Name", "string", 0],
      ["N", "integer", 0],
      ["Obj", "string", 1],
      ["Flag", "boolean", 0],
      ["Since", "date", 0],
    ]);
    const now = Date.parse("2026-01-01T01:00:00Z");
    const row = p.print({ metadata: { name: "a" }, spec: { n: 2.7, o: { b: 1, a: [1] } }, status: { since: "2026-01-01T00:55:00Z" } }, { now, wide: true });
    expect(row.cells).toEqual(["a", 2, '{"a":[1],"b":1}', null, "5m"]);
  });
});
