/**
 * The page: `#/` the run (one row per instance), `#/i/<id>` one instance. Rows come from `/api/run`;
 * an instance's trajectory is fetched only when it is opened. Keys: j/k next/previous instance,
 * n/p next/previous plan step, [ ] previous/next plan version, u or Escape back to the run, / filter.
 */
import { render } from "preact";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import type { CompareReport } from "../compare-format.js";
import type { RunIndex } from "../run.js";
import { CompareView } from "./compare-view.js";
import { InstanceView } from "./instance-view.js";
import { go, instanceHash, routeOf, type Route } from "./route.js";
import { filterRows, RunView, type Filter, type Sort } from "./run-view.js";

function App() {
  const [route, setRoute] = useState<Route>(routeOf(window.location.hash));
  const [index, setIndex] = useState<RunIndex | null>(null);
  // A bench compare directory's report (null: none, the directory is one run).
  const [comparison, setComparison] = useState<CompareReport | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState<Filter>({ text: "", repo: "", outcome: "" });
  const [sort, setSort] = useState<Sort>({ key: "id", descending: false });

  useEffect(() => {
    const onHash = () => setRoute(routeOf(window.location.hash));
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);

  const load = useCallback(() => {
    fetch("/api/run")
      .then((r) => (r.ok ? (r.json() as Promise<RunIndex>) : Promise.reject(new Error(`/api/run: ${r.status}`))))
      .then(setIndex, (e: Error) => setError(e.message));
  }, []);
  useEffect(load, [load]);
  useEffect(() => {
    fetch("/api/compare")
      .then((r) => (r.ok ? (r.json() as Promise<CompareReport>) : null))
      .then(setComparison, () => setComparison(null));
  }, []);

  const rows = useMemo(() => (index ? filterRows(index.rows, filter, sort) : []), [index, filter, sort]);

  // j/k walk the instances in the order the run view shows them (filtered and sorted).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (
        event.target instanceof HTMLInputElement ||
        event.target instanceof HTMLSelectElement ||
        event.metaKey ||
        event.ctrlKey ||
        event.altKey
      )
        return;
      if (route.view === "arm-instance" && (event.key === "u" || event.key === "Escape")) go("#/");
      if (route.view !== "instance") return;
      const at = rows.findIndex((r) => r.id === route.id);
      const next = event.key === "j" ? rows[at + 1] : event.key === "k" ? rows[at - 1] : undefined;
      if (next) go(instanceHash(next.id));
      if (event.key === "u" || event.key === "Escape") go("#/");
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [route, rows]);

  if (error) return <p class="error">Could not load the run: {error}</p>;
  if (!index || comparison === undefined) return <p class="loading">Loading the run…</p>;
  if (route.view === "arm-instance")
    return <InstanceView key={`${route.arm}/${route.id}`} id={route.id} arm={route.arm} position="" />;
  if (comparison && route.view === "run") return <CompareView report={comparison} />;
  if (route.view === "instance") {
    const at = rows.findIndex((r) => r.id === route.id);
    return <InstanceView key={route.id} id={route.id} position={at >= 0 ? `${at + 1} of ${rows.length}` : ""} />;
  }
  return (
    <RunView
      index={index}
      rows={rows}
      filter={filter}
      setFilter={setFilter}
      sort={sort}
      setSort={setSort}
      reload={load}
    />
  );
}

const root = document.getElementById("app");
if (root) render(<App />, root);
