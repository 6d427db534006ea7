import { packageTests } from "../../vitest.shared.js";

export default packageTests({ testTimeout: 30_000 });
