import { readFileSync } from "node:fs";
import { execSync } from "node:child_process";
import { buildGraph, loadGrammars } from "@graphplan/graph";
import { Sim } from "./src/sim.js";
import { scopeModel } from "./src/scope/index.js";
await loadGrammars(["java"]);
const root = process.argv[2]!;
const paths = execSync(`cd ${root} && find . -name '*.java' | sed 's|^./||' | sort`, { encoding: "utf8" })
  .trim()
  .split("\n");
const files = new Map(paths.map((p) => [p, readFileSync(`${root}/${p}`, "utf8")]));
const graph = await buildGraph([...files].map(([path, source]) => ({ path, source })));
const sim = new Sim(files);
const model = scopeModel("java")!;
let n = 0,
  reported = 0,
  unknown = 0;
const seen = new Map<string, number>();
const t0 = performance.now();
for (const p of paths) {
  const doc = sim.doc(p)!;
  n++;
  const u = model.unresolved(doc, 0, doc.source.length, { sim, graph });
  if (u === "unknown") {
    unknown++;
    continue;
  }
  for (const x of u) {
    reported++;
    seen.set(x.name, (seen.get(x.name) ?? 0) + 1);
    console.log(`${p}:${x.line} ${x.name}`);
  }
}
console.log({ files: n, reported, unknown, ms: Math.round(performance.now() - t0) });
console.log([...seen].sort((a, b) => b[1] - a[1]).slice(0, 40));
