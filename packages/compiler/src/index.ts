/**
 * @graphplan/compiler — the patch → plan compiler: from the files a unified diff applies to and the
 * diff, the structural plan a model would write (locators, templates, fragments; a legacy text step
 * only where nothing node-addressed reproduces the change), each step checked by running it.
 */
export { compile, compilePatch, CompileError, isCompilerError, isTextStep } from "./compile.js";
export type { CompiledPlan, Tier } from "./compile.js";
export { parseUnifiedDiff, postImages, preImagePaths, changedBytes, gitDiff, PatchError } from "./patch.js";
export type { ModeChange } from "./patch.js";
export type { FilePatch } from "./patch.js";
