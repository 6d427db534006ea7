import { packageTests } from "../../vitest.shared.js";

// Containers left by an interrupted earlier run are removed first (see the fixture).
export default packageTests({ testTimeout: 30_000, globalSetup: ["src/fixtures/stale-containers.ts"] });
