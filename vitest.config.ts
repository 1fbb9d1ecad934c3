import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (p: string) => fileURLToPath(new URL(`./src/${p}`, import.meta.url));

export default defineConfig({
  // The examples import the package by name, as users do; inside the repository it is the source.
  resolve: {
    alias: [
      { find: /^kubeloop$/, replacement: src("index.ts") },
      { find: /^kubeloop\/(testing|apiserver|controlplane)$/, replacement: src("$1/index.ts") },
      { find: /^kubeloop\/controllers\/(\w+)$/, replacement: src("controllers/$1/index.ts") },
    ],
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
