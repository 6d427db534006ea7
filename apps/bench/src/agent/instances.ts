/**
 * The instances `bench agent` runs: SWE-bench lines with `repo`, `instance_id`, `base_commit` and
 * `problem_statement` (the gold `patch` is not needed and other fields are ignored). Every line, and
 * every `--instances` id, becomes either an instance to run or a reason it cannot run (reported as
 * `input_error` for that instance; the run goes on).
 */
import { z } from "zod";
import { parseJsonLines } from "../dataset.js";

export const AgentInstanceSchema = z.looseObject({
  repo: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "repo is `owner/name`"),
  instance_id: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9_.-]*$/,
      "instance_id is letters, digits, `_`, `.` and `-` (it names the instance's output directory)",
    ),
  base_commit: z.string().regex(/^[0-9a-f]{7,40}$/i, "base_commit is a hexadecimal commit id"),
  problem_statement: z.string().refine((s) => s.trim() !== "", "problem_statement is empty"),
});
export type AgentInstance = z.infer<typeof AgentInstanceSchema>;

/** Why an instance cannot run, groupable (`cause` in the report). */
export type InputCause =
  | "bad_line"
  | "unknown_instance"
  | "duplicate_instance"
  | "unknown_repository"
  | "missing_commit";

export type AgentLine =
  | { readonly ok: true; readonly line: number; readonly instance: AgentInstance }
  | {
      readonly ok: false;
      readonly line: number | null;
      readonly id: string;
      readonly repo?: string;
      readonly cause: InputCause;
      readonly error: string;
    };

/**
 * The dataset's lines (blank ones skipped), in order: an instance, or why the line is unusable (its
 * `instance_id` if it has one, else `line-N`). A second line with the same id is `duplicate_instance`.
 */
export function parseAgentDataset(text: string): AgentLine[] {
  const seen = new Set<string>();
  return parseJsonLines(text, AgentInstanceSchema, "SWE-bench instance").map((entry): AgentLine => {
    const { line } = entry;
    if (!entry.ok)
      return { ok: false, line, id: entry.instanceId ?? `line-${line}`, cause: "bad_line", error: entry.error };
    const id = entry.value.instance_id;
    if (seen.has(id)) {
      return {
        ok: false,
        line,
        id,
        repo: entry.value.repo,
        cause: "duplicate_instance",
        error: `line ${line} repeats instance ${id} (the first line with it is used)`,
      };
    }
    seen.add(id);
    return { ok: true, line, instance: entry.value };
  });
}

const lineId = (l: AgentLine): string => (l.ok ? l.instance.instance_id : l.id);

/**
 * The lines for `--instances` (in dataset order; every line when none are named). A named id that
 * no line has becomes an `unknown_instance` entry.
 */
export function selectInstances(lines: readonly AgentLine[], ids: readonly string[] | undefined): AgentLine[] {
  if (!ids || ids.length === 0) return [...lines];
  const wanted = new Set(ids);
  const chosen = lines.filter((l) => wanted.has(lineId(l)));
  const found = new Set(chosen.map(lineId));
  for (const id of wanted) {
    if (!found.has(id))
      chosen.push({
        ok: false,
        line: null,
        id,
        cause: "unknown_instance",
        error: `no line of the dataset has instance_id ${id}`,
      });
  }
  return chosen;
}

/** A seeded random number generator (mulberry32): the same seed gives the same order on every machine. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `a:b`, `a:` or `:b` (Python's slice of the list; negative numbers count from the end). */
export function parseSlice(text: string): (length: number) => [number, number] {
  const match = /^(-?\d*):(-?\d*)$/.exec(text.trim());
  if (!match) throw new Error(`--slice ${text}: give START:END (e.g. 0:20, 20:, :5), as a Python slice`);
  const bound = (value: string, length: number, fallback: number) => {
    if (value === "") return fallback;
    const n = Number(value);
    return Math.min(length, Math.max(0, n < 0 ? length + n : n));
  };
  return (length) => [bound(match[1]!, length, 0), bound(match[2]!, length, length)];
}

/**
 * The selection options as one function over the dataset's lines, applied as mini-swe-agent does:
 * shuffle (with `seed`, default 42), then keep ids matching `filter` (a regular expression), then
 * `slice`. Throws on a malformed regular expression or slice.
 */
export function selectionOf(options: {
  readonly shuffle?: boolean | undefined;
  readonly seed?: number | undefined;
  readonly filter?: string | undefined;
  readonly slice?: string | undefined;
}): (lines: readonly AgentLine[]) => AgentLine[] {
  let pattern: RegExp | undefined;
  try {
    pattern = options.filter === undefined ? undefined : new RegExp(options.filter);
  } catch (error) {
    throw new Error(`--filter ${options.filter}: not a regular expression (${(error as Error).message})`);
  }
  const slice = options.slice === undefined ? undefined : parseSlice(options.slice);
  return (lines) => {
    let out = [...lines];
    if (options.shuffle) {
      const random = seeded(options.seed ?? 42);
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
    }
    if (pattern) out = out.filter((l) => pattern.test(lineId(l)));
    if (slice) {
      const [start, end] = slice(out.length);
      out = out.slice(start, end);
    }
    return out;
  };
}
