/** Reading the model's replies: bash blocks, the READY_TO_PLAN line, the plan, the submit marker. Pure. */
import type { ToolCall } from "@graphplan/runtime";
import { planIntegrity } from "@graphplan/catalog";

/** The contents of every ```bash block (mini-swe-agent's pattern: the fence, a newline, the command, a newline, the fence). */
export function bashBlocks(text: string): string[] {
  return [...text.matchAll(/```bash[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```/g)].map((m) => m[1]!);
}

export type Action =
  | { readonly kind: "command"; readonly command: string }
  | { readonly kind: "format_error"; readonly blocks: number };

/** The one command of a reply, or a format error saying how many blocks it had. */
export function parseAction(text: string): Action {
  const blocks = bashBlocks(text);
  if (blocks.length !== 1 || blocks[0]!.trim() === "") return { kind: "format_error", blocks: blocks.length };
  return { kind: "command", command: blocks[0]! };
}

export type ReadyToPlan =
  | { readonly ok: true; readonly files: string[] }
  | { readonly ok: false; readonly problem: string };

/**
 * The file list of a `MARKER: ["a.py", ...]` line, if the reply has the marker (anywhere, also in an
 * `echo` command). undefined: no marker. A list that is not a JSON array of non-empty strings, or is
 * empty, is a problem to tell the model. Paths are normalized (`./a.py` → `a.py`) and deduplicated.
 */
export function parseReadyToPlan(text: string, marker = "READY_TO_PLAN"): ReadyToPlan | undefined {
  const at = text.lastIndexOf(`${marker}:`);
  if (at < 0) return undefined;
  const rest = text.slice(at + marker.length + 1);
  const open = rest.search(/\S/);
  if (open < 0 || rest[open] !== "[")
    return { ok: false, problem: `${marker}: must be followed by a JSON list of file paths` };
  // The list ends at one of the "]" after it: the first that closes valid JSON.
  let parsed: unknown;
  let found = false;
  for (let close = rest.indexOf("]", open); close >= 0; close = rest.indexOf("]", close + 1)) {
    try {
      parsed = JSON.parse(rest.slice(open, close + 1));
      found = true;
      break;
    } catch {
      // try the next "]"
    }
  }
  if (!found)
    return {
      ok: false,
      problem: `the list after ${marker}: is not valid JSON (write it like ["src/a.py", "src/b.py"])`,
    };
  if (!Array.isArray(parsed) || parsed.some((p) => typeof p !== "string" || p.trim() === "")) {
    return { ok: false, problem: `the list after ${marker}: must hold file paths as strings` };
  }
  const files = [...new Set((parsed as string[]).map((p) => p.trim().replace(/^(\.\/)+/, "")))];
  if (files.length === 0)
    return { ok: false, problem: `the list after ${marker}: is empty; name at least one file to change` };
  return { ok: true, files };
}

/** Whether a command's output says the model submitted: its first line (leading blank lines skipped) is the marker. */
export function isSubmission(output: string, marker = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"): boolean {
  return output.trimStart().split("\n")[0]?.trim() === marker;
}

/** The contents of every ```json block. */
export function jsonBlocks(text: string): string[] {
  return [...text.matchAll(/```json[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```/gi)].map((m) => m[1]!);
}

/** Where a plan was found in a reply: the channels, in the order they are tried. */
export type PlanChannel = "tool call" | "json block" | "untagged fence" | "bare JSON" | "plan file";

/** The tool a model that takes tools submits its plan with; its input is `{"plan": PLAN}`. */
export const PLAN_TOOL_NAME = "submit_plan";

export type ExtractedPlan =
  | { readonly ok: true; readonly json: unknown; readonly channel: PlanChannel }
  | { readonly ok: false; readonly error: string; readonly json?: unknown };

/** The contents of every fence with no language tag (```\n...\n```). */
export function untaggedBlocks(text: string): string[] {
  return [...text.matchAll(/```[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```/g)].map((m) => m[1]!);
}

/**
 * JSON values written in prose: from each `[` or `{` that starts a line (or follows a colon and a
 * space), the shortest text up to a matching `]`/`}` that parses as JSON. Fences are not looked into.
 */
export function bareJson(text: string): unknown[] {
  const prose = text.replace(/```[\s\S]*?```/g, (m) => " ".repeat(m.length));
  const values: unknown[] = [];
  const starts = [...prose.matchAll(/(^|\n|: )[ \t]*([[{])/g)].map((m) => m.index! + m[0].length - 1);
  for (const start of starts) {
    const close = prose[start] === "[" ? "]" : "}";
    for (let end = prose.indexOf(close, start); end >= 0; end = prose.indexOf(close, end + 1)) {
      try {
        values.push(JSON.parse(prose.slice(start, end + 1)));
        break;
      } catch {
        // not yet a whole value
      }
    }
  }
  return values;
}

/** A plan from one JSON text, or why it is not one (`where` names the channel). */
export function planOfJson(text: string, where: string, channel: PlanChannel): ExtractedPlan {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `the ${where} is not valid JSON (${(error as Error).message})` };
  }
  return planOfValue(json, where, channel);
}

/**
 * A plan from a parsed JSON value (the plan-integrity gate of @graphplan/catalog: a list of steps
 * each naming its operator), or why it is not one. The steps' params are the verifier's to check.
 */
function planOfValue(json: unknown, where: string, channel: PlanChannel): ExtractedPlan {
  const issues = planIntegrity(json);
  if (issues.length)
    return {
      ok: false,
      error: `the ${where} is not a plan: ${issues.map((i) => `${i.step === null ? "" : `step ${i.step + 1}: `}${i.message}`).join("; ")}`,
      json,
    };
  return { ok: true, json, channel };
}

/**
 * The plan of a reply, from the first channel that has one: a ```json block, a fence without a
 * language tag, or bare JSON in the prose (what models write when they forget the fence). Several
 * ```json blocks are refused (which one is the plan?). The design's (docs/design.md, Origins) plan-integrity gate holds for every
 * channel: a file list, an empty array or any other JSON is refused, with a message saying where and why.
 */
export function extractPlan(text: string): ExtractedPlan {
  const blocks = jsonBlocks(text);
  if (blocks.length > 1)
    return { ok: false, error: `the reply has ${blocks.length} \`\`\`json blocks; put the whole plan in exactly one` };
  if (blocks.length === 1) return planOfJson(blocks[0]!, "json block", "json block");
  const candidates: ExtractedPlan[] = [
    ...untaggedBlocks(text).map((block) => planOfJson(block, "fenced block", "untagged fence")),
    ...bareJson(text).map((value) => planOfJson(JSON.stringify(value), "JSON in the reply", "bare JSON")),
  ];
  const found = candidates.find((c) => c.ok);
  if (found) return found;
  const tried = candidates.find((c) => !c.ok && c.json !== undefined) ?? candidates[0];
  if (tried) return tried;
  return { ok: false, error: "the reply has no plan: no ```json block, no fenced block and no JSON in the text" };
}

/**
 * The plan of a reply's tool calls: the input's `plan` of its one call to the plan tool (a bare plan
 * as the input is taken too). undefined: the reply made no tool call. The error names the call.
 */
export function planOfToolCalls(
  calls: readonly ToolCall[] | undefined,
): (ExtractedPlan & { readonly callId?: string }) | undefined {
  if (!calls?.length) return undefined;
  const planCalls = calls.filter((c) => c.name === PLAN_TOOL_NAME);
  if (planCalls.length === 0)
    return {
      ok: false,
      error: `the reply called ${calls.map((c) => c.name).join(", ")}, not ${PLAN_TOOL_NAME}; submit the plan with ${PLAN_TOOL_NAME} ({"plan": [...]})`,
    };
  if (planCalls.length > 1)
    return {
      ok: false,
      error: `the reply called ${PLAN_TOOL_NAME} ${planCalls.length} times; submit the whole plan in one call`,
      callId: planCalls[0]!.id,
    };
  const call = planCalls[0]!;
  const where = `${PLAN_TOOL_NAME} call's plan`;
  if (typeof call.input === "string")
    return { ...planOfJson(call.input, `${PLAN_TOOL_NAME} call's input`, "tool call"), callId: call.id };
  const input = call.input as { plan?: unknown } | unknown[] | null;
  const plan = Array.isArray(input)
    ? input
    : input && typeof input === "object" && "plan" in input
      ? input.plan
      : undefined;
  if (plan === undefined)
    return {
      ok: false,
      error: `the ${PLAN_TOOL_NAME} call has no "plan" in its input; call it with {"plan": [...steps]}`,
      json: call.input,
      callId: call.id,
    };
  return { ...planOfValue(plan, where, "tool call"), callId: call.id };
}

/**
 * An output cut to `max` characters: head and tail, half each (mini-swe-agent's observation), and
 * how many characters were left out.
 */
export function truncateOutput(
  output: string,
  max: number,
): { truncated: false; output: string } | { truncated: true; head: string; tail: string; elided: number } {
  if (output.length <= max) return { truncated: false, output };
  const half = Math.floor(max / 2);
  return {
    truncated: true,
    head: output.slice(0, half),
    tail: output.slice(output.length - half),
    elided: output.length - 2 * half,
  };
}
