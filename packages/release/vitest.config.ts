import { defineConfig } from "vitest/config";

export default defineConfig({
  // The rehearsal installs from a registry and runs the installed command-line tools: minutes, not
  // seconds, under the whole suite on 2 cores (a ceiling, not a timing assertion).
  test: { include: ["src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 900_000 },
});
