/**
 * One instance: the task, the phases as a timeline, every plan version (its changes from the one
 * before, each step with the code it changed and the verifier's issues pinned to it), the executed
 * diff, the tests, and every message with its tokens and cost.
 */
import type { Trajectory } from "@graphplan/agent";
import { useEffect, useState } from "preact/hooks";
import type { InstanceDetail, PhaseUsage } from "../run.js";
import { Code, Diff, diffOf, languageOf } from "./code.js";
import { count, duration, money, tokens } from "./run-view.js";

type PlanRecord = Trajectory["plans"][number];
type Issue = NonNullable<PlanRecord["verify"]>["issues"][number];
type Message = Trajectory["messages"][number];

/** The steps of a plan as the model wrote it: a list, or `{plan: [...]}`. */
export function stepsOf(plan: unknown): unknown[] {
  if (Array.isArray(plan)) return plan;
  if (plan && typeof plan === "object" && Array.isArray((plan as { plan?: unknown }).plan))
    return (plan as { plan: unknown[] }).plan;
  return [];
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** `replace_node`, `template guard_clause`, `fragment insert_before`. */
function stepLabel(step: unknown): string {
  if (!isObject(step)) return "not an object";
  if (typeof step["op"] === "string") return step["op"];
  if (typeof step["template"] === "string") return `template ${step["template"]}`;
  if ("fragment" in step) return `fragment ${typeof step["action"] === "string" ? step["action"] : ""}`.trim();
  return Object.keys(step).join(", ") || "empty step";
}

/** Where the step acts: `locator`, `target`, `scope`, or the `file`/`path` of a text or file step, in the step or its params. */
function locatorsOf(step: unknown): Record<string, unknown> {
  if (!isObject(step)) return {};
  const params = isObject(step["params"]) ? step["params"] : {};
  const found: Record<string, unknown> = {};
  for (const source of [step, params])
    for (const key of ["locator", "target", "scope", "file", "path"])
      if (source[key] !== undefined && found[key] === undefined) found[key] = source[key];
  return found;
}

const json = (v: unknown): string => JSON.stringify(v, null, 2) ?? "undefined";

function Fold({
  text,
  lines = 30,
  chars = 4000,
  testid,
}: {
  text: string;
  lines?: number;
  chars?: number;
  testid?: string;
}) {
  const count = text.split("\n").length;
  if (count <= lines && text.length <= chars)
    return (
      <pre class="text" data-testid={testid}>
        {text}
      </pre>
    );
  return (
    <details class="fold" data-testid={testid}>
      <summary>
        {text.split("\n").slice(0, 3).join("\n").slice(0, 300)}
        <span class="more">
          {" "}
          … {count.toLocaleString("en-US")} lines, {text.length.toLocaleString("en-US")} characters
        </span>
      </summary>
      <pre class="text">{text}</pre>
    </details>
  );
}

function IssueLine({ issue }: { issue: Issue }) {
  return (
    <li class={`issue ${issue.severity}`} data-testid="issue">
      <span class="badge">{issue.severity}</span> <span class="check">{issue.check}</span> {issue.message}
      <div class="fix">fix: {issue.fix}</div>
    </li>
  );
}

function Step({
  index,
  step,
  record,
  selected,
}: {
  index: number;
  step: unknown;
  record: PlanRecord;
  selected: boolean;
}) {
  const issues = record.verify?.issues.filter((i) => i.step === index) ?? [];
  const places = record.verify?.places?.filter((p) => p.step === index) ?? [];
  const failedHere = record.apply && !record.apply.ok && record.apply.step === index ? record.apply.error : undefined;
  const state = issues.some((i) => i.severity === "error") || failedHere ? "error" : issues.length ? "warning" : "ok";
  return (
    <li class={`step ${state}${selected ? " selected" : ""}`} data-step={index} id={`step-${index}`}>
      <h4>
        Step {index + 1} <code>{stepLabel(step)}</code>
      </h4>
      <Code text={json(locatorsOf(step))} language="json" testid="locator" />
      {places.map((p) => (
        <div class="place" data-testid="place" key={`${p.file}:${p.line}`}>
          <div class="where">
            {p.file}, line {p.line}
          </div>
          <div class="sides">
            <div>
              <div class="side">before</div>
              <Code text={p.before} language={languageOf(p.file)} firstLine={p.line} />
            </div>
            <div>
              <div class="side">after</div>
              <Code text={p.after} language={languageOf(p.file)} firstLine={p.afterLine} />
            </div>
          </div>
        </div>
      ))}
      {issues.length > 0 && (
        <ul class="issues">
          {issues.map((i, k) => (
            <IssueLine key={k} issue={i} />
          ))}
        </ul>
      )}
      {failedHere && <div class="issue error">execution failed here: {failedHere}</div>}
      <details>
        <summary>the step as written</summary>
        <Code text={json(step)} language="json" />
      </details>
    </li>
  );
}

function Plans({
  plans,
  version,
  setVersion,
  step,
}: {
  plans: readonly PlanRecord[];
  version: number;
  setVersion: (v: number) => void;
  step: number;
}) {
  const record = plans[version];
  if (!record) return <p>No plan was written (the run did not reach PLAN, or fell back before it).</p>;
  const steps = stepsOf(record.plan);
  const previous = plans[version - 1];
  const changes = previous
    ? diffOf("plan.json", `version ${version}`, `version ${version + 1}`, json(previous.plan), json(record.plan))
    : "";
  const planWide = record.verify?.issues.filter((i) => i.step === null) ?? [];
  return (
    <div data-testid="plan">
      <nav class="versions" aria-label="plan versions">
        {plans.map((p, k) => (
          <button
            type="button"
            key={k}
            class={`${k === version ? "on " : ""}${!p.valid ? "invalid" : p.verify?.passed === false ? "failed" : "passed"}`}
            onClick={() => setVersion(k)}
            title={p.error ?? (p.verify ? (p.verify.passed ? "verified" : "verification failed") : "")}
          >
            v{k + 1}
          </button>
        ))}
        <span class="hint">[ ] versions · n p steps</span>
      </nav>
      <p class="meta" data-testid="plan-meta">
        Version {version + 1} of {plans.length} (attempt {record.attempt}, {record.channel ?? "no channel"}):{" "}
        {!record.valid ? (
          <b class="bad">not a valid plan: {record.error}</b>
        ) : record.verify ? (
          record.verify.passed ? (
            <b class="good">verified</b>
          ) : (
            <b class="bad">{record.verify.errors.length} verifier error(s)</b>
          )
        ) : (
          "not verified"
        )}
        {record.apply
          ? record.apply.ok
            ? ` · applied: ${record.apply.written.join(", ")}`
            : ` · execution failed: ${record.apply.error}`
          : ""}
      </p>
      {planWide.length > 0 && (
        <ul class="issues">
          {planWide.map((i, k) => (
            <IssueLine key={k} issue={i} />
          ))}
        </ul>
      )}
      {previous && (
        <details open class="changes" data-testid="plan-changes">
          <summary>Changes from version {version}</summary>
          {changes ? <Diff patch={changes} sideBySide /> : <p>identical to version {version}</p>}
        </details>
      )}
      <ol class="steps">
        {steps.map((s, k) => (
          <Step key={`${version}:${k}`} index={k} step={s} record={record} selected={k === step} />
        ))}
      </ol>
    </div>
  );
}

function Messages({ messages }: { messages: readonly Message[] }) {
  return (
    <ol class="messages">
      {messages.map((m, k) => (
        <li key={k} class={`message ${m.role}`} id={`message-${k}`} data-testid="message">
          <div class="head">
            <b>{m.role}</b> <span class="phase">{m.phase}</span>
            {m.at && <span class="at">{m.at.replace("T", " ").replace(/\.\d+Z$/, "Z")}</span>}
            {m.usage && (
              <span class="usage" data-testid="usage">
                {count(m.usage.inputTokens)} in · {count(m.usage.cacheReadTokens ?? 0)} cache read ·{" "}
                {count(m.usage.cacheWriteTokens ?? 0)} cache write · {count(m.usage.outputTokens)} out
                {m.costUsd !== undefined ? ` · ${money(m.costUsd)}` : ""}
                {m.stopReason ? ` · ${m.stopReason}` : ""}
              </span>
            )}
          </div>
          <Fold text={m.content} />
          {m.toolCalls?.map((c, j) => (
            <Fold key={`c${j}`} text={`tool call ${c.name}: ${json(c.input)}`} />
          ))}
          {m.toolResults?.map((r, j) => (
            <Fold key={`r${j}`} text={`tool result: ${r.content}`} />
          ))}
        </li>
      ))}
    </ol>
  );
}

/** What each phase spent: its model calls, tokens (in, of them cache reads and writes, out) and dollars, and the run's sum. */
function Spend({ phases }: { phases: readonly PhaseUsage[] }) {
  if (phases.length === 0) return <p>No model call was made.</p>;
  const sum = (f: (p: PhaseUsage) => number) => phases.reduce((s, p) => s + f(p), 0);
  const cells = (f: (p: PhaseUsage) => number, show: (n: number) => string = count) => ({ f, show });
  const columns = [
    cells((p) => p.modelCalls),
    cells((p) => p.inputTokens),
    cells((p) => p.cacheReadTokens),
    cells((p) => p.cacheWriteTokens),
    cells((p) => p.outputTokens),
    cells((p) => p.costUsd, money),
  ];
  return (
    <table class="spend" data-testid="spend">
      <thead>
        <tr>
          <th>phase</th>
          <th class="num">model calls</th>
          <th class="num">tokens in</th>
          <th class="num">cache read</th>
          <th class="num">cache write</th>
          <th class="num">tokens out</th>
          <th class="num">cost</th>
        </tr>
      </thead>
      <tbody>
        {phases.map((p) => (
          <tr key={p.phase} data-phase={p.phase}>
            <td>{p.phase}</td>
            {columns.map((c, k) => (
              <td key={k} class="num">
                {c.show(c.f(p))}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr data-phase="all">
          <th>all</th>
          {columns.map((c, k) => (
            <td key={k} class="num">
              {c.show(sum(c.f))}
            </td>
          ))}
        </tr>
      </tfoot>
    </table>
  );
}

function Tests({ evaluation }: { evaluation: NonNullable<InstanceDetail["evaluation"]> }) {
  const status = evaluation.result?.tests_status;
  return (
    <div data-testid="tests">
      <p>
        {evaluation.result ? (
          evaluation.result.resolved ? (
            <b class="good">resolved</b>
          ) : (
            <b class="bad">
              unresolved
              {evaluation.result.patch_successfully_applied
                ? ""
                : " (the patch did not apply, or the tests did not run)"}
            </b>
          )
        ) : (
          <b class="bad">no report: the evaluation ended in an error (see the test output and run_instance.log)</b>
        )}
      </p>
      {status &&
        (["FAIL_TO_PASS", "PASS_TO_PASS", "FAIL_TO_FAIL", "PASS_TO_FAIL"] as const).map((kind) =>
          status[kind].success.length + status[kind].failure.length > 0 ? (
            <div class="tests" key={kind}>
              <h4>
                {kind}: {status[kind].success.length} passed, {status[kind].failure.length} failed
              </h4>
              <ul>
                {status[kind].failure.map((t) => (
                  <li key={t} class="fail">
                    ✗ {t}
                  </li>
                ))}
                {status[kind].success.map((t) => (
                  <li key={t} class="pass">
                    ✓ {t}
                  </li>
                ))}
              </ul>
            </div>
          ) : null,
        )}
      {evaluation.testOutput !== null && (
        <details class="fold">
          <summary>
            test output ({evaluation.testOutputLength.toLocaleString("en-US")} characters
            {evaluation.testOutputLength > evaluation.testOutput.length
              ? `; the last ${evaluation.testOutput.length.toLocaleString("en-US")}`
              : ""}
            )
          </summary>
          <pre class="text">{evaluation.testOutput}</pre>
        </details>
      )}
    </div>
  );
}

/** Long on purpose: one page component: its state (the instance, the plan version, the selected step) and its key bindings are read by every part of its markup. */
export function InstanceView({ id, position, arm }: { id: string; position: string; arm?: string }) {
  const [detail, setDetail] = useState<InstanceDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [step, setStep] = useState(-1);

  useEffect(() => {
    fetch(
      arm === undefined
        ? `/api/instance/${encodeURIComponent(id)}`
        : `/api/arm/${encodeURIComponent(arm)}/instance/${encodeURIComponent(id)}`,
    )
      .then((r) =>
        r.ok
          ? (r.json() as Promise<InstanceDetail>)
          : Promise.reject(new Error(r.status === 404 ? `${id} is not in this run` : `HTTP ${r.status}`)),
      )
      .then(
        (d) => {
          setDetail(d);
          setVersion(Math.max(0, (d.trajectory?.plans.length ?? 1) - 1));
        },
        (e: Error) => setError(e.message),
      );
  }, [id, arm]);

  const plans = detail?.trajectory?.plans ?? [];
  const stepCount = stepsOf(plans[version]?.plan).length;

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.target instanceof HTMLInputElement || event.metaKey || event.ctrlKey || event.altKey) return;
      let next = step;
      if (event.key === "n") next = Math.min(stepCount - 1, step + 1);
      else if (event.key === "p") next = Math.max(0, step - 1);
      else if (event.key === "]" && version + 1 < plans.length) return (setVersion(version + 1), setStep(-1));
      else if (event.key === "[" && version > 0) return (setVersion(version - 1), setStep(-1));
      else return;
      setStep(next);
      document.getElementById(`step-${next}`)?.scrollIntoView({ block: "center" });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [step, stepCount, version, plans.length]);

  if (error) return <p class="error">{error}</p>;
  if (!detail) return <p class="loading">Loading {id}…</p>;
  const { row, trajectory: t, evaluation } = detail;
  return (
    <main class="instance">
      <header>
        <a href="#/">{arm === undefined ? "← run" : "← comparison"}</a>{" "}
        <span class="hint">
          {position}
          {arm === undefined ? " · j k instances" : ""} · u back
        </span>
        <h1 data-testid="instance-id">
          {row.id}
          {arm !== undefined && (
            <span class="arm" data-testid="arm">
              {" "}
              · arm {arm}
            </span>
          )}
        </h1>
        <p class="summary">
          <span class={`status ${row.status}`}>{row.status}</span>{" "}
          <span class={`eval ${row.evaluation ?? "none"}`}>{row.evaluation ?? "not evaluated"}</span> · phase reached{" "}
          {row.phase ?? "—"} · {row.revisions} revision(s) · {row.steps} model calls · {tokens(row.inputTokens)} tokens
          in, {tokens(row.outputTokens)} out · {money(row.costUsd)} · {duration(row.ms)}
        </p>
        {row.exitReason && <p class="reason">{row.exitReason}</p>}
        {detail.trajectoryError && <p class="error">The trajectory could not be read: {detail.trajectoryError}</p>}
      </header>
      {t && (
        <>
          <section>
            <h2>Task</h2>
            <Fold text={t.instance.task} lines={15} testid="task" />
          </section>
          <section>
            <h2>Phases</h2>
            <ol class="timeline" data-testid="timeline">
              {t.transitions.map((tr, k) => (
                <li key={k} title={tr.reason}>
                  <a
                    href={`#/i/${encodeURIComponent(id)}`}
                    onClick={(e) => (
                      e.preventDefault(), document.getElementById(`message-${tr.atMessage}`)?.scrollIntoView()
                    )}
                  >
                    {tr.to}
                  </a>
                  <span class="why">{tr.reason}</span>
                </li>
              ))}
            </ol>
          </section>
          <section>
            <h2>Spend by phase</h2>
            <Spend phases={detail.phases} />
          </section>
          <section>
            <h2>Plans</h2>
            <Plans plans={plans} version={version} setVersion={(v) => (setVersion(v), setStep(-1))} step={step} />
          </section>
          <section>
            <h2>Executed diff</h2>
            {t.patch ? <Diff patch={t.patch} testid="patch" /> : <p>Nothing was submitted.</p>}
          </section>
        </>
      )}
      {evaluation && (
        <section>
          <h2>Tests</h2>
          <Tests evaluation={evaluation} />
          {!t && evaluation.patch && <Diff patch={evaluation.patch} testid="patch" />}
        </section>
      )}
      {t && (
        <section>
          <h2>
            Messages ({t.messages.length}; {t.totals.modelCalls} model calls, {money(t.totals.costUsd)})
          </h2>
          <Messages messages={t.messages} />
        </section>
      )}
    </main>
  );
}
