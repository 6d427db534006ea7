/**
 * The "no test weakening" invariant: how an edit to a test file can make a failing test stop failing without fixing
 * anything — a skip or xfail marker, a removed, trivial or loosened assertion, a removed test, a swallowed failure,
 * an early return, a looser numeric tolerance — found by comparing the file before and after the edit (line diffs
 * from the `diff` package) or, when only the plan is known, by reading the code the plan writes.
 */
import { diffLines } from "diff";
import { isTestPath } from "./test-paths.js";
import type { FileChange, Violation } from "./schemas.js";
import type { StepEdit } from "./plan.js";

export type WeakeningRule =
  | "test-file-edit"
  | "skip-marker-added"
  | "assertion-removed"
  | "assertion-loosened"
  | "trivial-assertion-added"
  | "test-removed"
  | "failure-swallowed"
  | "early-return-added"
  | "tolerance-loosened"
  | "expected-value-changed"
  | "test-code-deleted";

type Language = "python" | "js" | "other";

function languageOf(path: string): Language {
  if (/\.(py|pyi)$|(^|\/)(pytest\.ini|setup\.cfg|tox\.ini)$/.test(path)) return "python";
  if (/\.[cm]?[jt]sx?$|(^|\/)\.mocharc/.test(path)) return "js";
  return "other";
}

// --- comments --------------------------------------------------------------------------------------------------------

/** Removes comments (Python `#`, JS `//` and block comments) outside string literals; keeps line structure. */
function stripComments(source: string, language: Language): string {
  const lineComment = language === "python" ? "#" : "//";
  const blockComments = language !== "python";
  let out = "";
  let quote: string | null = null;
  let inBlock = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (inBlock) {
      if (c === "*" && source[i + 1] === "/") {
        inBlock = false;
        i++;
      } else if (c === "\n") out += c;
      continue;
    }
    if (quote) {
      out += c;
      if (c === "\\") out += source[++i] ?? "";
      else if (c === quote || (c === "\n" && quote !== "`")) quote = null;
      continue;
    }
    if (c === '"' || c === "'" || (c === "`" && language !== "python")) {
      quote = c;
      out += c;
    } else if (source.startsWith(lineComment, i) || (language === "other" && c === "#")) {
      while (i < source.length && source[i] !== "\n") i++;
      if (source[i] === "\n") out += "\n";
    } else if (blockComments && c === "/" && source[i + 1] === "*") {
      inBlock = true;
      i++;
    } else out += c;
  }
  return out;
}

// --- what a test file contains ---------------------------------------------------------------------------------------

interface Patterns {
  readonly assertions: readonly RegExp[];
  readonly strong: readonly RegExp[];
  readonly trivial: readonly RegExp[];
  readonly skips: readonly RegExp[];
  readonly tests: readonly RegExp[];
  readonly swallows: readonly RegExp[];
}

const PY_WEAK_ASSERT_METHODS = "True|False|IsNotNone|IsInstance|NotIsInstance|_|_true|_false";
const PYTHON: Patterns = {
  assertions: [
    /^\s*assert\b/gm, // assert statement
    /\bassert[A-Z_]\w*\s*\(/g, // self.assertEqual(, assert_allclose(, mock.assert_called_with(
    /\b(?:raises|warns|deprecated_call)\s*\(/g, // pytest.raises(, sympy raises(
  ],
  strong: [
    // assert statement with a comparison, except `is not None`
    /^\s*assert\b(?![^\n]*\bis\s+not\s+None\s*(?:,|$))[^\n]*?(?:==|!=|<=|>=|(?<![<-])<(?!<)|(?<![>-])>(?!>)|\bin\b|\bis\b)/gm,
    // assertEqual(, assert_allclose(, ... but not assertTrue( and friends, nor assertRaises(Exception)
    new RegExp(
      `\\bassert(?!(?:${PY_WEAK_ASSERT_METHODS})\\s*\\()(?!(?:Raises|Warns)\\w*\\s*\\(\\s*(?:(?:Base)?Exception|Warning)\\b)[A-Z_]\\w*\\s*\\(`,
      "g",
    ),
    /\b(?:raises|warns)\s*\(\s*(?!(?:Base)?Exception\b|Warning\b)[A-Za-z_][\w.]*/g, // a specific exception
  ],
  trivial: [
    /^\s*assert\s+(?:True|1|not\s+(?:False|None|0)|(?:"[^"\n]*"|'[^'\n]*'))\s*(?:,[^\n]*)?$/gm,
    /^\s*assert\b[^\n]*\bor\s+True\s*(?:,[^\n]*)?$/gm,
    /^\s*assert\s+(\w+(?:\.\w+)*)\s*(?:==|is)\s*\1\s*$/gm,
    /\bassert(?:True|_)\s*\(\s*(?:True|1)\s*[,)]/g,
    /\bassertFalse\s*\(\s*(?:False|0|None)\s*[,)]/g,
    /\bassert(?:Equal|Equals|Is)\s*\(\s*([\w.]+)\s*,\s*\1\s*[,)]/g,
    /\bassertIsNone\s*\(\s*None\s*[,)]/g,
  ],
  skips: [
    /@pytest\.mark\.(?:skip|skipif|xfail)\b/g,
    /\bpytestmark\s*=.*\bmark\.(?:skip|skipif|xfail)\b/g,
    /\bpytest\.(?:skip|xfail|importorskip)\s*\(/g,
    /@(?:unittest\.)?(?:skip|skipIf|skipUnless|expectedFailure)\b/g,
    /\bunittest\.(?:skip|skipIf|skipUnless|expectedFailure)\s*\(/g,
    /\.skipTest\s*\(/g,
    /\braise\s+(?:unittest\.)?SkipTest\b/g,
    /@(?:skipIfDBFeature|skipUnlessDBFeature|skipUnlessAnyDBFeature|XFAIL|SKIP|slow)\b/g, // Django, SymPy
    /(?<![.\w@])skip\s*\(/g, // SymPy's skip("reason") inside a test
    /--deselect\b|\bcollect_ignore(?:_glob)?\b|\s-k\s+["']?not\s/g, // test selection in conftest / pytest.ini
  ],
  tests: [/^\s*(?:async\s+)?def\s+test\w*\s*\(/gm, /^\s*class\s+Test\w*\s*[(:]/gm],
  swallows: [
    /\bexcept\s*\(?\s*(?:AssertionError|Exception|BaseException)\b/g,
    /\bexcept\s*:/g,
    /\bsuppress\s*\(\s*(?:AssertionError|Exception)\b/g,
  ],
};

const JS_STRONG_MATCHERS =
  "toBe|toEqual|toStrictEqual|toMatch|toMatchObject|toContain|toContainEqual|toHaveLength|toHaveProperty|toThrow|" +
  "toThrowError|toHaveBeenCalledWith|toHaveBeenLastCalledWith|toHaveBeenNthCalledWith|toHaveBeenCalledTimes|" +
  "toHaveReturnedWith|toBeCloseTo|toBeGreaterThan|toBeGreaterThanOrEqual|toBeLessThan|toBeLessThanOrEqual|" +
  "toHaveTextContent|toHaveAttribute|toHaveClass|toBeInstanceOf|toMatchInlineSnapshot";
const JS: Patterns = {
  assertions: [
    /\.to(?:Be|Equal|StrictEqual|Match|Contain|Have|Throw|Satisfy|Pass)\w*\s*\(/g, // jest / vitest matchers
    /\bassert(?:\.\w+)?\s*\(/g, // node:assert, chai assert
    /\)\s*\.to\.|\.should\./g, // chai expect / should chains
  ],
  strong: [
    new RegExp(`(?<!\\.not)\\.(?:${JS_STRONG_MATCHERS})\\s*\\(\\s*(?!\\))`, "g"),
    /(?<!\.not)\.(?:toBeNull|toBeNaN|toMatchSnapshot)\s*\(/g,
    /\bassert\.(?:equal|strictEqual|deepEqual|deepStrictEqual|notEqual|notStrictEqual|notDeepStrictEqual|match|throws|rejects|include|lengthOf|sameMembers|closeTo|approximately|isNull|typeOf)\s*\(/g,
    /\.(?:to|be|have|deep|been|is|that|and|should)\.(?:equal|eql|equals|include|contain|match|lengthOf|throw|members|property|closeTo|above|below)\s*\(\s*(?!\))/g,
  ],
  trivial: [
    /\bexpect\s*\(\s*(true|false|null|undefined|\d+|'[^'\n]*'|"[^"\n]*")\s*\)\s*\.(?:toBe|toEqual|toStrictEqual)\s*\(\s*\1\s*\)/g,
    /\bexpect\s*\(\s*([\w.]+)\s*\)\s*\.(?:toBe|toEqual|toStrictEqual)\s*\(\s*\1\s*\)/g,
    /\bexpect\s*\(\s*(?:true|1)\s*\)\s*\.toBeTruthy\s*\(/g,
    /\bexpect\s*\(\s*(?:false|null|0|undefined)\s*\)\s*\.toBeFalsy\s*\(/g,
    /\bassert(?:\.ok)?\s*\(\s*(?:true|1)\s*[,)]/g,
    /\bassert\.(?:equal|strictEqual|deepEqual|deepStrictEqual)\s*\(\s*([\w.]+)\s*,\s*\1\s*[,)]/g,
  ],
  skips: [
    /\b(?:it|test|describe|context|suite|specify|bench)\.(?:skip|todo|only|fails|skipIf|runIf)\b/g,
    /\b(?:xit|xtest|xdescribe|xcontext|xspecify|fit|fdescribe)\s*\(/g,
    /\bthis\.skip\s*\(/g,
    /\b(?:test|modulePath)PathIgnorePatterns\b|\btestIgnore\b/g,
  ],
  tests: [/(?<![.\w$])(?:it|test)\s*\(/g],
  swallows: [
    /\bcatch\s*(?:\(\s*\w*\s*\))?\s*\{\s*\}/g,
    /\.catch\s*\(\s*\(\s*\w*\s*\)\s*=>\s*(?:\{\s*\}|undefined|null)\s*\)/g,
  ],
};
/** Markers of other languages' runners, checked in every test file. */
const OTHER_SKIPS: readonly RegExp[] = [/\bt\.Skip(?:f|Now)?\s*\(/g, /@(?:Ignore|Disabled)\b/g, /#\[ignore\]/g];
const DOCTEST_SKIP = /#\s*doctest:\s*[^\n]*\+SKIP\b/g;
const BARE_RETURN = /^\s*return\s*;?\s*$/gm;

function countAll(code: string, patterns: readonly RegExp[]): number {
  let n = 0;
  for (const re of patterns) n += code.match(re)?.length ?? 0;
  return n;
}

interface Metrics {
  readonly assertions: number;
  readonly strong: number;
  readonly trivial: number;
  readonly skips: number;
  readonly tests: number;
  readonly swallows: number;
  readonly returns: number;
}

function metrics(source: string, language: Language): Metrics {
  const code = stripComments(source, language);
  const sets = language === "python" ? [PYTHON] : language === "js" ? [JS] : [PYTHON, JS];
  const sum = (pick: (p: Patterns) => readonly RegExp[]): number =>
    sets.reduce((n, p) => n + countAll(code, pick(p)), 0);
  return {
    assertions: sum((p) => p.assertions),
    strong: sum((p) => p.strong),
    trivial: sum((p) => p.trivial),
    skips: sum((p) => p.skips) + countAll(code, OTHER_SKIPS) + countAll(source, [DOCTEST_SKIP]),
    tests: sum((p) => p.tests),
    swallows: sum((p) => p.swallows),
    returns: countAll(code, [BARE_RETURN]),
  };
}

// --- numeric tolerances ----------------------------------------------------------------------------------------------

const NUM = String.raw`(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)`;
/** Tolerances where a larger number is looser. */
const LOOSER_WHEN_LARGER: ReadonlyArray<readonly [string, RegExp]> = [
  ["rel", new RegExp(String.raw`\b(?:rtol|rel|rel_tol)\s*[=:]\s*${NUM}`, "g")],
  ["abs", new RegExp(String.raw`\b(?:atol|abs|abs_tol)\s*[=:]\s*${NUM}`, "g")],
  ["tol", new RegExp(String.raw`\b(?:tol|tolerance|delta|eps|epsilon|threshold)\s*[=:]\s*${NUM}`, "g")],
  ["bound", new RegExp(String.raw`\babs\s*\([^\n]*\)\s*<=?\s*${NUM}`, "g")], // assert abs(a - b) < 1e-9
];
/** Precisions where a smaller number is looser. */
const LOOSER_WHEN_SMALLER: ReadonlyArray<readonly [string, RegExp]> = [
  ["places", new RegExp(String.raw`\b(?:places|decimal|precision|digits)\s*[=:]\s*${NUM}`, "g")],
  ["places", new RegExp(String.raw`\btoBeCloseTo\s*\([^,\n]+,\s*${NUM}\s*\)`, "g")],
  ["places", new RegExp(String.raw`\bassert(?:Not)?AlmostEquals?\s*\([^,\n]+,[^,\n]+,\s*${NUM}\s*[,)]`, "g")],
];
/** pytest.approx with no tolerance compares at rel=1e-6. */
const APPROX_DEFAULT = /\bapprox\s*\((?![^\n]*\b(?:rel|abs)\s*=)/g;

function tolerances(code: string, table: ReadonlyArray<readonly [string, RegExp]>): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const [kind, re] of table) {
    for (const m of code.matchAll(re)) out.set(kind, [...(out.get(kind) ?? []), Number(m[1])]);
  }
  return out;
}

function toleranceLoosened(removed: string, added: string): string | null {
  const withDefault = (code: string): Map<string, number[]> => {
    const t = tolerances(code, LOOSER_WHEN_LARGER);
    const defaults = code.match(APPROX_DEFAULT)?.length ?? 0;
    if (defaults > 0) t.set("rel", [...(t.get("rel") ?? []), ...Array<number>(defaults).fill(1e-6)]);
    return t;
  };
  const before = withDefault(removed);
  const after = withDefault(added);
  for (const [kind, values] of after) {
    const old = before.get(kind);
    if (old && Math.max(...values) > Math.max(...old))
      return `${kind} tolerance ${Math.max(...old)} → ${Math.max(...values)}`;
  }
  const beforeP = tolerances(removed, LOOSER_WHEN_SMALLER);
  for (const [kind, values] of tolerances(added, LOOSER_WHEN_SMALLER)) {
    const old = beforeP.get(kind);
    if (old && Math.min(...values) < Math.min(...old)) return `${kind} ${Math.min(...old)} → ${Math.min(...values)}`;
  }
  return null;
}

/** Changed regions (removed text, added text) of a line diff. */
function hunks(before: string, after: string): Array<{ removed: string; added: string }> {
  const out: Array<{ removed: string; added: string }> = [];
  let current: { removed: string; added: string } | null = null;
  for (const part of diffLines(before, after)) {
    if (!part.added && !part.removed) {
      current = null;
      continue;
    }
    if (!current) {
      current = { removed: "", added: "" };
      out.push(current);
    }
    if (part.added) current.added += part.value;
    else current.removed += part.value;
  }
  return out;
}

// --- expected values --------------------------------------------------------------------------------------------------

/** Lines that assert: Python `assert`, unittest's `self.assert*(`, `raises(` / `pytest.raises(`, JS `expect(` and `assert.*(`. */
const ASSERTION_LINE =
  /^\s*(?:assert\b|self\.assert\w*\s*\(|with\s+(?:pytest\.raises|self\.assertRaises\w*)\s*\(|(?:pytest\.)?raises\s*\(|expect\s*\(|assert\.\w+\s*\()/;
/** Literals: strings, numbers, and the constants of Python and JavaScript. */
const LITERAL =
  /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`]*`|(?<![\w.])\d+(?:\.\d*)?(?:[eE][-+]?\d+)?(?![\w.])|\b(?:True|False|None|true|false|null|undefined)\b/g;
/** The exception an assertion expects: `raises(X`, `assertRaises(X`, `toThrow(X`. */
const RAISED = /\b(raises|assertRaises\w*|toThrow)\s*\(\s*([A-Za-z_][\w.]*)/g;

/** An assertion line as a shape (its expected values masked) and those values, in order. */
function expectation(line: string): {
  readonly line: string;
  readonly shape: string;
  readonly values: readonly string[];
} {
  const values: string[] = [];
  const shape = line
    .trim()
    .replace(RAISED, (_m, fn: string, exc: string) => (values.push(exc), `${fn}(EXC`))
    .replace(LITERAL, (m) => (values.push(m), "LIT"));
  return { line: line.trim(), shape, values };
}

/**
 * Whether the task text states `value` (a literal without its quotes, as a token of its own). Values shorter than 3
 * characters (`0`, `12`, `"a"`) never count: they occur in most task texts by chance (measured on SWE-bench Lite's
 * problem statements, see bench/test-patches.ts).
 */
function statedIn(task: string, value: string): boolean {
  const bare = value.replace(/^(["'`])([\s\S]*)\1$/, "$2");
  if (bare.length < 3) return false;
  const escaped = bare.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^\\w.])${escaped}($|[^\\w.])`).test(task);
}

/**
 * An existing assertion whose expected value changed (`== 0` → `== 1`, `assertEqual(x, 0)` → `(x, 1)`,
 * `raises(A)` → `raises(B)`): the same assertion with other literals or another exception, and no identical one
 * left. Not weakening when the task states every new value (`task`).
 */
function expectedValueChanged(removed: string, added: string, task: string | undefined): string | null {
  const asserts = (code: string) =>
    code
      .split("\n")
      .filter((l) => ASSERTION_LINE.test(l))
      .map(expectation);
  const before = asserts(removed);
  const after = asserts(added);
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  for (const now of after) {
    if (before.some((was) => was.shape === now.shape && same(was.values, now.values))) continue;
    const was = before.find((b) => b.shape === now.shape);
    if (!was) continue;
    const changed = now.values.filter((v, i) => v !== was.values[i]);
    if (task !== undefined && changed.every((v) => statedIn(task, v))) continue;
    const from = was.values.filter((v, i) => v !== now.values[i]);
    return `expected ${from.join(", ")} → ${changed.join(", ")} in an existing assertion (\`${now.line}\`); add a new test for the new behaviour instead, or state it in the task`;
  }
  return null;
}

// --- the checks -------------------------------------------------------------------------------------------------------

const v = (rule: WeakeningRule, path: string, detail: string): Violation => ({ rule, path, detail });

/** Compares what a test file (or snippet) contained before and after; one violation per kind of weakening. */
function compareMetrics(path: string, before: Metrics, after: Metrics): Violation[] {
  const out: Violation[] = [];
  if (after.skips > before.skips) out.push(v("skip-marker-added", path, "adds a skip / xfail / focus marker"));
  if (after.tests < before.tests)
    out.push(v("test-removed", path, `test definitions ${before.tests} → ${after.tests}`));
  if (after.assertions < before.assertions) {
    out.push(v("assertion-removed", path, `assertions ${before.assertions} → ${after.assertions}`));
  } else if (after.strong < before.strong) {
    out.push(v("assertion-loosened", path, `specific assertions ${before.strong} → ${after.strong}`));
  }
  if (after.trivial > before.trivial)
    out.push(v("trivial-assertion-added", path, "adds an assertion that always passes"));
  if (after.swallows > before.swallows) out.push(v("failure-swallowed", path, "catches and discards failures"));
  if (after.returns > before.returns) out.push(v("early-return-added", path, "adds a bare return in a test"));
  return out;
}

/**
 * How a change to one file weakens tests: every finding for a test file, only doctest skips elsewhere. `task` (the
 * task's text) lets an expected value the task states change.
 */
export function findWeakening(change: FileChange, task?: string): Violation[] {
  const language = languageOf(change.path);
  if (!isTestPath(change.path)) {
    const added = (change.after.match(DOCTEST_SKIP)?.length ?? 0) > (change.before.match(DOCTEST_SKIP)?.length ?? 0);
    return added ? [v("skip-marker-added", change.path, "adds a `# doctest: +SKIP` directive")] : [];
  }
  const before = metrics(change.before, language);
  const after = metrics(change.after, language);
  const out = compareMetrics(change.path, before, after);
  const changedHunks = hunks(stripComments(change.before, language), stripComments(change.after, language));
  for (const h of changedHunks) {
    const loosened = toleranceLoosened(h.removed, h.added);
    if (loosened) {
      out.push(v("tolerance-loosened", change.path, loosened));
      break;
    }
  }
  // A changed expectation is a new specification when the change also adds a test for it.
  if (after.tests <= before.tests) {
    for (const h of changedHunks) {
      const changed = expectedValueChanged(h.removed, h.added, task);
      if (changed) {
        out.push(v("expected-value-changed", change.path, changed));
        break;
      }
    }
  }
  return out;
}

const ZERO: Metrics = { assertions: 0, strong: 0, trivial: 0, skips: 0, tests: 0, swallows: 0, returns: 0 };

/**
 * How one plan step weakens tests, read from the code it writes (no file contents): replaced text is compared with
 * its replacement; written code is checked for skip markers, trivial assertions, swallowed failures and bare
 * returns; a deletion in a test file is reported because what it deletes cannot be seen.
 */
export function findStepWeakening(edit: StepEdit, path: string, task?: string): Violation[] {
  const language = languageOf(path);
  if (!isTestPath(path)) {
    const skip = edit.added.some((code) => (code.match(DOCTEST_SKIP)?.length ?? 0) > 0);
    return skip ? [v("skip-marker-added", path, "writes a `# doctest: +SKIP` directive")] : [];
  }
  const before = edit.removed.join("\n");
  const after = edit.added.join("\n");
  const written = metrics(after, language);
  const out = compareMetrics(path, edit.removed.length > 0 ? metrics(before, language) : ZERO, written);
  if (edit.removed.length === 0 && written.tests > 0 && written.assertions === 0) {
    out.push(v("assertion-removed", path, "writes test code without any assertion"));
  }
  if (edit.removed.length > 0) {
    const loosened = toleranceLoosened(stripComments(before, language), stripComments(after, language));
    if (loosened) out.push(v("tolerance-loosened", path, loosened));
    const changed =
      written.tests <= metrics(before, language).tests
        ? expectedValueChanged(stripComments(before, language), stripComments(after, language), task)
        : null;
    if (changed) out.push(v("expected-value-changed", path, changed));
  }
  if (edit.deleted) {
    const what = [edit.deleted.kind, edit.deleted.name].filter(Boolean).join(" ") || "a node";
    out.push(v("test-code-deleted", path, `${edit.op} removes ${what} from a test file`));
  }
  return out;
}
