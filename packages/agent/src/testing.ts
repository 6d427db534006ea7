/**
 * @graphplan/agent/testing — test support for code that runs the agent: the shop project (a small
 * Python repository with a bug) committed into a fresh git repository, and the scripted replies a
 * deterministic run is made of (`bash`, `json`, `SUBMIT`), and `patchCommandOutput`, the answer to
 * SUBMIT's patch command in a command table (`TestSandbox`). For vitest: temporary directories are
 * removed after each test.
 */
export {
  SHOP,
  SHOP_REPLIES,
  shopRepo,
  git,
  read,
  status,
  tempDir,
  configWith,
  runOn,
  bash,
  json,
  SUBMIT,
} from "./fixtures/repo.js";
export type { RunOptions } from "./fixtures/repo.js";
export { patchCommandOutput } from "./submit.js";
