export { graphCommand } from "./commands/graph.js";
export { run } from "./run.js";
export { readSources, walk, PathNotFound, NoSourceFiles, SKIPPED_DIRECTORIES } from "./sources.js";
export type { Sources } from "./sources.js";
