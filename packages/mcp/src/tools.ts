/**
 * The MCP tools of `graphplan mcp`: each one's arguments (one zod schema, parsed at the edge), the JSON
 * Schema clients see (derived, and lean: it rides on every turn of a session — the plan as the catalog's
 * compact `planStepsJsonSchema`, the locator's from @graphplan/locators, rename's from the catalog's
 * `rename_identifier`/`rename_across_files` params) and what a call answers. Long answers come in pages
 * (`graph`, `compile_patch`). The texts are in `texts.ts`; the engine (`engine.ts`) does the work;
 * `server.ts` speaks the protocol.
 */
import * as Predicate from "effect/Predicate";
import { z } from "zod";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { catalogEntry, planStepsJsonSchema } from "@graphplan/catalog";
import { formatIssues, isLocatorError, locatorJsonSchema } from "@graphplan/locators";
import { formatResult } from "@graphplan/verifier";
import { describeOperators } from "./describe.js";
import { CallInputInvalid, NothingToUndo, type AppliedChange, type CompiledPatch, type Engine } from "./engine.js";
import { stepPages, stepsJson } from "./pages.js";
import { parseJsonStrings, reachableDefs, standardKeywords } from "./schema.js";
import { ARG_TEXT, noPage, pageLine, parsedNote, TOOL_TEXT } from "./texts.js";

/** The longest text a tool answers with; longer text is cut with a note saying how to see the rest. */
export const MAX_TEXT = 40_000;
/** The longest verification text a `compile_patch` page carries beside its steps. */
const MAX_VERIFICATION_TEXT = 8_000;

/** What one connection remembers: its applies, newest last (undo_last_apply takes them back in turn), and where its pages start. */
export interface CallSession {
  readonly applies: AppliedChange[];
  /** The last patch compiled, for its next pages. */
  compiled?: { readonly diff: string; readonly patch: CompiledPatch };
  /** Per graph request (its paths and page size), the first file of each page seen so far. */
  readonly graphStarts: Map<string, number[]>;
}

export const newCallSession = (): CallSession => ({ applies: [], graphStarts: new Map() });

export interface ToolContext {
  readonly engine: Engine;
  readonly session: CallSession;
  readonly signal: AbortSignal;
}

interface ToolDef<A extends z.ZodType> {
  readonly name: keyof typeof TOOL_TEXT;
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

/** `body`, cut at `max` characters with `how` (how to get the rest) said at the cut. */
export function capped(body: string, how: string, max = MAX_TEXT): string {
  if (body.length <= max) return body;
  return `${body.slice(0, max)}\n… cut at ${max} of ${body.length} characters: ${how}`;
}

const Page = z.number().int().min(1).default(1).describe(ARG_TEXT.page);

/** The plan's arguments: its steps, and the custom operators they may name. */
const PlanArgs = z.strictObject({
  plan: z.unknown(),
  define_operators: z.array(z.unknown()).optional().describe(ARG_TEXT.defineOperators),
});
const PLAN_SHOWN = {
  plan: planStepsJsonSchema(),
  define_operators: { type: "array", items: { type: "object" } },
};

/** The plan as the engine reads it: the steps, or `{define_operators, plan}` when operators are defined. */
const planOf = (args: z.output<typeof PlanArgs>): unknown =>
  args.define_operators && Array.isArray(args.plan)
    ? { define_operators: args.define_operators, plan: args.plan }
    : args.plan;

const define = <A extends z.ZodType>(def: ToolDef<A>): ToolDef<A> => def;

const renameOne = catalogEntry("op", "rename_identifier")!.params as z.ZodObject;
const renameAcross = catalogEntry("op", "rename_across_files")!.params as z.ZodObject;

/** `rename_symbol`'s arguments: `rename_identifier`'s params, and `rename_across_files`'s importers (given: across files). */
const RenameArgs = z.strictObject({
  ...renameOne.shape,
  importers: (renameAcross.shape["importers"] as z.ZodType).optional().describe(ARG_TEXT.importers),
});

/** A change on disk makes remembered pages stale. */
function forgetPages(session: CallSession): void {
  session.compiled = undefined;
  session.graphStarts.clear();
}

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
  forgetPages(session);
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

/** The steps of a plan as written: the array, or `plan` of `{define_operators, plan}`. */
const stepsOf = (plan: CompiledPatch["plan"]): readonly unknown[] => (Array.isArray(plan) ? plan : plan.plan);

/** Page `page` of a compiled patch: a line on the whole plan, on page 1 its verification, the page's place, its steps as a JSON array. */
function compiledPage(compiled: CompiledPatch, page: number): CallToolResult {
  const steps = stepsOf(compiled.plan);
  const pages = stepPages(steps);
  const at = pages[page - 1];
  if (!at)
    throw new CallInputInvalid({
      detail: noPage("compile_patch", page, `the plan's ${steps.length} steps`, pages.length),
    });
  const verdict = compiled.reproduces
    ? "the plan reproduces the diff exactly"
    : "the plan does NOT reproduce the diff exactly";
  const passed = compiled.verification.passed;
  const verified = passed ? "it passes verification" : "it does NOT pass verification";
  const shown = steps.slice(at.from, at.to);
  const defined = Array.isArray(compiled.plan) ? [] : compiled.plan.define_operators;
  const lines = [
    `${steps.length} step${steps.length === 1 ? "" : "s"}; ${verdict}; ${verified}`,
    ...(page === 1 && !passed
      ? [
          capped(
            formatResult(compiled.verification).trim(),
            "verify_plan with the plan lists every issue",
            MAX_VERIFICATION_TEXT,
          ),
        ]
      : []),
    ...(defined.length > 0
      ? [`it defines operators (structuredContent.define_operators): pass them as verify_plan's define_operators`]
      : []),
    pageLine(
      "steps",
      { first: at.from + 1, last: at.to, total: steps.length, page, pages: pages.length },
      "call compile_patch with the same diff",
    ),
    stepsJson(shown),
  ];
  return text(lines.join("\n"), {
    isError: !passed,
    structuredContent: {
      plan: shown,
      steps: steps.length,
      page,
      pages: pages.length,
      first_step: at.from + 1,
      last_step: at.to,
      next_page: page < pages.length ? page + 1 : null,
      ...(defined.length > 0 ? { define_operators: defined } : {}),
      reproduces: compiled.reproduces,
      passed,
      revisions: compiled.revisions,
    },
  });
}

/** The first file of graph page `page` of `paths`: from the pages this connection has seen, walking on from the last one. */
async function graphStart(
  args: { paths: string[]; page: number; max_chars: number },
  { engine, session }: ToolContext,
): Promise<{ starts: number[]; offset: number }> {
  const key = JSON.stringify([args.paths, args.max_chars]);
  // Page 1 starts afresh (the files may have changed since).
  const starts = args.page === 1 ? [0] : (session.graphStarts.get(key) ?? [0]);
  session.graphStarts.set(key, starts);
  while (starts.length < args.page) {
    const before = await engine.graph(args.paths, starts.at(-1)!, args.max_chars);
    if (before.nextOffset === null)
      throw new CallInputInvalid({
        detail: noPage("graph", args.page, `the files under ${args.paths.join(", ")}`, starts.length),
      });
    starts.push(before.nextOffset);
  }
  return { starts, offset: starts[args.page - 1]! };
}

/** The matches of a locate, as text: whole matches only, up to {@link MAX_TEXT} characters, then how many are left out. */
function locatedText(nodes: Awaited<ReturnType<Engine["locate"]>>): string {
  const head = nodes.length === 1 ? "1 node matches" : `${nodes.length} nodes match; each one's locator picks it alone`;
  let body = head;
  for (const [i, n] of nodes.entries()) {
    const entry = `${nodes.length > 1 ? `[${i}] ` : ""}${n.file}:${n.startLine}-${n.endLine} ${n.kind}${n.locator ? `\n  locator: ${JSON.stringify(n.locator)}` : ""}\n${indent(n.preview)}`;
    if (body.length + entry.length + 1 > MAX_TEXT)
      return `${body}\n… ${nodes.length - i} more not shown: narrow the locator (a parent, a kind) to see fewer nodes`;
    body += `\n${entry}`;
  }
  return body;
}

export const TOOLS = [
  define({
    name: "graph",
    args: z.strictObject({
      paths: z.array(z.string().min(1)).min(1).default(["."]).describe(ARG_TEXT.paths),
      page: Page,
      max_chars: z.number().int().min(1000).max(MAX_TEXT).default(30_000).describe(ARG_TEXT.maxChars),
    }),
    writes: false,
    run: async (args, context) => {
      const { starts, offset } = await graphStart(args, context);
      const page = await context.engine.graph(args.paths, offset, args.max_chars);
      if (args.page > 1 && page.offset >= page.files)
        throw new CallInputInvalid({
          detail: `${noPage("graph", args.page, `the files under ${args.paths.join(", ")}`, args.page - 1)} (they changed since)`,
        });
      if (page.nextOffset !== null) starts[args.page] = page.nextOffset;
      const last = page.nextOffset ?? page.files;
      const shown = last - page.offset;
      const line = pageLine(
        "files",
        { first: page.offset + 1, last, total: page.files, page: args.page },
        "call graph with the same paths",
      );
      return text(`${page.view}\n(${line})`, {
        structuredContent: {
          files: page.files,
          page: args.page,
          next_page: page.nextOffset === null ? null : args.page + 1,
          offset: page.offset,
          shown,
          next_offset: page.nextOffset,
        },
      });
    },
  }),
  define({
    name: "locate",
    args: z.strictObject({ locator: z.unknown().describe(ARG_TEXT.locator) }),
    shown: { locator: { type: "object", ...locatorJsonSchema() } },
    writes: false,
    run: async (args, { engine }) => {
      const nodes = await engine.locate(args.locator);
      return text(locatedText(nodes), {
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
    args: PlanArgs,
    shown: PLAN_SHOWN,
    writes: false,
    run: async (args, { engine }) => {
      const result = await engine.verify(planOf(args));
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
    args: PlanArgs,
    shown: PLAN_SHOWN,
    writes: true,
    run: async (args, { engine, session, signal }) => applyAnswer(await engine.apply(planOf(args), signal), session),
  }),
  define({
    name: "rename_symbol",
    args: RenameArgs,
    shown: { scope: { type: "object", description: ARG_TEXT.scope } },
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
    args: z.strictObject({ diff: z.string().min(1).describe(ARG_TEXT.diff), page: Page }),
    writes: false,
    run: async (args, { engine, session }) => {
      // Pages after the first come from the plan compiled for the first, while the diff is the same.
      const cached = args.page > 1 && session.compiled?.diff === args.diff ? session.compiled.patch : undefined;
      const patch = cached ?? (await engine.compilePatch(args.diff));
      session.compiled = { diff: args.diff, patch };
      return compiledPage(patch, args.page);
    },
  }),
  define({
    name: "undo_last_apply",
    args: z.strictObject({}),
    writes: true,
    run: async (_args, { engine, session }) => {
      const last = session.applies.at(-1);
      if (!last) throw new NothingToUndo();
      const undone = await engine.undo(last);
      session.applies.pop();
      forgetPages(session);
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
  define({
    name: "describe_operators",
    args: z.strictObject({ names: z.array(z.string().min(1)).optional().describe(ARG_TEXT.names) }),
    writes: false,
    run: async (args) => text(capped(describeOperators(args.names), "ask for fewer names at a time")),
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

type AnyTool = (typeof TOOLS)[number];
const listed = new Map<string, Tool>();

/** A tool as `tools/list` shows it: the JSON Schema of its arguments (standard keywords, a `type` on each property), with the plan's and the locator's own schemas. */
export function listedTool(tool: AnyTool): Tool {
  const known = listed.get(tool.name);
  if (known) return known;
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
  const { title, description } = TOOL_TEXT[tool.name];
  const made: Tool = {
    name: tool.name,
    title,
    description,
    inputSchema: standardKeywords(
      reachableDefs({ ...schema, type: "object", properties, $defs: defs }),
    ) as Tool["inputSchema"],
    annotations: {
      readOnlyHint: !tool.writes,
      destructiveHint: false,
      idempotentHint: !tool.writes,
      openWorldHint: false,
    },
  };
  listed.set(tool.name, made);
  return made;
}

/** Each property's top-level `type` in the listed schema. */
const propertyTypes = (tool: AnyTool): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(listedTool(tool).inputSchema.properties ?? {}).map(([name, p]) => [
      name,
      (p as { type?: unknown }).type,
    ]),
  );

/** `result` with a first line per argument that came as a JSON string and was parsed. */
function withNotes(result: CallToolResult, parsed: readonly string[]): CallToolResult {
  if (parsed.length === 0) return result;
  const notes = parsed.map(parsedNote);
  const [first, ...rest] = result.content;
  const content =
    first?.type === "text"
      ? [{ ...first, text: `${notes.join("\n")}\n${first.text}` }, ...rest]
      : [{ type: "text" as const, text: notes.join("\n") }, ...result.content];
  return {
    ...result,
    content,
    ...(result.structuredContent ? { structuredContent: { ...result.structuredContent, notes } } : {}),
  };
}

/** Runs a call: JSON strings for objects parsed (and said), arguments parsed at the edge, the engine's tagged errors and locator errors as `isError` answers. */
export async function callTool(tool: AnyTool, args: unknown, context: ToolContext): Promise<CallToolResult> {
  const { args: given, parsed: fromStrings } = parseJsonStrings(
    (args ?? {}) as Record<string, unknown>,
    propertyTypes(tool),
  );
  const parsed = tool.args.safeParse("prepare" in tool && tool.prepare ? tool.prepare(given) : given);
  if (!parsed.success) {
    const issues = formatIssues(parsed.error);
    return withNotes(
      text(`${tool.name}: the arguments are not valid: ${issues.join("; ")}; the tool's inputSchema describes them`, {
        isError: true,
      }),
      fromStrings,
    );
  }
  try {
    const run = tool.run as (a: unknown, c: ToolContext) => Promise<CallToolResult>;
    return withNotes(await run(parsed.data, context), fromStrings);
  } catch (error) {
    // A tagged error (the engine's Effect errors, the locators' errors) is an answer; anything else is a bug.
    const tag = Predicate.hasProperty(error, "_tag") && Predicate.isString(error._tag) ? error._tag : undefined;
    if (tag === undefined && !isLocatorError(error)) throw error;
    return withNotes(
      text(`${(error as Error).message}`, { isError: true, structuredContent: { error: tag } }),
      fromStrings,
    );
  }
}
