import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  // eventsource-parser (of the MCP SDK's HTTP client) publishes its TypeScript under the `source` condition:
  // vite transforms the SDK and it instead of handing node a .ts file.
  test: {
    include: ["src/**/*.test.ts"],
    testTimeout: 60_000,
    server: { deps: { inline: ["@modelcontextprotocol/sdk", "eventsource-parser"] } },
  },
});
