import { describe, expect, it } from "vitest";
import { GoParseError, mapStringLiteral, parseGoFile, tagLookup } from "../../scripts/apigen/gosource.mjs";
import { commentTags, description } from "../../scripts/apigen/markers.mjs";

const SRC = `/*
Copyright header.
*/

// Package v1 is a test package.
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// +genclient
// +genclient:nonNamespaced

// Widget is a test kind.
// It has two lines.
type Widget struct {
	metav1.TypeMeta \`json:",inline"\`
	// Standard object's metadata.
	// +optional
	metav1.ObjectMeta \`json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"\`

	// ports lists ports.
	// +listType=map
	// +listMapKey=port
	// +listMapKey=protocol
	Ports []Port \`json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"port"\`
	Target *intstr.IntOrString \`json:"target"\` // trailing comments are not docs
	Labels map[string]string \`json:"labels,omitempty"\`
	A, B int32
	raw []byte
}

// Protocol is an enum.
// +enum
type Protocol string

const (
	// ProtocolTCP is TCP.
	ProtocolTCP Protocol = "TCP"
	ProtocolUDP Protocol = "UDP"
)

type Alias = Widget

var map_Widget = map[string]string{
	"":      "Widget is a test kind.",
	"ports": "ports lists \\"ports\\".",
}

func (Widget) SwaggerDoc() map[string]string {
	if true { return map_Widget }
	return nil
}
`;

describe("parseGoFile", () => {
  const f = parseGoFile(SRC, "widget.go");

  it("reads the package, imports and declarations", () => {
    expect(f.pkg).toBe("v1");
    expect(f.pkgDoc).toEqual(["Package v1 is a test package."]);
    expect([...f.imports]).toEqual([
      ["metav1", "k8s.io/apimachinery/pkg/apis/meta/v1"],
      ["intstr", "k8s.io/apimachinery/pkg/util/intstr"],
    ]);
    expect(f.types.map((t) => [t.name, t.alias])).toEqual([["Widget", false], ["Protocol", false], ["Alias", true]]);
    expect(f.funcs.map((x) => [x.name, x.receiver])).toEqual([["SwaggerDoc", "Widget"]]);
  });

  it("attaches the doc comment and the detached marker block above it (gengo's CommentLines and SecondClosestCommentLines)", () => {
    const w = f.types[0];
    expect(w.doc).toEqual(["Widget is a test kind.", "It has two lines."]);
    expect(w.doc2).toEqual(["+genclient", "+genclient:nonNamespaced"]);
  });

  it("reads struct fields: embedded, pointers, slices, maps, tags, docs", () => {
    const w = f.types[0];
    if (w.type.k !== "struct") throw new Error("not a struct");
    const fields = w.type.fields;
    expect(fields.map((x) => [x.names.join(","), x.embedded])).toEqual([
      ["", true], ["", true], ["Ports", false], ["Target", false], ["Labels", false], ["A,B", false], ["raw", false],
    ]);
    expect(fields[0].type).toEqual({ k: "qual", pkg: "metav1", name: "TypeMeta" });
    expect(fields[1].doc).toEqual(["Standard object's metadata.", "+optional"]);
    expect(fields[2].doc).toEqual(["ports lists ports.", "+listType=map", "+listMapKey=port", "+listMapKey=protocol"]);
    expect(fields[2].type).toEqual({ k: "slice", elem: { k: "ident", name: "Port" } });
    expect(fields[3].type).toEqual({ k: "ptr", elem: { k: "qual", pkg: "intstr", name: "IntOrString" } });
    expect(fields[3].doc).toEqual([]);
    expect(fields[4].type).toEqual({ k: "map", key: { k: "ident", name: "string" }, elem: { k: "ident", name: "string" } });
    expect(tagLookup(fields[2].tag, "json")).toBe("ports,omitempty");
    expect(tagLookup(fields[2].tag, "patchMergeKey")).toBe("port");
    expect(tagLookup(fields[5].tag, "json")).toBeUndefined();
  });

  it("reads typed constants with their docs", () => {
    expect(f.consts.map((c) => [c.name, c.type, c.value.map((t) => t.v).join(""), c.doc])).toEqual([
      ["ProtocolTCP", { k: "ident", name: "Protocol" }, '"TCP"', ["ProtocolTCP is TCP."]],
      ["ProtocolUDP", { k: "ident", name: "Protocol" }, '"UDP"', []],
    ]);
  });

  it("reads swagger-doc map literals with escapes", () => {
    const v = f.vars.find((x) => x.name === "map_Widget");
    expect(mapStringLiteral(v!.value)).toEqual({ "": "Widget is a test kind.", ports: 'ports lists "ports".' });
  });

  it("fails with file and line on Go outside the subset", () => {
    expect(() => parseGoFile("package x\n\ntype G[T any] struct{}\n", "g.go")).toThrow(GoParseError);
    expect(() => parseGoFile("package x\n\ntype G[T any] struct{}\n", "g.go")).toThrow(/^g\.go:3:/);
    expect(() => parseGoFile("package x\ntype C struct { Ch chan int }\n", "c.go")).toThrow(/c\.go:2: channel types/);
  });
});

describe("commentTags (gengo ExtractCommentTags)", () => {
  const table: [string[], Record<string, string[]>][] = [
    [["+optional"], { optional: [""] }],
    [["  +listType=map ", "+listMapKey=a", "+listMapKey=b"], { listType: ["map"], listMapKey: ["a", "b"] }],
    [["+k8s:required", "text +notamarker"], { "k8s:required": [""] }],
    [["+default=\"a=b\""], { default: ['"a=b"'] }],
  ];
  for (const [lines, want] of table) {
    it(JSON.stringify(lines), () => expect(Object.fromEntries(commentTags(lines))).toEqual(want));
  }
});

describe("description (kube-openapi generateDescription)", () => {
  const table: [string[], string][] = [
    [["Line one", "line two."], "Line one line two."],
    [["Para one.", "", "Para two.", "+optional"], "Para one.\n\nPara two."],
    [["Example:", "\tindented", "after"], "Example:\n\tindented\nafter"],
    [["TODO: ignore me", "kept", "---", "dropped"], "kept"],
    [["rw-rw----", "kept"], "rw-rw---- kept"],
  ];
  for (const [lines, want] of table) {
    it(JSON.stringify(lines), () => expect(description(lines)).toBe(want));
  }
});
