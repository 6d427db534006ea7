/**
 * What every workspace package's tests share, written once: workspace packages resolve to their `src` through the
 * `source` export condition (Vitest 4 runs tests in Vite's SSR environment, which reads `ssr.resolve.conditions`, so
 * both are set), tests live in `src/**\/*.test.ts`, and hooks get the same ceiling as tests.
 *
 * The ceilings are ceilings, not timing assertions: CI runs every package's tests at once on 2 cores, where launching
 * a browser in a `beforeAll` took more than Vitest's 10 s default hook timeout (a CI run failed on it).
 */
import { defineConfig, type ViteUserConfig } from "vitest/config";

type TestOptions = NonNullable<ViteUserConfig["test"]>;

export const packageTests = (test: TestOptions = {}): ViteUserConfig => {
  const testTimeout = test.testTimeout ?? 30_000;
  return defineConfig({
    resolve: { conditions: ["source"] },
    ssr: { resolve: { conditions: ["source"] } },
    test: { include: ["src/**/*.test.ts"], ...test, testTimeout, hookTimeout: test.hookTimeout ?? testTimeout },
  });
};
