/**
 * Every text a model reads from `graphplan mcp` before it has called anything — the tools' titles and
 * descriptions, their arguments' descriptions, the server's instructions, the prompt — and the notes its
 * answers carry (pages, corrections). One place, so their length (benchmarks/mcp `tokens`: `tools/list` is
 * paid on every turn of a session) and their wording are seen together.
 */

/** Where the operators are described, as every plan-taking tool says it. */
const OPERATORS = "describe_operators (or resource graphplan://catalog) has each operator's params and an example";

export const TOOL_TEXT = {
  graph: {
    title: "Code graph",
    description:
      "Per file under the paths: imports, classes, functions and methods with line ranges. In pages; each names the next.",
  },
  locate: {
    title: "Resolve a locator",
    description:
      "The nodes a locator matches: file, lines, kind, preview; with several, the locator picking each; with none, near misses.",
  },
  verify_plan: {
    title: "Verify a plan",
    description: `Check a plan against the files, writing nothing: every error and warning with its fix. ${OPERATORS}.`,
  },
  apply_plan: {
    title: "Apply a plan",
    description: `Verify a plan, then run it all or nothing; answers the diff (undo_last_apply takes it back). ${OPERATORS}.`,
  },
  rename_symbol: {
    title: "Rename a symbol",
    description:
      "Scope-aware rename of a binding and exactly its references, in one file or, with importers, across files; refused where a name would resolve differently.",
  },
  compile_patch: {
    title: "Compile a patch to a plan",
    description:
      "A unified diff → the verified plan that reproduces it; nothing written. In pages of whole steps; each names the next.",
  },
  undo_last_apply: {
    title: "Undo the last apply",
    description:
      "Put back the files of this connection's last apply_plan or rename_symbol, all or nothing; refused if one changed since.",
  },
  describe_operators: {
    title: "Describe operators",
    description:
      "Plan operators and templates by name: each one's full description, params and example. No names: one line per operator.",
  },
} as const;

export const ARG_TEXT = {
  paths: "Files or directories relative to the root (default: all)",
  page: "Page number, from 1",
  maxChars: "Characters per page",
  locator: "A LOCATOR: {kind, name, file, parent?} or {type: sexp, file, query}",
  defineOperators: "Custom operators {define, params_schema, steps} the steps may name as op",
  scope: "LOCATOR of the function or class whose local or member is renamed; omit for a module-level name",
  importers: "Files importing the name or its module: rename across files (omit: one file)",
  diff: "A unified diff (git diff) with paths relative to the root",
  names: "Operator or template names (omit: all, one line each)",
} as const;

export const SERVER_INSTRUCTIONS =
  "GraphPlan edits code through syntax trees: `graph` shows files' symbols, `locate` resolves a locator, `verify_plan` checks a plan (nothing written), `apply_plan` runs it all or nothing and returns the diff, `compile_patch` turns a unified diff into a plan, `rename_symbol` renames scope-aware, `undo_last_apply` takes the last apply back, `describe_operators` says what each plan operator takes. Paths are relative to the server's root.";

export const PROMPT_TEXT = {
  name: "change_with_a_plan",
  title: "Make a change with a verified plan",
  description: "How to make a code change through GraphPlan: graph, locate, verify_plan, apply_plan",
  task: "The change to make",
} as const;

/** The prompt `change_with_a_plan`, for `task`. */
export const promptText = (task: string, readOnly: boolean): string =>
  [
    `Task: ${task}`,
    "",
    "Work through the GraphPlan tools:",
    "1. `graph` the files or directories involved to see their classes, functions and line ranges.",
    "2. `locate` each node you mean to edit; if several match, use the locator the answer gives for the one you want.",
    "3. Write the change as a plan (`describe_operators` gives each operator's params; resource graphplan://catalog lists them all) and `verify_plan` it; fix every error it names, as its fix says.",
    readOnly
      ? "4. This server is read-only: hand the verified plan back instead of applying it."
      : "4. `apply_plan` the plan: it runs all or nothing and answers with the diff. `undo_last_apply` takes it back if the diff is not what you meant.",
  ].join("\n");

export const RESOURCE_TEXT = {
  catalog: {
    title: "GraphPlan operator catalog",
    description:
      "Every plan operator (templates, surgery, fragments, primitives, file operations) with its params and an example, grouped by use case",
  },
  planSchema: {
    title: "Plan JSON Schema",
    description:
      "The full JSON Schema (draft 2020-12) of a plan, every operator's params in it; verify_plan and apply_plan take plans of it",
  },
} as const;

/** The one line an answer starts with when an argument came as a JSON string where an object or array belongs. */
export const parsedNote = (name: string): string => `note: \`${name}\` arrived as a JSON string; it was parsed`;

/** Where one page of `total` items (files, steps) is, and how to get the next: `steps 1–11 of 15, page 1 of 2; the rest: …`. */
export function pageLine(
  what: "files" | "steps",
  page: { first: number; last: number; total: number; page: number; pages?: number },
  next: string,
): string {
  const of = page.pages === undefined ? "" : ` of ${page.pages}`;
  const span = page.total === 0 ? `no ${what}` : `${what} ${page.first}–${page.last} of ${page.total}`;
  return page.last >= page.total
    ? `${span}, page ${page.page}${of}, the last`
    : `${span}, page ${page.page}${of}; the rest: ${next} and page: ${page.page + 1}`;
}

/** The answer to a page past the last: how many there are. */
export const noPage = (tool: "graph" | "compile_patch", page: number, of: string, pages: number): string =>
  `${tool}: there is no page ${page}: ${of} ${pages === 1 ? "is in 1 page" : `are in ${pages} pages`}; call with page 1${pages > 1 ? ` to ${pages}` : ""}`;
