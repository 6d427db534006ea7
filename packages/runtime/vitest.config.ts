import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  // Containers left by an interrupted earlier run are removed first (see the fixture).
  test: { include: ["src/**/*.test.ts"], testTimeout: 30_000, globalSetup: ["src/fixtures/stale-containers.ts"] },
});
