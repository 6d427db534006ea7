/** The run: totals, where instances ended (a bar chart), and one sortable, filterable row per instance. */
import { useEffect, useRef } from "preact/hooks";
import type { RunIndex, RunRow } from "../run.js";
import { go, instanceHash } from "./route.js";

export interface Filter {
  readonly text: string;
  readonly repo: string;
  readonly outcome: string;
}

type SortKey =
  | "id"
  | "repo"
  | "status"
  | "evaluation"
  | "phase"
  | "revisions"
  | "steps"
  | "inputTokens"
  | "cacheReadTokens"
  | "cacheWriteTokens"
  | "outputTokens"
  | "costUsd"
  | "ms";

export interface Sort {
  readonly key: SortKey;
  readonly descending: boolean;
}

const COLUMNS: readonly { readonly key: SortKey; readonly label: string; readonly numeric?: boolean }[] = [
  { key: "id", label: "instance" },
  { key: "repo", label: "repo" },
  { key: "status", label: "status" },
  { key: "evaluation", label: "tests" },
  { key: "phase", label: "phase reached" },
  { key: "revisions", label: "revisions", numeric: true },
  { key: "steps", label: "model calls", numeric: true },
  { key: "inputTokens", label: "tokens in", numeric: true },
  { key: "cacheReadTokens", label: "cache read", numeric: true },
  { key: "cacheWriteTokens", label: "cache write", numeric: true },
  { key: "outputTokens", label: "tokens out", numeric: true },
  { key: "costUsd", label: "cost", numeric: true },
  { key: "ms", label: "time", numeric: true },
];

/** The rows the filter keeps, in the sort's order (ties by id). */
export function filterRows(rows: readonly RunRow[], filter: Filter, sort: Sort): RunRow[] {
  const text = filter.text.trim().toLowerCase();
  const kept = rows.filter(
    (r) =>
      (!filter.repo || r.repo === filter.repo) &&
      (!filter.outcome || r.outcome === filter.outcome) &&
      (!text || `${r.id} ${r.status} ${r.outcome} ${r.exitReason}`.toLowerCase().includes(text)),
  );
  const value = (r: RunRow): string | number => {
    const v = r[sort.key];
    return v === null ? -1 : v;
  };
  return kept.sort((a, b) => {
    const x = value(a);
    const y = value(b);
    const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
    return (sort.descending ? -order : order) || a.id.localeCompare(b.id);
  });
}

export const money = (usd: number): string => `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
export const duration = (ms: number | null): string =>
  ms === null
    ? "—"
    : ms < 60_000
      ? `${(ms / 1000).toFixed(1)} s`
      : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
/** A token count for people: 950, 1.2k, 35k, 1.2M. */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  const [v, unit] = n < 999_500 ? [n / 1e3, "k"] : [n / 1e6, "M"];
  return `${v < 9.95 ? v.toFixed(1).replace(/\.0$/, "") : Math.round(v)}${unit}`;
}
/** Exact, with thousands separators: 5,201. */
export const count = (n: number): string => n.toLocaleString("en-US");
const percent = (n: number, of: number): string => (of === 0 ? "—" : `${((100 * n) / of).toFixed(1)}%`);

interface Props {
  readonly index: RunIndex;
  readonly rows: readonly RunRow[];
  readonly filter: Filter;
  readonly setFilter: (f: Filter) => void;
  readonly sort: Sort;
  readonly setSort: (s: Sort) => void;
  readonly reload: () => void;
}

/** Long on purpose: one page component: the totals, the filters, the sort and the table share its props and the search box. */
export function RunView({ index, rows, filter, setFilter, sort, setSort, reload }: Props) {
  const { totals } = index;
  const search = useRef<HTMLInputElement>(null);
  const repos = [...new Set(index.rows.map((r) => r.repo).filter(Boolean))].sort();
  const widest = Math.max(1, ...totals.outcomes.map((o) => o.count));

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "/" && document.activeElement !== search.current) {
        event.preventDefault();
        search.current?.focus();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  return (
    <main class="run">
      <header>
        <h1>
          Run <code>{index.path}</code>
        </h1>
        <button type="button" onClick={reload} title="read the run's files again (a live run grows)">
          reload
        </button>
      </header>
      <section class="totals" data-testid="totals">
        <div>
          <b>{totals.instances}</b> instances
        </div>
        <div>
          <b>{totals.submitted}</b> submitted
        </div>
        <div>
          <b>{totals.evaluated ? percent(totals.resolved, totals.instances) : "—"}</b> resolved
          {totals.evaluated
            ? ` (${totals.resolved} of ${totals.instances}; ${totals.evaluated} evaluated)`
            : " (not evaluated)"}
        </div>
        <div>
          <b>{money(totals.costUsd)}</b> cost
        </div>
        <div data-testid="total-tokens" title={`${count(totals.inputTokens)} in, ${count(totals.outputTokens)} out`}>
          <b>{tokens(totals.inputTokens)}</b> tokens in (
          {totals.inputTokens ? percent(totals.cacheReadTokens, totals.inputTokens) : "—"} cache reads
          {totals.cacheWriteTokens ? `, ${percent(totals.cacheWriteTokens, totals.inputTokens)} cache writes` : ""}),{" "}
          <b>{tokens(totals.outputTokens)}</b> out
        </div>
        <div>
          <b>{duration(totals.ms)}</b> agent time
        </div>
      </section>
      <section class="chart" data-testid="outcomes" aria-label="where instances ended">
        <h2>Where instances ended</h2>
        {totals.outcomes.map((o) => (
          <button
            type="button"
            class={`bar${filter.outcome === o.outcome ? " on" : ""}`}
            key={o.outcome}
            onClick={() => setFilter({ ...filter, outcome: filter.outcome === o.outcome ? "" : o.outcome })}
            title="show only these (click again for all)"
          >
            <span class="label">{o.outcome}</span>
            <span class="fill" style={{ width: `${(100 * o.count) / widest}%` }} />
            <span class="count">{o.count}</span>
          </button>
        ))}
      </section>
      <section class="filters">
        <input
          ref={search}
          type="search"
          placeholder="filter: id, status, reason  ( / )"
          value={filter.text}
          onInput={(e) => setFilter({ ...filter, text: (e.target as HTMLInputElement).value })}
          aria-label="filter"
        />
        <select
          value={filter.repo}
          onChange={(e) => setFilter({ ...filter, repo: (e.target as HTMLSelectElement).value })}
          aria-label="repository"
        >
          <option value="">every repository</option>
          {repos.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <select
          value={filter.outcome}
          onChange={(e) => setFilter({ ...filter, outcome: (e.target as HTMLSelectElement).value })}
          aria-label="outcome"
        >
          <option value="">every outcome</option>
          {totals.outcomes.map((o) => (
            <option key={o.outcome} value={o.outcome}>
              {o.outcome}
            </option>
          ))}
        </select>
        <span data-testid="shown">
          {rows.length} of {index.rows.length} shown
        </span>
      </section>
      <table data-testid="rows">
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th
                key={c.key}
                class={c.numeric ? "num" : ""}
                aria-sort={sort.key === c.key ? (sort.descending ? "descending" : "ascending") : "none"}
              >
                <button
                  type="button"
                  onClick={() =>
                    setSort({ key: c.key, descending: sort.key === c.key ? !sort.descending : !!c.numeric })
                  }
                >
                  {c.label}
                  {sort.key === c.key ? (sort.descending ? " ▼" : " ▲") : ""}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} data-id={r.id} onClick={() => go(instanceHash(r.id))}>
              <td>
                <a href={instanceHash(r.id)}>{r.id}</a>
              </td>
              <td>{r.repo}</td>
              <td>
                <span class={`status ${r.status}`}>{r.status}</span>
              </td>
              <td>
                <span class={`eval ${r.evaluation ?? "none"}`}>{r.evaluation ?? "—"}</span>
              </td>
              <td>{r.phase ?? "—"}</td>
              <td class="num">{r.revisions}</td>
              <td class="num">{r.steps}</td>
              <td class="num">{count(r.inputTokens)}</td>
              <td class="num">{count(r.cacheReadTokens)}</td>
              <td class="num">{count(r.cacheWriteTokens)}</td>
              <td class="num">{count(r.outputTokens)}</td>
              <td class="num">{money(r.costUsd)}</td>
              <td class="num">{duration(r.ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </main>
  );
}
