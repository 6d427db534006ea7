import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  // Several tests spawn the `bench` CLI (a cold tsx start each) many times in a row; under the whole suite on 2 cores
  // one such test took 84 s. A ceiling, not a timing assertion.
  test: { include: ["src/**/*.test.ts"], testTimeout: 240_000 },
});
