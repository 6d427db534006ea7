import { packageTests } from "../../vitest.shared.js";

// Several tests spawn the `bench` CLI (a cold tsx start each) many times in a row; under the whole suite on 2 cores
// one such test took 84 s. A ceiling, not a timing assertion.
export default packageTests({ testTimeout: 240_000 });
