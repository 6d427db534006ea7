/**
 * `pnpm -s bench --dir DIR [--depth 4] [--keys 300]`: every JSON, YAML and TOML file under DIR; in
 * each, every key and list item down to `--depth` (at most `--keys` a file, spread evenly), one at a
 * time: `delete_key` it; `set_key` it (a scalar to another value of its type, a mapping gets a new
 * key, a list gets an item by `append_item`). Judged by the format's own reader in Python (`json`,
 * `tomllib`, PyYAML with YAML 1.2's booleans): the result loads, and its data is exactly the data
 * before with that one change; and the edit's bytes lie within the key's own lines (for a new key or
 * item, within its container's lines). Refusals are counted by error.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import {
  dataFormatOf,
  loadDataGrammars,
  parseData,
  type DataFormat,
  type DataNode,
  type DataRange,
} from "@graphplan/graph";
import { formatKeyPath, type KeySegment } from "@graphplan/locators";
import { dataStepEdits, type DataOp } from "@graphplan/catalog";
import { Command, InvalidArgumentError } from "commander";

const whole = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("a positive whole number");
  return n;
};
const options = new Command("bench")
  .requiredOption("--dir <dir>", "directory holding the data files (walked; node_modules and .git skipped)")
  .option("--depth <n>", "deepest key path, in segments", whole, 4)
  .option("--keys <n>", "keys tried per file at most", whole, 300)
  .parse()
  .opts<{ dir: string; depth: number; keys: number }>();

const ORACLE = `
import json, re, sys, tomllib, yaml
class Loader(yaml.SafeLoader): pass
Loader.yaml_implicit_resolvers = {k: [r for r in v if r[0] != "tag:yaml.org,2002:bool"] for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
def load(fmt, text):
    if fmt == "json": return json.loads(text)
    if fmt == "toml": return tomllib.loads(text)
    return yaml.load(text, Loader=Loader)
out = []
for fmt, text in json.load(sys.stdin):
    try: out.append({"ok": True, "data": load(fmt, text)})
    except Exception as e: out.append({"ok": False, "error": type(e).__name__ + ": " + str(e).splitlines()[0]})
print(json.dumps(out, default=str))
`;

type Loaded = { ok: true; data: unknown } | { ok: false; error: string };
function oracle(format: DataFormat, texts: readonly string[]): Loaded[] {
  const output = execFileSync("python3", ["-c", ORACLE], {
    input: JSON.stringify(texts.map((t) => [format, t])),
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  return JSON.parse(output) as Loaded[];
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === "node_modules" || name === ".git") return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return walk(path);
    return dataFormatOf(path) ? [path] : [];
  });
}

interface Target {
  readonly segments: KeySegment[];
  readonly node: DataNode;
  /** The text of the key (its spans) and of its container. */
  readonly spans: readonly DataRange[];
  readonly container: DataRange;
}

function targets(root: DataNode | undefined, depth: number): Target[] {
  const out: Target[] = [];
  const visit = (node: DataNode, segments: KeySegment[]): void => {
    if (segments.length >= depth) return;
    if (node.type === "mapping")
      for (const e of node.entries)
        add({ segments: [...segments, { key: e.key }], node: e.value, spans: e.spans, container: node });
    if (node.type === "sequence")
      node.items.forEach((item, index) =>
        add({ segments: [...segments, { index }], node: item.value, spans: item.spans, container: node }),
      );
  };
  const add = (t: Target): void => {
    out.push(t);
    visit(t.node, t.segments);
  };
  if (root) visit(root, []);
  return out;
}

const lineStart = (s: string, i: number) => s.lastIndexOf("\n", i - 1) + 1;
const lineAfter = (s: string, i: number) => {
  if (i > 0 && s[i - 1] === "\n") return i;
  const n = s.indexOf("\n", i);
  return n < 0 ? s.length : n + 1;
};

/**
 * TOML: a table that only dotted keys or sub-sections made, and an array of tables, exist only
 * through what defines them: emptied by the delete, they are gone from what tomllib reads.
 */
function dropEmptiedImplicit(data: any, root: DataNode | undefined, segments: readonly KeySegment[]): void {
  for (let n = segments.length - 1; n > 0; n--) {
    let node: DataNode | undefined = root;
    for (const s of segments.slice(0, n)) {
      if (!node) break;
      node =
        "key" in s
          ? node.type === "mapping"
            ? node.entries.find((e) => e.key === s.key)?.value
            : undefined
          : node.type === "sequence"
            ? node.items[s.index]?.value
            : undefined;
    }
    const holder = segments.slice(0, n).reduce((x: any, s) => ("key" in s ? x[s.key] : x[s.index]), data);
    const implicit =
      (node?.type === "mapping" && (node.style === "dotted" || (node.style === "table" && !node.header))) ||
      (node?.type === "sequence" && node.style === "tables");
    const emptied = Array.isArray(holder)
      ? holder.length === 0
      : holder && typeof holder === "object" && Object.keys(holder).length === 0;
    if (!implicit || !emptied) return;
    const up = segments[n - 1]!;
    const outer = segments.slice(0, n - 1).reduce((x: any, s) => ("key" in s ? x[s.key] : x[s.index]), data);
    if ("key" in up) delete outer[up.key];
    else outer.splice(up.index, 1);
  }
}

/** The step on one target: its op, value, and the data it should leave. */
function plan(
  target: Target,
  format: DataFormat,
): { op: DataOp; path: string; value?: unknown; change: (data: any) => void; region: "key" | "container" } | undefined {
  const path = formatKeyPath(target.segments);
  const node = target.node;
  const parentOf = (data: any) =>
    target.segments.slice(0, -1).reduce((d: any, s) => ("key" in s ? d[s.key] : d[s.index]), data);
  const last = target.segments[target.segments.length - 1]!;
  const slot = "key" in last ? last.key : last.index;
  if (node.type === "scalar") {
    const v = node.value;
    const value =
      typeof v === "string"
        ? `${v}-gp`
        : typeof v === "number"
          ? Number.isInteger(v)
            ? v + 1
            : v + 0.5
          : typeof v === "boolean"
            ? !v
            : format === "toml"
              ? undefined
              : "gp";
    if (value === undefined) return undefined;
    return { op: "set_key", path, value, change: (d) => (parentOf(d)[slot] = value), region: "key" };
  }
  if (node.type === "mapping")
    return {
      op: "set_key",
      path: `${path}.graphplan_new`,
      value: "gp",
      change: (d) => (parentOf(d)[slot].graphplan_new = "gp"),
      region: "key",
    };
  const first = node.items[0]?.value;
  const value = first?.type === "mapping" ? { graphplan: "gp" } : "gp";
  if (node.style === "tables" && typeof value === "string") return undefined;
  return { op: "append_item", path, value, change: (d) => parentOf(d)[slot].push(value), region: "key" };
}

interface Tally {
  tried: number;
  exact: number;
  refused: Map<string, number>;
  wrong: number;
  unloadable: number;
  outside: number;
  outsideContainer: number;
  examples: string[];
  outsideExamples: string[];
}
const tally = (): Tally => ({
  tried: 0,
  exact: 0,
  refused: new Map(),
  wrong: 0,
  unloadable: 0,
  outside: 0,
  outsideContainer: 0,
  examples: [],
  outsideExamples: [],
});
const totals = { set: tally(), delete: tally() };
const perFormat = new Map<DataFormat, { files: number; keys: number }>();

/** Equal data, whatever the order of keys (a new key sits where the file puts it, not last). */
const canonical = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(canonical)
    : v && typeof v === "object"
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
        )
      : v;
const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

await loadDataGrammars();
const files = walk(options.dir).sort();
for (const file of files) {
  const format = dataFormatOf(file)!;
  const source = readFileSync(file, "utf8");
  const name = relative(options.dir, file);
  const doc = parseData(source, format);
  const [before] = oracle(format, [source]);
  if (doc.errors.length > 0 || !before!.ok) {
    console.log(`skipped ${name}: ${doc.errors.length ? "GraphPlan cannot read it" : "Python cannot read it"}`);
    continue;
  }
  let all = targets(doc.root, options.depth);
  if (all.length > options.keys) all = all.filter((_, i) => i % Math.ceil(all.length / options.keys) === 0);
  const f = perFormat.get(format) ?? { files: 0, keys: 0 };
  perFormat.set(format, { files: f.files + 1, keys: f.keys + all.length });
  const runs: {
    kind: "set" | "delete";
    text: string;
    expected: unknown;
    allowed: DataRange;
    around: DataRange;
    edit: DataRange;
    label: string;
  }[] = [];
  for (const target of all) {
    const path = formatKeyPath(target.segments);
    const steps = [
      {
        kind: "delete" as const,
        op: "delete_key" as DataOp,
        path,
        value: undefined as unknown,
        change: (d: any) => {
          const parent = target.segments.slice(0, -1).reduce((x: any, s) => ("key" in s ? x[s.key] : x[s.index]), d);
          const last = target.segments[target.segments.length - 1]!;
          if ("key" in last) delete parent[last.key];
          else parent.splice(last.index, 1);
          if (format === "toml") dropEmptiedImplicit(d, doc.root, target.segments);
        },
        region: "key" as const,
      },
      ...(() => {
        const p = plan(target, format);
        return p ? [{ kind: "set" as const, ...p }] : [];
      })(),
    ];
    for (const step of steps) {
      const t = totals[step.kind];
      t.tried++;
      try {
        const edits = dataStepEdits(step.op, file, source, step.path, step.value);
        const text = edits.length
          ? source.slice(0, edits[0]!.start) + edits[0]!.text + source.slice(edits[0]!.end)
          : source;
        const expected = structuredClone(before!.data);
        step.change(expected);
        const linesOf = (spans: readonly DataRange[]): DataRange => {
          const start = lineStart(source, Math.min(...spans.map((s) => s.start)));
          // The separator of the previous element may go too: the line before is allowed.
          return {
            start: lineStart(source, Math.max(0, start - 1)),
            end: lineAfter(source, Math.max(...spans.map((s) => s.end))),
          };
        };
        const allowed = linesOf(target.spans);
        const around = linesOf([target.container]);
        const edit = edits[0] ?? { start: 0, end: 0 };
        runs.push({ kind: step.kind, text, expected, allowed, around, edit, label: `${name} ${step.op} ${step.path}` });
      } catch (error) {
        const tag = (error as { _tag?: string })._tag ?? "Error";
        t.refused.set(tag, (t.refused.get(tag) ?? 0) + 1);
        if (t.examples.length < 8)
          t.examples.push(`${name} ${step.op} ${step.path}: ${(error as Error).message.slice(0, 160)}`);
      }
    }
  }
  const loaded = oracle(
    format,
    runs.map((r) => r.text),
  );
  runs.forEach((run, i) => {
    void run.edit;
    const t = totals[run.kind];
    const result = loaded[i]!;
    if (!result.ok) {
      t.unloadable++;
      if (t.examples.length < 8) t.examples.push(`${run.label}: unloadable ${result.error}`);
      return;
    }
    if (!same(result.data, run.expected)) {
      t.wrong++;
      if (t.examples.length < 8) t.examples.push(`${run.label}: other data`);
      return;
    }
    t.exact++;
    // Every byte before the allowed lines and after them is where it was.
    const keeps = (r: DataRange) =>
      run.text.startsWith(source.slice(0, r.start)) &&
      run.text.endsWith(source.slice(r.end)) &&
      run.text.length >= r.start + source.length - r.end;
    if (!keeps(run.allowed)) {
      t.outside++;
      if (!keeps(run.around)) t.outsideContainer++;
      if (t.outsideExamples.length < 4)
        t.outsideExamples.push(
          `${run.label}: edit [${run.edit.start},${run.edit.end}) beyond the key's lines [${run.allowed.start},${run.allowed.end})`,
        );
    }
  });
}

console.log(`\n${files.length} files under ${options.dir}`);
for (const [format, f] of perFormat)
  console.log(`  ${format}: ${f.files} files, ${f.keys} keys (depth <= ${options.depth})`);
for (const [kind, t] of Object.entries(totals)) {
  const refused = [...t.refused].map(([tag, n]) => `${tag} ${n}`).join(", ") || "none";
  console.log(
    `${kind}: ${t.tried} tried, ${t.exact} exact by the format's reader, ${t.wrong} other data, ${t.unloadable} unloadable, refused ${refused}; of the exact, edits beyond the key's own lines (and the line before): ${t.outside}, beyond its container's lines: ${t.outsideContainer}`,
  );
  for (const example of [...t.examples, ...t.outsideExamples]) console.log(`    ${example}`);
}
