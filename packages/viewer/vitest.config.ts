import { packageTests } from "../../vitest.shared.js";

// A page in a real browser under the whole suite on 2 cores can take seconds to render 30 rows: expect.poll's
// 1 s default failed a CI rehearsal. A ceiling, not a timing assertion.
export default packageTests({ testTimeout: 60_000, expect: { poll: { timeout: 15_000 } } });
