#!/usr/bin/env node
/**
 * Copies upstream's round-trip fixtures (one fully populated object per kind and version, as JSON
 * and as `k8s\0` protobuf: kubernetes/api testdata/HEAD) from shared/k8s-api-1.36 into
 * src/apiserver/protobuf/testdata/k8s-api-1.36/, with the license and a NOTICE, so the tests read
 * a committed copy and never the shared folder.
 *
 * Usage:  node scripts/protobuf/fixtures.mjs [--check] [--input DIR]
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const outDir = join(root, "src", "apiserver", "protobuf", "testdata", "k8s-api-1.36");
const license = join(root, "scripts", "apigen", "input", "kube-aggregator", "LICENSE");

const args = process.argv.slice(2);
const check = args.includes("--check");
const given = args.includes("--input") ? args[args.indexOf("--input") + 1] : (process.env.KUBELOOP_K8S_API ?? "");
const candidates = given ? [given] : [join(root, "..", "shared", "k8s-api-1.36"), join(root, "..", "..", "shared", "k8s-api-1.36")];
const k8s = candidates.find((c) => existsSync(join(c, "testdata", "HEAD")));
if (!k8s) throw new Error("k8s-api-1.36 not found: pass --input DIR");
const src = join(k8s, "testdata", "HEAD");

const notice = `Round-trip fixtures of the Kubernetes API (Kubernetes v1.36.3).

HEAD/ is kubernetes/api @ 3fde3c43 (tag v0.36.3), testdata/HEAD, unchanged: for each kind and
version <group>.<version>.<Kind>.json (Go's encoding/json of a fully populated object) and
<group>.<version>.<Kind>.pb (the same object in the \`k8s\\0\` protobuf envelope).
Copyright The Kubernetes Authors, licensed under the Apache License 2.0 (LICENSE beside this file).
Copied by scripts/protobuf/fixtures.mjs; do not edit.
`;

const wanted = readdirSync(src).filter((f) => f.endsWith(".json") || f.endsWith(".pb")).sort();
const headDir = join(outDir, "HEAD");
if (check) {
  const stale = [];
  for (const f of wanted) {
    const out = join(headDir, f);
    if (!existsSync(out) || !readFileSync(out).equals(readFileSync(join(src, f)))) stale.push(f);
  }
  if (existsSync(headDir)) for (const f of readdirSync(headDir)) if (!wanted.includes(f)) stale.push(`${f} (not upstream)`);
  if (!existsSync(join(outDir, "NOTICE")) || readFileSync(join(outDir, "NOTICE"), "utf8") !== notice) stale.push("NOTICE");
  if (stale.length) {
    console.error(`${relative(root, outDir)} is out of date (${stale.slice(0, 5).join(", ")}${stale.length > 5 ? ", ..." : ""}): run node scripts/protobuf/fixtures.mjs`);
    process.exit(1);
  }
  console.log(`${relative(root, outDir)} is up to date (${wanted.length} files)`);
} else {
  rmSync(headDir, { recursive: true, force: true });
  mkdirSync(headDir, { recursive: true });
  for (const f of wanted) copyFileSync(join(src, f), join(headDir, f));
  copyFileSync(license, join(outDir, "LICENSE"));
  writeFileSync(join(outDir, "NOTICE"), notice);
  console.log(`copied ${wanted.length} fixtures to ${relative(root, outDir)}`);
}
