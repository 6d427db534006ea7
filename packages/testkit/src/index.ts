export { cpythonParse, cpythonScopes } from "./cpython.js";
export type { CpythonScopes } from "./cpython.js";
export { javacParse } from "./java.js";
export { goParse, gofmt } from "./go.js";
export { SAMPLES_DIR, SAMPLE_FILES, sample } from "./samples.js";
export { tempDir } from "./temp.js";
export { bareClone, git, makeRepo } from "./git-repo.js";
export type { Repo } from "./git-repo.js";
