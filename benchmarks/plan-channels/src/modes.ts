/**
 * The stand-in model's bad-model modes: how a real model writes (or fails to write) its plan.
 * Each mode turns the instance's gold plan into the model's first PLAN reply; after the agent's
 * nudge (the reply had no usable plan, was cut off, did not verify) the model sends the plan
 * correctly in the mode's own channel — except `never-a-plan`, which keeps writing prose. Pure.
 */

/** One reply of the stand-in model: text (with the provider's stop reason), or a call of the plan tool. */
export type Reply =
  | { readonly kind: "text"; readonly text: string; readonly stopReason?: "end_turn" | "max_tokens" }
  | { readonly kind: "tool"; readonly input: unknown };

export interface Mode {
  readonly name: string;
  /** What the mode stands for, one line (printed under the table). */
  readonly about: string;
  /** The first PLAN reply (`planFile`: where the prompt says a command may write the plan). */
  readonly first: (plan: unknown, planFile: string) => Reply;
  /** The reply to every nudge after it. */
  readonly corrected: (plan: unknown, planFile: string) => Reply;
}

const text = (t: string, stopReason?: "max_tokens"): Reply => ({
  kind: "text",
  text: t,
  ...(stopReason ? { stopReason } : {}),
});
const pretty = (plan: unknown) => JSON.stringify(plan, null, 2);
const jsonBlock = (plan: unknown) => text(`THOUGHT: the change as a plan.\n\n\`\`\`json\n${pretty(plan)}\n\`\`\``);
const toolCall = (plan: unknown): Reply => ({ kind: "tool", input: { plan } });

/** The steps of a plan (a bare array, or `{define_operators, plan}`), and a way to put changed steps back. */
function withSteps(plan: unknown, change: (steps: Record<string, unknown>[]) => Record<string, unknown>[]): unknown {
  if (Array.isArray(plan)) return change(structuredClone(plan) as Record<string, unknown>[]);
  const object = structuredClone(plan) as { plan: Record<string, unknown>[] };
  return { ...object, plan: change(object.plan) };
}

/** The usual names models give the operators (what they write instead of the catalog's name). */
export const SYNONYMS: Readonly<Record<string, string>> = {
  replace_node: "replace",
  insert_after_node: "insert_after",
  insert_before_node: "insert_before",
  delete_node: "delete",
  replace_code: "replace_text",
  insert_code: "insert",
};

/** The first step given as `{"template": op}` instead of `{"op": op}`. */
export function operatorAsTemplate(plan: unknown): unknown {
  return withSteps(plan, (steps) =>
    steps.map((step, i) =>
      i === 0 && typeof step.op === "string" ? (({ op, ...rest }) => ({ template: op, ...rest }))(step) : step,
    ),
  );
}

/** The first step whose operator has a usual synonym, named by it. */
export function operatorSynonym(plan: unknown): unknown {
  let done = false;
  return withSteps(plan, (steps) =>
    steps.map((step) => {
      const synonym = typeof step.op === "string" ? SYNONYMS[step.op] : undefined;
      if (done || !synonym) return step;
      done = true;
      return { ...step, op: synonym };
    }),
  );
}

/** Two spaces after every line of every code parameter. */
export function trailingSpaces(plan: unknown): unknown {
  const codeKeys = new Set(["replacement", "code", "new_code", "text", "body"]);
  const pad = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(pad);
    if (value && typeof value === "object")
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [
          k,
          codeKeys.has(k) && typeof v === "string"
            ? v
                .split("\n")
                .map((l) => (l.trim() ? `${l}  ` : l))
                .join("\n")
            : pad(v),
        ]),
      );
    return value;
  };
  return pad(plan);
}

/** A trailing comma before the plan's closing bracket: JSON.parse refuses it, as models' JSON often is. */
export function trailingComma(json: string): string {
  const at = json.lastIndexOf("}");
  return `${json.slice(0, at + 1)},${json.slice(at + 1)}`;
}

export const MODES: readonly Mode[] = [
  {
    name: "json-block",
    about: "the plan in one ```json block, as the prompt asks (the baseline)",
    first: jsonBlock,
    corrected: jsonBlock,
  },
  {
    name: "tool-call",
    about: "the plan as the input of a submit_plan tool call",
    first: toolCall,
    corrected: toolCall,
  },
  {
    name: "untagged-fence",
    about: "the plan in a ``` fence with no language tag",
    first: (plan) => text(`THOUGHT: here is the plan.\n\n\`\`\`\n${pretty(plan)}\n\`\`\``),
    corrected: (plan) => text(`\`\`\`\n${pretty(plan)}\n\`\`\``),
  },
  {
    name: "bare-json",
    about: "the plan as JSON in the prose, no fence",
    first: (plan) =>
      text(
        `THOUGHT: I will change the code as follows.\n\nPlan:\n${pretty(plan)}\n\nThis keeps the behaviour otherwise.`,
      ),
    corrected: (plan) => text(`Plan:\n${pretty(plan)}`),
  },
  {
    name: "plan-file",
    about: "the plan written by a heredoc command to the plan file the prompt names (the design's /tmp/edit_plan.json)",
    first: (plan, planFile) =>
      text(`THOUGHT: writing the plan file.\n\n\`\`\`bash\ncat > ${planFile} <<'EOF'\n${pretty(plan)}\nEOF\n\`\`\``),
    corrected: (plan, planFile) => text(`\`\`\`bash\ncat > ${planFile} <<'EOF'\n${pretty(plan)}\nEOF\n\`\`\``),
  },
  {
    name: "two-json-blocks",
    about: "the plan split over two ```json blocks",
    first: (plan) => {
      const steps = Array.isArray(plan) ? plan : [plan];
      const half = Math.max(1, Math.ceil(steps.length / 2));
      return text(
        `First:\n\`\`\`json\n${pretty(steps.slice(0, half))}\n\`\`\`\nThen:\n\`\`\`json\n${pretty(steps.slice(half))}\n\`\`\``,
      );
    },
    corrected: jsonBlock,
  },
  {
    name: "cut-off",
    about: "the reply cut off by the output-token limit half way through the plan",
    first: (plan) => {
      const whole = `THOUGHT: the plan.\n\n\`\`\`json\n${pretty(plan)}\n\`\`\``;
      return text(whole.slice(0, Math.floor(whole.length / 2)), "max_tokens");
    },
    corrected: jsonBlock,
  },
  {
    name: "invalid-json",
    about: "a trailing comma in the plan's JSON",
    first: (plan) => text(`\`\`\`json\n${trailingComma(pretty(plan))}\n\`\`\``),
    corrected: jsonBlock,
  },
  {
    name: "prose-first",
    about: "the change described in words, no plan (the plan comes after the nudge)",
    first: () =>
      text(
        "THOUGHT: The bug is in the function the task names; I would change its body so that the case in the task is handled.",
      ),
    corrected: jsonBlock,
  },
  {
    name: "operator-as-template",
    about: 'the first step written {"template": OP} for an operator',
    first: (plan) => jsonBlock(operatorAsTemplate(plan)),
    corrected: jsonBlock,
  },
  {
    name: "operator-synonym",
    about: "an operator named by a usual synonym (replace, insert_after, ...)",
    first: (plan) => jsonBlock(operatorSynonym(plan)),
    corrected: jsonBlock,
  },
  {
    name: "trailing-spaces",
    about: "two spaces after every code line",
    first: (plan) => jsonBlock(trailingSpaces(plan)),
    corrected: jsonBlock,
  },
  {
    name: "never-a-plan",
    about: "prose at every attempt (the control: the agent must fall back, not loop)",
    first: () => text("THOUGHT: I think the fix is small; the function needs another condition."),
    corrected: () => text("THOUGHT: As said, the function needs another condition."),
  },
];

/** The agent's phase as the last user message shows it (the default config's prompts). */
export type Turn = "explore" | "ready" | "plan" | "nudge" | "review" | "fallback";

/**
 * Which turn the model is asked for, from the conversation the agent sent: its last user message
 * (texts and tool results joined) and how many replies the model gave before.
 */
export function turnOf(lastUser: string, assistantReplies: number): Turn {
  if (lastUser.includes("Phase 2, PLAN")) return "plan";
  if (lastUser.includes("The plan was verified and applied") || lastUser.includes("submission was rejected"))
    return "review";
  if (lastUser.includes("The structured plan is not used")) return "fallback";
  if (
    /no usable plan|was cut off|did not pass verification|failed when it ran|plan received|not valid JSON|is not a plan/.test(
      lastUser,
    )
  )
    return "nudge";
  return assistantReplies === 0 ? "explore" : "ready";
}
