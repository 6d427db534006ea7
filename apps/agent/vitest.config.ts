import { packageTests } from "../../vitest.shared.js";

// The CLI tests spawn `tsx src/cli.ts` (and `pnpm -s graphplan`): under the whole suite on 2 cores a cold
// start can take tens of seconds, so the ceiling is wide (a ceiling, not a timing assertion).
// eventsource-parser (of the MCP SDK's HTTP client) publishes its TypeScript under the `source` condition:
// vite transforms the SDK and it instead of handing node a .ts file.
export default packageTests({
  testTimeout: 120_000,
  // the viewer's page in a real browser (view.test.ts): expect.poll's 1 s default is too short under load
  expect: { poll: { timeout: 15_000 } },
  server: { deps: { inline: ["@modelcontextprotocol/sdk", "eventsource-parser"] } },
});
