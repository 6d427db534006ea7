import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { loadGrammars } from "@graphplan/graph";
import { Sim } from "./src/sim.js";
import { scopeModel } from "./src/scope/index.js";
await loadGrammars(["go"]);
const root = process.argv[2]!;
const model = scopeModel("go")!;
let files = 0,
  reported = 0,
  unknown = 0;
const seen = new Map<string, number>();
function walk(dir: string) {
  const entries = readdirSync(dir);
  const go = entries.filter((e) => e.endsWith(".go") && statSync(join(dir, e)).isFile());
  if (go.length) {
    const sim = new Sim(new Map(go.map((f) => [`p/${f}`, readFileSync(join(dir, f), "utf8")])));
    for (const f of go) {
      const doc = sim.doc(`p/${f}`)!;
      files++;
      let u;
      try {
        u = model.unresolved(doc, 0, doc.source.length, {
          sim,
          graph: { symbols: [], imports: [], line_kinds: {}, errors: [] } as any,
        });
      } catch (e) {
        console.log("CRASH", join(dir, f), String(e).slice(0, 80));
        continue;
      }
      if (u === "unknown") {
        unknown++;
        continue;
      }
      for (const x of u) {
        reported++;
        seen.set(x.name, (seen.get(x.name) ?? 0) + 1);
        if (x.name !== "_") console.log(join(dir, f) + ":" + x.line, x.name);
      }
    }
    sim.dispose();
  }
  for (const e of entries) if (e !== "testdata" && statSync(join(dir, e)).isDirectory()) walk(join(dir, e));
}
walk(root);
console.log({ files, reported, unknown });
console.log([...seen].sort((a, b) => b[1] - a[1]).slice(0, 30));
