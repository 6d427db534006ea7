/**
 * The `locator` check on data steps: a `set_key` or `append_item` whose key is missing makes it (that
 * is how a key is added). When the mapping has a key one or two letters away, the new key is more
 * likely a typo of that one than a key meant: warn, naming it (docs/design.md, "Data steps").
 */
import { dataFormatOf, parseData } from "@graphplan/graph";
import { formatKeyPath, parseKeyPath, walkKeyPath } from "@graphplan/locators";
import { distance } from "fastest-levenshtein";
import type { Report, StepView } from "./checks.js";
import type { Sim } from "./sim.js";

const MAKING_OPS = new Set(["set_key", "append_item"]);

/** Edit distance under which a new key reads as a typo of an existing one: 1, or 2 for keys of 8+ letters. */
const nearEnough = (a: string, b: string): boolean =>
  distance(a.toLowerCase(), b.toLowerCase()) <= (Math.min(a.length, b.length) >= 8 ? 2 : 1);

export function checkNewKey(view: StepView, sim: Sim, report: Report): void {
  if (!MAKING_OPS.has(view.op)) return;
  for (const locator of view.locators) {
    const file = locator["file"];
    const path = locator["name"];
    if (locator["kind"] !== "key" || typeof file !== "string" || typeof path !== "string") continue;
    const format = dataFormatOf(file);
    const source = sim.text(file);
    if (!format || source === undefined) continue;
    let walk;
    let segments;
    try {
      const doc = parseData(source, format);
      if (doc.errors.length > 0) continue;
      segments = parseKeyPath(path);
      walk = walkKeyPath(doc.root, segments);
    } catch {
      continue; // the step itself reports a path it cannot read
    }
    const missing = walk.rest[0];
    const container = walk.container;
    if (!missing || !("key" in missing) || container?.type !== "mapping") continue;
    // Every key near enough, the fewest edits first (a similarity ranking may put `test-cov` before `test-ci`).
    const gap = (k: string) => distance(k.toLowerCase(), missing.key.toLowerCase());
    const near = container.entries
      .map((e) => e.key)
      .filter((k) => k !== missing.key && nearEnough(k, missing.key))
      .sort((a, b) => gap(a) - gap(b));
    if (near.length === 0) continue;
    const meant = formatKeyPath([...segments.slice(0, walk.steps.length), { key: near[0]! }, ...walk.rest.slice(1)]);
    report({
      check: "locator",
      severity: "warning",
      file,
      message: `${view.op} makes a new key ${JSON.stringify(missing.key)} in ${file}, next to the key ${JSON.stringify(near[0])}: a key one letter off adds a key instead of changing one`,
      fix: `if ${JSON.stringify(near[0])} is meant, name it exactly (${JSON.stringify(meant)}); if a new key is meant, keep the step`,
    });
  }
}
