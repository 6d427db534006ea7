/**
 * A data file's change (JSON, YAML, TOML) as data steps — `set_key`, `delete_key`, `append_item`
 * addressed by key paths — when they reproduce the post-image exactly: the two files are read as data,
 * their values compared key by key, and the steps run with the engine. Anything they do not reproduce
 * byte for byte (a comment or a layout change beside the values) is left to the text steps.
 */
import { dataFormatOf, dataValue, parseData } from "@graphplan/graph";
import { formatKeyPath, type KeySegment } from "@graphplan/locators";
import type { Step, StepHandler } from "@graphplan/primitives";
import { minimalEdit, runStep, type TextStep } from "./text.js";

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The data steps that turn value `a` into `b` under `path` (keys in b's order). */
function stepsFor(file: string, a: unknown, b: unknown, path: KeySegment[], out: Step[]): void {
  const locator = (segments: readonly KeySegment[]) => ({ kind: "key", name: formatKeyPath(segments), file });
  if (isRecord(a) && isRecord(b)) {
    for (const key of Object.keys(a))
      if (!Object.hasOwn(b, key)) out.push({ op: "delete_key", params: { locator: locator([...path, { key }]) } });
    for (const [key, value] of Object.entries(b)) {
      if (!Object.hasOwn(a, key)) out.push({ op: "set_key", params: { locator: locator([...path, { key }]), value } });
      else if (!same(a[key], value)) stepsFor(file, a[key], value, [...path, { key }], out);
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && b.length > a.length && a.every((item, i) => same(item, b[i]))) {
    for (const item of b.slice(a.length))
      out.push({ op: "append_item", params: { locator: locator(path), value: item } });
    return;
  }
  if (path.length === 0) return; // a top-level value that is not a mapping: text steps
  out.push({ op: "set_key", params: { locator: locator(path), value: b } });
}

/** Data steps that reproduce `after` from `before` exactly, or undefined (not a data file, unreadable, or not exact). */
export function dataSteps(
  file: string,
  before: string,
  after: string,
  handlers: Readonly<Record<string, StepHandler>> | undefined,
): TextStep[] | undefined {
  const format = dataFormatOf(file);
  if (!format || !handlers || before === after) return undefined;
  let steps: Step[];
  try {
    const a = parseData(before, format);
    const b = parseData(after, format);
    if (a.errors.length > 0 || b.errors.length > 0) return undefined;
    steps = [];
    stepsFor(file, dataValue(a.root), dataValue(b.root), [], steps);
  } catch {
    return undefined; // grammars not loaded, or a value the data model cannot read
  }
  if (steps.length === 0 || steps.length > 40) return undefined;
  const out: TextStep[] = [];
  let source = before;
  for (const step of steps) {
    const files = runStep(step, file, source, { handlers });
    if (!files) return undefined;
    const next = files.get(file) ?? source;
    out.push({ step, edits: minimalEdit(source, next) });
    source = next;
  }
  return source === after ? out : undefined;
}
