import { defineConfig } from "vitest/config";

// Vitest 4 runs tests in Vite's SSR environment, which reads `ssr.resolve.conditions`: both are needed for workspace
// packages to resolve to their `src` through the `source` export condition.
export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: { include: ["src/**/*.test.ts"] },
});
