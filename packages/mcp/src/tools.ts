/**
 * The MCP tools of `graphplan mcp`: each one's arguments (one zod schema, parsed at the edge), the JSON
 * Schema clients see (derived: the plan's from @graphplan/catalog `planJsonSchema`, the locator's from
 * @graphplan/locators, rename's from the catalog's `rename_identifier`/`rename_across_files` params) and
 * what a call answers. The engine (`engine.ts`) does the work; `server.ts` speaks the protocol.
 */
import * as Predicate from "effect/Predicate";
import { z } from "zod";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { catalogEntry, planJsonSchema } from "@graphplan/catalog";
import { formatIssues, isLocatorError, locatorJsonSchema } from "@graphplan/locators";
import { formatResult } from "@graphplan/verifier";
import { NothingToUndo, type AppliedChange, type Engine } from "./engine.js";

/** The longest text a tool answers with; longer text is cut with a note saying how to see the rest. */
export const MAX_TEXT = 40_000;

/** What one connection remembers: its applies, newest last (undo_last_apply takes them back in turn). */
export interface CallSession {
  readonly applies: AppliedChange[];
}

export interface ToolContext {
  readonly engine: Engine;
  readonly session: CallSession;
  readonly signal: AbortSignal;
}

interface ToolDef<A extends z.ZodType> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly args: A;
  /** Property → the JSON Schema it shows instead of the one zod renders (the plan, a locator). */
  readonly shown?: Readonly<Record<string, Record<string, unknown>>>;
  /** Fills in what the arguments leave implicit, before they are parsed. */
  readonly prepare?: (args: Record<string, unknown>) => Record<string, unknown>;
  /** Writes files: left out under `--read-only`. */
  readonly writes: boolean;
  readonly run: (args: z.output<A>, context: ToolContext) => Promise<CallToolResult>;
}

const text = (body: string, extra: Omit<CallToolResult, "content"> = {}): CallToolResult => ({
  content: [{ type: "text", text: body }],
  ...extra,
});

/** `body`, cut at {@link MAX_TEXT} characters with `how` (how to get the rest) said at the cut. */
export function capped(body: string, how: string): string {
  if (body.length <= MAX_TEXT) return body;
  return `${body.slice(0, MAX_TEXT)}\n… cut at ${MAX_TEXT} of ${body.length} characters: ${how}`;
}

const PlanArg = z
  .unknown()
  .describe(
    "The plan: a JSON array of steps (or {define_operators, plan}), as the operator catalog (resource graphplan://catalog) describes",
  );

const define = <A extends z.ZodType>(def: ToolDef<A>): ToolDef<A> => def;

const renameOne = catalogEntry("op", "rename_identifier")!.params as z.ZodObject;
const renameAcross = catalogEntry("op", "rename_across_files")!.params as z.ZodObject;

/** `rename_symbol`'s arguments: `rename_identifier`'s params, and `rename_across_files`'s importers (given: across files). */
const RenameArgs = z.strictObject({
  ...renameOne.shape,
  importers: (renameAcross.shape["importers"] as z.ZodType)
    .optional()
    .describe(
      "Rename across files (rename_across_files): the files that import the name or its module; omit to rename in one file (rename_identifier)",
    ),
});

function applyAnswer(outcome: Awaited<ReturnType<Engine["apply"]>>, session: CallSession): CallToolResult {
  if (outcome.kind === "rejected") {
    return text(
      capped(
        `${formatResult(outcome.verification)}no file was changed\n`,
        "verify_plan lists every issue in structuredContent.issues",
      ),
      {
        isError: true,
        structuredContent: { applied: false, verification: outcome.verification },
      },
    );
  }
  if (outcome.kind === "failed") {
    return text(`step ${outcome.step} (${outcome.op}) failed: ${outcome.message}\nno file was changed\n`, {
      isError: true,
      structuredContent: {
        applied: false,
        failure: { step: outcome.step, op: outcome.op, cause: outcome.cause, message: outcome.message },
      },
    });
  }
  const { change, verification } = outcome;
  session.applies.push(change);
  const recovered = outcome.recovered.interrupted
    ? "recovered an interrupted apply first (its files are as they were before it)\n"
    : "";
  const changed =
    change.written.length + change.deleted.length === 0
      ? "no file changed\n"
      : `changed ${[...change.written, ...change.deleted].join(", ")}\n`;
  const warnings = verification.warnings.map((w) => `warning: ${w}\n`).join("");
  return text(
    capped(
      `${recovered}${warnings}${changed}${change.diff}`,
      "the files are written; `git diff` shows the whole change",
    ),
    {
      structuredContent: {
        applied: true,
        written: change.written,
        created: change.created,
        deleted: change.deleted,
        diff: change.diff,
        warnings: verification.warnings,
      },
    },
  );
}

export const TOOLS = [
  define({
    name: "graph",
    title: "Code graph",
    description:
      "The code graph of files or directories under the root: per file its imports, classes, functions and methods with their line ranges. Large trees come in pages: when the answer ends with a next offset, call again with that offset.",
    args: z.strictObject({
      paths: z
        .array(z.string().min(1))
        .min(1)
        .default(["."])
        .describe("Files or directories, relative to the root (default: the whole root)"),
      offset: z
        .number()
        .int()
        .nonnegative()
        .default(0)
        .describe("Index of the first file of the page (files in path order)"),
      max_chars: z
        .number()
        .int()
        .min(1000)
        .max(MAX_TEXT)
        .default(30_000)
        .describe("Size of a page's view in characters"),
    }),
    writes: false,
    run: async (args, { engine }) => {
      const page = await engine.graph(args.paths, args.offset, args.max_chars);
      const shown = page.nextOffset === null ? page.files - page.offset : page.nextOffset - page.offset;
      const note =
        page.nextOffset === null
          ? `\n(files ${Math.min(page.offset + 1, page.files)}–${page.files} of ${page.files})`
          : `\n(files ${page.offset + 1}–${page.nextOffset} of ${page.files}; the rest: call graph with offset ${page.nextOffset})`;
      return text(`${page.view}${note}`, {
        structuredContent: { files: page.files, offset: page.offset, shown, next_offset: page.nextOffset },
      });
    },
  }),
  define({
    name: "locate",
    title: "Resolve a locator",
    description:
      "Resolve a locator (a node by kind, name and parent, or a tree-sitter query) to the nodes it matches: file, lines, kind and a preview. When several match, each comes with the locator that picks it; when none, the nodes it might have meant.",
    args: z.strictObject({ locator: z.unknown().describe("The locator") }),
    shown: { locator: locatorJsonSchema() },
    writes: false,
    run: async (args, { engine }) => {
      const nodes = await engine.locate(args.locator);
      const head =
        nodes.length === 1 ? "1 node matches" : `${nodes.length} nodes match; each one's locator picks it alone`;
      const body = nodes
        .map(
          (n, i) =>
            `${nodes.length > 1 ? `[${i}] ` : ""}${n.file}:${n.startLine}-${n.endLine} ${n.kind}${n.locator ? `\n  locator: ${JSON.stringify(n.locator)}` : ""}\n${indent(n.preview)}`,
        )
        .join("\n");
      return text(capped(`${head}\n${body}`, "narrow the locator (a parent, a kind) to see fewer nodes"), {
        structuredContent: {
          matches: nodes.map((n) => ({
            file: n.file,
            start_line: n.startLine,
            end_line: n.endLine,
            kind: n.kind,
            preview: n.preview,
            ...(n.locator ? { locator: n.locator } : {}),
          })),
        },
      });
    },
  }),
  define({
    name: "verify_plan",
    title: "Verify a plan",
    description:
      "Check a plan against the files under the root without writing anything: every error and warning, each with its fix, in the words `graphplan verify` prints. A plan that passes here is what apply_plan runs.",
    args: z.strictObject({ plan: PlanArg }),
    shown: { plan: planJsonSchema() },
    writes: false,
    run: async (args, { engine }) => {
      const result = await engine.verify(args.plan);
      return text(capped(formatResult(result), "structuredContent.issues lists every issue"), {
        structuredContent: {
          passed: result.passed,
          errors: result.errors,
          warnings: result.warnings,
          issues: result.issues,
        },
      });
    },
  }),
  define({
    name: "apply_plan",
    title: "Apply a plan",
    description:
      "Verify a plan, then run it all or nothing: every step succeeds and the files are written through a journal, or no file changes (a plan with errors answers with every issue and its fix). Answers with the diff and the files changed; undo_last_apply takes it back.",
    args: z.strictObject({ plan: PlanArg }),
    shown: { plan: planJsonSchema() },
    writes: true,
    run: async (args, { engine, session, signal }) => applyAnswer(await engine.apply(args.plan, signal), session),
  }),
  define({
    name: "rename_symbol",
    title: "Rename a symbol",
    description:
      "Scope-aware rename: the binding and exactly the references that resolve to it, in one file (rename_identifier) or, given importers, in its module and every file importing it (rename_across_files). Refused, with the reason, where the new name is taken or would change what a name resolves to. Verified and applied like apply_plan.",
    args: RenameArgs,
    // A scope without a file is in the renamed file.
    prepare: (args) => {
      const scope = args["scope"];
      if (!scope || typeof scope !== "object" || "file" in scope) return args;
      return { ...args, scope: { ...scope, file: args["file"] } };
    },
    writes: true,
    run: async (args, { engine, session, signal }) => {
      const { importers, ...params } = args as { importers?: string[] } & Record<string, unknown>;
      const step =
        importers === undefined
          ? { op: "rename_identifier", params }
          : { op: "rename_across_files", params: { ...params, importers } };
      return applyAnswer(await engine.apply([step], signal), session);
    },
  }),
  define({
    name: "compile_patch",
    title: "Compile a patch to a plan",
    description:
      "A unified diff (as `git diff` prints it; paths relative to the root) → the structural plan that reproduces it on the files under the root: node-addressed steps, checked by running them. Nothing is written; pass the plan to verify_plan or apply_plan.",
    args: z.strictObject({
      diff: z.string().min(1).describe("A unified diff whose a/ and b/ paths are relative to the root"),
    }),
    writes: false,
    run: async (args, { engine }) => {
      const compiled = await engine.compilePatch(args.diff);
      const verdict = compiled.reproduces
        ? "the plan reproduces the diff exactly"
        : "the plan does NOT reproduce the diff exactly";
      const verified = compiled.verification.passed
        ? "it passes verification"
        : `verification: ${formatResult(compiled.verification).trim()}`;
      return text(
        capped(
          `${compiled.steps} step${compiled.steps === 1 ? "" : "s"}; ${verdict}; ${verified}\n${JSON.stringify(compiled.plan, null, 2)}`,
          "structuredContent.plan holds the whole plan",
        ),
        {
          isError: !compiled.verification.passed,
          structuredContent: {
            plan: compiled.plan,
            steps: compiled.steps,
            reproduces: compiled.reproduces,
            passed: compiled.verification.passed,
            revisions: compiled.revisions,
          },
        },
      );
    },
  }),
  define({
    name: "undo_last_apply",
    title: "Undo the last apply",
    description:
      "Put back the files of this connection's last apply_plan or rename_symbol (their bytes before it; files it created are deleted, files it deleted come back), all or nothing. Refused when a file changed since. Call again to undo the apply before.",
    args: z.strictObject({}),
    writes: true,
    run: async (_args, { engine, session }) => {
      const last = session.applies.at(-1);
      if (!last) throw new NothingToUndo();
      const undone = await engine.undo(last);
      session.applies.pop();
      return text(
        capped(
          `restored ${undone.restored.join(", ") || "nothing (the apply changed no file)"}\n${undone.diff}`,
          "`git diff` shows the whole change",
        ),
        {
          structuredContent: { restored: undone.restored, diff: undone.diff },
        },
      );
    },
  }),
] as const;

export type ToolName = (typeof TOOLS)[number]["name"];

const indent = (body: string): string =>
  body
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");

/** The tools a server offers: all, or under `--read-only` those that write nothing. */
export function offeredTools(readOnly: boolean): readonly (typeof TOOLS)[number][] {
  return TOOLS.filter((t) => !readOnly || !t.writes);
}

/** A tool as `tools/list` shows it: the JSON Schema of its arguments, with the plan's and the locator's own schemas. */
export function listedTool(tool: (typeof TOOLS)[number]): Tool {
  const base = z.toJSONSchema(tool.args, { io: "input", unrepresentable: "any" }) as Record<string, unknown> & {
    properties?: Record<string, unknown>;
    $defs?: Record<string, unknown>;
  };
  const { $schema: _schema, ...schema } = base;
  const properties = { ...(schema.properties ?? {}) };
  let defs: Record<string, unknown> = { ...(schema.$defs ?? {}) };
  for (const [key, shown] of Object.entries("shown" in tool && tool.shown ? tool.shown : {})) {
    const { $defs, $schema: _s, ...rest } = shown as { $defs?: Record<string, unknown>; $schema?: unknown };
    const description = (properties[key] as { description?: string } | undefined)?.description;
    properties[key] = { ...rest, ...(description && !("description" in rest) ? { description } : {}) };
    if ($defs) defs = { ...defs, ...$defs };
  }
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: {
      ...schema,
      type: "object",
      properties,
      ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
    } as Tool["inputSchema"],
    annotations: {
      title: tool.title,
      readOnlyHint: !tool.writes,
      destructiveHint: false,
      idempotentHint: !tool.writes,
      openWorldHint: false,
    },
  };
}

/** Runs a call: arguments parsed at the edge, the engine's tagged errors and locator errors as `isError` answers. */
export async function callTool(
  tool: (typeof TOOLS)[number],
  args: unknown,
  context: ToolContext,
): Promise<CallToolResult> {
  const given = (args ?? {}) as Record<string, unknown>;
  const parsed = tool.args.safeParse("prepare" in tool && tool.prepare ? tool.prepare(given) : given);
  if (!parsed.success) {
    const issues = formatIssues(parsed.error);
    return text(
      `${tool.name}: the arguments are not valid: ${issues.join("; ")}; the tool's inputSchema describes them`,
      { isError: true },
    );
  }
  try {
    return await (tool.run as (a: unknown, c: ToolContext) => Promise<CallToolResult>)(parsed.data, context);
  } catch (error) {
    // A tagged error (the engine's Effect errors, the locators' errors) is an answer; anything else is a bug.
    const tag = Predicate.hasProperty(error, "_tag") && Predicate.isString(error._tag) ? error._tag : undefined;
    if (tag === undefined && !isLocatorError(error)) throw error;
    return text(`${(error as Error).message}`, { isError: true, structuredContent: { error: tag } });
  }
}
