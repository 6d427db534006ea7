import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  // The short run clones and renames across a real project: 134 s once under the whole suite on 2 cores (a ceiling).
  test: { include: ["src/**/*.test.ts"], testTimeout: 300_000 },
});
