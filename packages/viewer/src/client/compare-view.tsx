/**
 * A `bench compare` directory: the arms side by side (resolved, how runs ended, calls, tokens in / cache
 * read / cache write / out, cost, time, the graphplan arm's plan figures), the paired table (both, only A,
 * only B, neither) with McNemar's p and the bootstrap interval, the arms' spend as ratios A / B, and one row
 * per instance with both arms' outcomes, each a link to that arm's trajectory (`#/a/<arm>/i/<id>`), and what
 * A spent more or less than B on it.
 */
import type { ArmResult, CompareReport, InstanceArm, SpendDifference, SpendRatio } from "../compare-format.js";
import { armInstanceHash } from "./route.js";
import { count, duration, money, tokens } from "./run-view.js";

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;
const points = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(100 * x).toFixed(1)}`;

function ArmCell({ arm, id, outcome }: { arm: string; id: string; outcome: InstanceArm }) {
  const text = `${outcome.eval.replace("_", " ")} · ${outcome.ending}`;
  return (
    <td class={`pair ${outcome.resolved ? "resolved" : "unresolved"}`} data-arm={arm}>
      {outcome.trajectory ? <a href={armInstanceHash(arm, id)}>{text}</a> : <span>{text}</span>}
      <span class="hint">
        {" "}
        {outcome.model_calls} calls · {tokens(outcome.input_tokens)} in · {tokens(outcome.output_tokens)} out ·{" "}
        {money(outcome.cost_usd)}
      </span>
    </td>
  );
}

const signed = (n: number, show: (n: number) => string) => `${n > 0 ? "+" : n < 0 ? "−" : "±"}${show(Math.abs(n))}`;

/** What A spent more (+) or less (−) than B on one instance: dollars, input and output tokens. */
function DifferenceCell({ d }: { d: SpendDifference | undefined }) {
  if (!d) return <td class="difference">—</td>;
  return (
    <td class="difference" data-testid="difference">
      {signed(d.cost_usd, money)} · {signed(d.input_tokens, count)} in · {signed(d.output_tokens, count)} out
    </td>
  );
}

/** The arms' totals as ratios A / B, with which arm cost less on how many instances. */
function Ratios({
  a,
  b,
  ratio,
  cheaper,
}: {
  a: string;
  b: string;
  ratio: SpendRatio;
  cheaper?: { a: number; b: number; same: number } | undefined;
}) {
  const times = (x: number | null) => (x === null ? "–" : `×${x.toFixed(2)}`);
  const none = Object.values(ratio).includes(null) ? ` (–: ${b}'s is 0)` : "";
  return (
    <p data-testid="spend-ratio">
      {a} / {b}: input <b>{times(ratio.input_tokens)}</b> (uncached {times(ratio.uncached_input_tokens)}, cache reads{" "}
      {times(ratio.cache_read_tokens)}, cache writes {times(ratio.cache_write_tokens)}), output{" "}
      <b>{times(ratio.output_tokens)}</b>, dollars <b>{times(ratio.cost_usd)}</b>
      {none}.
      {cheaper ? ` ${a} cost less on ${cheaper.a}, ${b} on ${cheaper.b}, the same on ${cheaper.same} instance(s).` : ""}
    </p>
  );
}

/** Long on purpose: one page component: the summary, the paired table and the rows share the report. */
export function CompareView({ report }: { report: CompareReport }) {
  const [a, b] = report.spec.arms;
  const r = report.results;
  if (!r) {
    return (
      <main class="compare">
        <h1>
          Comparison of {a.label} and {b.label}
        </h1>
        <p class="loading" data-testid="running">
          The comparison is still running: its arms have not both been graded yet.
        </p>
      </main>
    );
  }
  const [ra, rb] = r.arms;
  const rows: ReadonlyArray<readonly [string, (arm: ArmResult) => string]> = [
    ["strategy", (arm) => `${arm.strategy}${arm.config ? ` (${arm.config})` : ""}`],
    ["resolved", (arm) => `${arm.resolved} of ${arm.instances} (${percent(arm.resolve_rate)})`],
    [
      "ended: submitted / fallback / limit / failed",
      (arm) => `${arm.endings.submitted} / ${arm.endings.fallback} / ${arm.endings.limit} / ${arm.endings.failed}`,
    ],
    ["model calls", (arm) => String(arm.model_calls)],
    ["tokens in", (arm) => count(arm.input_tokens)],
    ["of it cache reads", (arm) => count(arm.cache_read_tokens)],
    ["of it cache writes", (arm) => count(arm.cache_write_tokens)],
    ["tokens out", (arm) => count(arm.output_tokens)],
    ["cost", (arm) => money(arm.cost_usd)],
    ["agent time (sum)", (arm) => duration(arm.agent_ms)],
    [
      "plans verified first time",
      (arm) => (arm.graphplan ? `${arm.graphplan.verified_first_time} of ${arm.graphplan.planned}` : "—"),
    ],
    ["plan revisions", (arm) => (arm.graphplan ? String(arm.graphplan.revisions) : "—")],
    [
      "fallbacks by phase",
      (arm) =>
        arm.graphplan
          ? Object.entries(arm.graphplan.fallbacks_by_phase)
              .map(([phase, n]) => `${phase} ${n}`)
              .join(", ") || "none"
          : "—",
    ],
  ];
  const p = r.paired;
  return (
    <main class="compare">
      <header>
        <h1>
          Comparison of {a.label} and {b.label}
        </h1>
        <p class="summary">
          {r.instances} instances · model {report.spec.provider ?? "?"}
          {report.spec.model ? `:${report.spec.model}` : ""}
        </p>
      </header>
      <table class="arms" data-testid="arms">
        <thead>
          <tr>
            <th />
            <th>{ra.label}</th>
            <th>{rb.label}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([name, f]) => (
            <tr key={name}>
              <th>{name}</th>
              <td>{f(ra)}</td>
              <td>{f(rb)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <section class="paired">
        <h2>Paired outcomes</h2>
        <table data-testid="paired">
          <thead>
            <tr>
              <th />
              <th>{b.label} resolved</th>
              <th>{b.label} not</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th>{a.label} resolved</th>
              <td data-cell="both">{p.both}</td>
              <td data-cell="onlyA">{p.onlyA}</td>
            </tr>
            <tr>
              <th>{a.label} not</th>
              <td data-cell="onlyB">{p.onlyB}</td>
              <td data-cell="neither">{p.neither}</td>
            </tr>
          </tbody>
        </table>
        <p data-testid="significance">
          Difference in resolve rate ({a.label} − {b.label}): <b>{points(r.difference)} points</b>
          {r.interval
            ? `, ${Math.round(r.interval.level * 100)}% bootstrap interval [${points(r.interval.low)}, ${points(r.interval.high)}] (${r.interval.resamples} resamples, seed ${r.interval.seed})`
            : ""}
          . McNemar's exact test: <b>p = {Number(r.mcnemar_p.toPrecision(3))}</b> ({p.onlyA} vs {p.onlyB} discordant
          pairs).
        </p>
      </section>
      {r.spend_ratio && (
        <section class="spend">
          <h2>Spend</h2>
          <Ratios a={a.label} b={b.label} ratio={r.spend_ratio} cheaper={r.cheaper} />
        </section>
      )}
      <table data-testid="pairs">
        <thead>
          <tr>
            <th>instance</th>
            <th>{a.label}</th>
            <th>{b.label}</th>
            <th>
              {a.label} − {b.label}
            </th>
          </tr>
        </thead>
        <tbody>
          {r.per_instance.map((row) => (
            <tr key={row.instance_id} data-id={row.instance_id}>
              <td>{row.instance_id}</td>
              <ArmCell arm={a.label} id={row.instance_id} outcome={row.arms[0]} />
              <ArmCell arm={b.label} id={row.instance_id} outcome={row.arms[1]} />
              <DifferenceCell d={row.difference} />
            </tr>
          ))}
        </tbody>
      </table>
    </main>
  );
}
