import { packageTests } from "../../vitest.shared.js";

// The short run clones and renames across a real project: 134 s once under the whole suite on 2 cores (a ceiling).
export default packageTests({ testTimeout: 300_000 });
