import { packageTests } from "../../vitest.shared.js";

// eventsource-parser (of the MCP SDK's HTTP client) publishes its TypeScript under the `source` condition:
// vite transforms the SDK and it instead of handing node a .ts file.
export default packageTests({
  testTimeout: 60_000,
  server: { deps: { inline: ["@modelcontextprotocol/sdk", "eventsource-parser"] } },
});
