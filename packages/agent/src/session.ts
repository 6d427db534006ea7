/**
 * The state of one run, shared by the phases: the conversation, the counters the limits are
 * checked against, and what the trajectory records (phase transitions, plans, submissions).
 */
import * as Effect from "effect/Effect";
import { GraphCache, type GraphStore } from "@graphplan/graph";
import { addCall, emptyTotals, LanguageModel, Sandbox, type UsageTotals } from "@graphplan/runtime";
import type {
  ChatMessage,
  CompletionOptions,
  ExecResult,
  ModelError,
  ModelReply,
  SandboxFailed,
  ToolResult,
  ToolSpec,
} from "@graphplan/runtime";
import { READY_MARKER, SUBMIT_MARKER, render, type AgentConfig, type PromptName } from "./config.js";
import { LimitsExceeded } from "./errors.js";
import type { RepoFiles } from "./importers.js";
import { PLAN_TOOL_NAME, truncateOutput } from "./parse.js";
import { randomUUID } from "node:crypto";
import type { Phase, PlanRecord, Submission, Trajectory, TrajectoryMessage, Transition } from "./trajectory.js";

export class Session {
  readonly messages: TrajectoryMessage[] = [];
  readonly transitions: Transition[] = [];
  readonly plans: PlanRecord[] = [];
  readonly submissions: Submission[] = [];
  // The counters the limits are checked against, and what the trajectory records: changed only by the
  // methods below, read through the getters.
  #phase: Phase | null = null;
  /** Every model call's calls, dollars and tokens, in all and per phase. */
  #usage: UsageTotals = emptyTotals();
  #byPhase: Partial<Record<Phase, UsageTotals>> = {};
  #modelMs = 0;
  #commandMs = 0;
  #graphMs = 0;
  #files: string[] | null = null;
  #invalidPlans = 0;
  #repoFiles: RepoFiles | null = null;
  #formatErrors = 0;
  /** The tools every request offers (the plan tool, or none): the same on every call, so that they never break a cached prefix. */
  #tools: readonly ToolSpec[] = [];
  /** VERIFY: the graphs of the repository's files, kept across verifications (re-parses changed files only). */
  readonly graphCache: GraphCache;
  /** Indexes in `messages` of the observations (command outputs): cut in the history once answered. */
  readonly observations = new Set<number>();
  readonly startedAt = new Date().toISOString();
  /** The run's conversation, as the provider's prompt cache keys it (OpenAI `prompt_cache_key`). */
  readonly conversationId = `graphplan-${randomUUID()}`;
  /** Answers to the last reply's tool calls, sent with the next user message (providers require one per call). */
  #toolAnswers = new Map<string, ToolResult>();

  /** `onChange` is called after every message and transition (the trajectory is written as it grows). */
  constructor(
    readonly config: AgentConfig,
    private readonly onChange: () => void = () => undefined,
    graphStore?: GraphStore,
  ) {
    this.graphCache = new GraphCache(graphStore ? { store: graphStore } : {});
  }

  /** The phase the run is in (null before the first `enter`). */
  get phase(): Phase | null {
    return this.#phase;
  }
  /**
   * The run's totals so far, as the trajectory records them: model calls and dollars; wall time spent
   * waiting for the model and running its commands (the rest is the harness's), and of the rest, building
   * code graphs (GRAPH, and VERIFY's graphs of the files and the repository), in whole milliseconds.
   */
  get totals(): Trajectory["totals"] {
    const ms = (n: number) => Math.round(n);
    const { modelCalls, costUsd, ...tokens } = this.#usage;
    return {
      costUsd,
      modelCalls,
      modelMs: ms(this.#modelMs),
      commandMs: ms(this.#commandMs),
      graphMs: ms(this.#graphMs),
      ...tokens,
      byPhase: structuredClone(this.#byPhase),
    };
  }
  /** The files EXPLORE settled on (null: it fell back, or has not settled yet). */
  get files(): string[] | null {
    return this.#files;
  }
  /** Replies without a valid plan so far (limits.max_plan_attempts). */
  get invalidPlans(): number {
    return this.#invalidPlans;
  }
  /** Replies in a row that broke the format (limits.max_format_errors). */
  get formatErrors(): number {
    return this.#formatErrors;
  }
  /** Whether the plan tool is offered: the config allows it and the model takes tools (set when the run starts). */
  get planTool(): boolean {
    return this.#tools.some((tool) => tool.name === PLAN_TOOL_NAME);
  }

  /**
   * The tools every request offers from now on. Offered from the first request to the last, not only in
   * PLAN: a provider's prompt cache keys on the tools first, so a tool list that changed would make every
   * later request pay for its whole prefix again.
   */
  offerTools(tools: readonly ToolSpec[]): void {
    this.#tools = tools;
  }

  /** EXPLORE's outcome: the files it settled on, or null when it fell back. */
  settleFiles(files: string[] | null): void {
    this.#files = files;
  }

  /** Counts one more reply without a valid plan; answers how many there have been. */
  countInvalidPlan(): number {
    return ++this.#invalidPlans;
  }

  /** VERIFY: the repository's source files, listed by `list` on the first call only and kept for the run. */
  repoFiles<E, R>(list: Effect.Effect<RepoFiles, E, R>): Effect.Effect<RepoFiles, E, R> {
    return Effect.suspend(() => {
      const known = this.#repoFiles;
      return known
        ? Effect.succeed(known)
        : Effect.tap(list, (files) => Effect.sync(() => void (this.#repoFiles = files)));
    });
  }

  /** Runs `effect`, counting its wall time as graph building (`graphMs`). */
  graphing<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> {
    return Effect.suspend(() => {
      const started = performance.now();
      return effect.pipe(Effect.ensuring(Effect.sync(() => void (this.#graphMs += performance.now() - started))));
    });
  }

  /** Enter `phase`, recording why. */
  enter(phase: Phase, reason: string): void {
    this.transitions.push({ from: this.#phase, to: phase, reason, atMessage: this.messages.length });
    this.#phase = phase;
    this.onChange();
  }

  say(role: "system" | "user", content: string, prompt?: PromptName): void {
    const toolResults = role === "user" ? this.takeToolResults() : [];
    this.messages.push({
      role,
      content,
      phase: this.#phase ?? "explore",
      at: new Date().toISOString(),
      ...(prompt ? { prompt } : {}),
      ...(toolResults.length ? { toolResults } : {}),
    });
    this.onChange();
  }

  /** Where the prompts tell the model to put its plan: the plan tool first when it is offered. */
  get planDestination(): string {
    return this.planTool
      ? `a call to the ${PLAN_TOOL_NAME} tool, or ${this.config.plan_destination}`
      : this.config.plan_destination;
  }

  /** Sets the answer to one of the last reply's tool calls (the rest are answered "received"). */
  answerToolCall(id: string, content: string, isError = false): void {
    if (this.#toolAnswers.has(id)) this.#toolAnswers.set(id, { id, content, ...(isError ? { isError } : {}) });
  }

  /** The answers to every tool call of the last reply, once: each call gets its set answer or "received". */
  private takeToolResults(): ToolResult[] {
    const results = [...this.#toolAnswers.values()];
    this.#toolAnswers.clear();
    return results;
  }

  /** Renders the prompt `name` with `view` (the markers and the timeout are always there) and sends it as the user. */
  prompt(name: PromptName, view: Record<string, unknown> = {}): void {
    this.say(name === "system" || name === "baseline_system" ? "system" : "user", this.render(name, view), name);
    if (name === "observation") this.observations.add(this.messages.length - 1);
  }

  render(name: PromptName, view: Record<string, unknown> = {}): string {
    return render(this.config.prompts[name], {
      ready_marker: READY_MARKER,
      submit_marker: SUBMIT_MARKER,
      timeout_seconds: this.config.command.timeout_seconds,
      ...view,
    });
  }

  /**
   * One model call with the whole conversation, the run's tools and its conversation id; the reply is
   * appended. Fails with `LimitsExceeded` before calling when `step_limit` calls were made or `cost_limit`
   * dollars spent (0 = no limit). `options.tools` replaces the run's tools for this call (RFSN's
   * proposers, some of which take no tools).
   */
  query(options: CompletionOptions = {}): Effect.Effect<string, LimitsExceeded | ModelError, LanguageModel> {
    return Effect.map(this.queryReply(options), (reply) => reply.content);
  }

  /** {@link query}, answering the whole reply (its tool calls too). */
  queryReply(options: CompletionOptions = {}): Effect.Effect<ModelReply, LimitsExceeded | ModelError, LanguageModel> {
    return Effect.gen({ self: this }, function* () {
      const { step_limit, cost_limit } = this.config.limits;
      if (step_limit > 0 && this.#usage.modelCalls >= step_limit) {
        return yield* new LimitsExceeded({
          limit: "step_limit",
          max: step_limit,
          modelCalls: this.#usage.modelCalls,
          costUsd: this.#usage.costUsd,
        });
      }
      if (cost_limit > 0 && this.#usage.costUsd >= cost_limit) {
        return yield* new LimitsExceeded({
          limit: "cost_limit",
          max: cost_limit,
          modelCalls: this.#usage.modelCalls,
          costUsd: this.#usage.costUsd,
        });
      }
      const wall = this.config.limits.wall_time_seconds;
      if (wall > 0 && Date.now() - Date.parse(this.startedAt) >= wall * 1000) {
        return yield* new LimitsExceeded({
          limit: "wall_time_seconds",
          max: wall,
          modelCalls: this.#usage.modelCalls,
          costUsd: this.#usage.costUsd,
        });
      }
      const model = yield* LanguageModel;
      const asked = performance.now();
      const reply = yield* model
        .complete(this.conversation(), { tools: this.#tools, conversationId: this.conversationId, ...options })
        .pipe(Effect.ensuring(Effect.sync(() => void (this.#modelMs += performance.now() - asked))));
      const phase = this.#phase ?? "explore";
      this.#usage = addCall(this.#usage, reply.usage, reply.costUsd);
      this.#byPhase[phase] = addCall(this.#byPhase[phase] ?? emptyTotals(), reply.usage, reply.costUsd);
      this.messages.push({
        role: "assistant",
        content: reply.content,
        phase: this.#phase ?? "explore",
        costUsd: reply.costUsd,
        usage: reply.usage,
        at: new Date().toISOString(),
        ...(reply.stopReason === undefined ? {} : { stopReason: reply.stopReason }),
        ...(reply.toolCalls?.length ? { toolCalls: reply.toolCalls } : {}),
        ...(reply.reasoning?.length ? { reasoning: reply.reasoning } : {}),
      });
      // Each call gets an answer (providers require one); PLAN sets the plan tool's. Outside PLAN it is not used.
      const unused = phase !== "plan" && phase !== "verify";
      for (const call of reply.toolCalls ?? [])
        this.#toolAnswers.set(call.id, {
          id: call.id,
          content: unused ? this.render("tool_not_now", { tool: call.name, phase }) : "received",
          ...(unused ? { isError: true } : {}),
        });
      this.onChange();
      return reply;
    });
  }

  /** Whether the last reply was cut off by the output token limit (anthropic `max_tokens`, openai `length`). */
  get lastReplyCutOff(): boolean {
    const last = this.messages.at(-1);
    return last?.role === "assistant" && (last.stopReason === "max_tokens" || last.stopReason === "length");
  }

  /**
   * The last reply could not be used (no command, no plan): tells the model why — that it was cut off
   * when it was, else with `prompt` — and fails with LimitsExceeded after `limits.max_format_errors`
   * such replies in a row.
   */
  formatError(prompt: () => void): Effect.Effect<void, LimitsExceeded> {
    return Effect.suspend(() => {
      this.#formatErrors++;
      const max = this.config.limits.max_format_errors;
      if (max > 0 && this.#formatErrors >= max) {
        return Effect.fail(
          new LimitsExceeded({
            limit: "max_format_errors",
            max,
            modelCalls: this.#usage.modelCalls,
            costUsd: this.#usage.costUsd,
          }),
        );
      }
      if (this.lastReplyCutOff)
        this.prompt("cut_off", {
          tokens: this.messages.at(-1)?.usage?.outputTokens ?? "?",
          phase: this.#phase ?? "explore",
        });
      else prompt();
      return Effect.void;
    });
  }

  /** A usable reply: the count of format errors in a row starts again. */
  formatOk(): void {
    this.#formatErrors = 0;
  }

  /**
   * The messages as the model gets them: consecutive user messages (an observation followed by a
   * phase's prompt, e.g. when EXPLORE runs out of steps) joined into one, so turns alternate for
   * every provider.
   */
  conversation(): ChatMessage[] {
    const out: ChatMessage[] = [];
    const lastReply = this.messages.findLastIndex((m) => m.role === "assistant");
    const keep = this.config.command.read_output_chars;
    for (const [index, message] of this.messages.entries()) {
      const { role } = message;
      // An observation the model has answered is resent cut: head and tail, as when it was first too long.
      const cut =
        keep > 0 && index < lastReply && this.observations.has(index)
          ? truncateOutput(message.content, keep)
          : undefined;
      const content = cut?.truncated
        ? `${cut.head}\n[... ${cut.elided} characters of this earlier output left out ...]\n${cut.tail}`
        : message.content;
      const last = out.at(-1);
      if (last && last.role === "user" && role === "user") last.content = `${last.content}\n\n${content}`;
      else
        out.push({
          role,
          content,
          ...(message.reasoning ? { reasoning: message.reasoning } : {}),
          ...(message.toolCalls ? { toolCalls: message.toolCalls } : {}),
          ...(message.toolResults ? { toolResults: message.toolResults } : {}),
        });
    }
    return out;
  }

  /** Runs the model's command in the sandbox, with the configured timeout. */
  exec(command: string): Effect.Effect<ExecResult, SandboxFailed, Sandbox> {
    const timeoutMs = this.config.command.timeout_seconds * 1000;
    return Effect.suspend(() => {
      const started = performance.now();
      return Effect.gen(function* () {
        const sandbox = yield* Sandbox;
        return yield* sandbox.exec(command, { timeoutMs });
      }).pipe(Effect.ensuring(Effect.sync(() => void (this.#commandMs += performance.now() - started))));
    });
  }

  /** The observation of a command's result (prompts.observation), its output cut per `command.max_output_chars`. */
  observe(result: ExecResult): void {
    // One trailing newline less: the template puts the output on lines of its own.
    const cut = truncateOutput(result.output.replace(/\n$/, ""), this.config.command.max_output_chars);
    this.prompt("observation", {
      exit_code: result.exitCode,
      timed_out: result.timedOut,
      output_chars: result.output.length,
      ...(cut.truncated
        ? { truncated: true, head: cut.head, tail: cut.tail, elided_chars: cut.elided }
        : { truncated: false, output: cut.output }),
    });
  }

  /** Index of the last message (the reply just received). */
  get lastIndex(): number {
    return this.messages.length - 1;
  }
}
