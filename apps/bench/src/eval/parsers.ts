/**
 * The SWE-bench harness's log parsers (v4.1.0, `swebench/harness/log_parsers/python.py`), ported
 * quirk for quirk: each turns the text of `test_output.txt` into test id → status. Python string
 * semantics are kept where they differ from JavaScript's: `str.split()`/`strip()` use Python's
 * whitespace set, `.` in a regex is anything but `\n`, and `^`/`$` under `re.MULTILINE` only see
 * `\n`. Where the Python raises (an `IndexError` on a too-short line), these throw
 * {@link HarnessParseError}; the harness then writes no report and counts the instance as an error.
 */
import * as Data from "effect/Data";

export type TestStatus = "PASSED" | "FAILED" | "SKIPPED" | "ERROR" | "XFAIL";
/**
 * Test id → status; a null-prototype object, so any id (`__proto__`, `constructor`) is a plain key.
 * Like the harness, a value is the token the log had in the status position: one of the five for
 * every real test line, but a status-first line stores its first token as written (`PASSED:` from
 * `PASSED: x`), and pytest_v2's `<id> <STATUS>` branch stores the second token of a line that merely
 * ends in a status word. Such values count as neither passed nor failed in grading, as upstream.
 */
export type StatusMap = Record<string, TestStatus>;
export type LogParser = (log: string) => StatusMap;

/** `TestStatus` in the harness's enum order (the order `line.startswith(x)` tries them). */
export const TEST_STATUSES: readonly TestStatus[] = ["FAILED", "PASSED", "SKIPPED", "ERROR", "XFAIL"];

/** Where the Python parser raises (an index past the end of `line.split()`). */
export class HarnessParseError extends Data.TaggedError("HarnessParseError")<{ readonly message: string }> {}

export function emptyStatusMap(): StatusMap {
  return Object.create(null) as StatusMap;
}

// --- Python string semantics ----------------------------------------------------------------------

/** The characters for which Python's `str.isspace()` (and `re`'s `\s`) is true. */
const PY_WS = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_WS_RUN = new RegExp(`[${PY_WS}]+`);
const PY_STRIP = new RegExp(`^[${PY_WS}]+|[${PY_WS}]+$`, "g");
const PY_LSTRIP = new RegExp(`^[${PY_WS}]+`);

/** Python's `s.split()`: runs of whitespace, no empty tokens. */
export function pySplit(s: string): string[] {
  return s.split(PY_WS_RUN).filter((token) => token !== "");
}

/** Python's `s.strip()`. */
export function pyStrip(s: string): string {
  return s.replace(PY_STRIP, "");
}

function pyLstrip(s: string): string {
  return s.replace(PY_LSTRIP, "");
}

/** `tokens[i]`, or the `IndexError` the Python would raise. */
function at(tokens: readonly string[], i: number, line: string): string {
  const token = tokens[i];
  if (token === undefined)
    throw new HarnessParseError({ message: `list index out of range on line ${JSON.stringify(line)}` });
  return token;
}

/** The token stored as the status, unchecked, as the harness stores it (see {@link StatusMap}). */
function rawStatus(token: string): TestStatus {
  return token as TestStatus;
}

function startsWithStatus(line: string): boolean {
  return TEST_STATUSES.some((status) => line.startsWith(status));
}

function endsWithStatus(line: string): boolean {
  return TEST_STATUSES.some((status) => line.endsWith(status));
}

/** The status-first pytest line (`-rA` summary): FAILED's ` - ` removed, then `status id`. */
function statusFirst(line: string): [id: string, status: TestStatus] | undefined {
  const cleaned = line.startsWith("FAILED") ? line.replaceAll(" - ", " ") : line;
  const tokens = pySplit(cleaned);
  const [status, id] = tokens;
  return status === undefined || id === undefined ? undefined : [id, rawStatus(status)];
}

// --- pytest family --------------------------------------------------------------------------------

/** `parse_log_pytest`: lines starting with a status word; key = token 2, value = token 1. */
export function parseLogPytest(log: string): StatusMap {
  const map = emptyStatusMap();
  for (const line of log.split("\n")) {
    if (!startsWithStatus(line)) continue;
    const entry = statusFirst(line);
    if (entry) map[entry[0]] = entry[1];
  }
  return map;
}

/** Python's `(.*?)\[(.*)\]` searched in a token: up to the first `[`, and the last `]`. */
const OPTION_PATTERN = /([^\n]*?)\[([^\n]*)\]/;

/** pytest_options: an `/abs/path` parameter is shortened to `/` + its last component. */
function shortenOption(id: string): string {
  const match = OPTION_PATTERN.exec(id);
  if (!match) return id;
  const main = match[1] ?? "";
  let option = match[2] ?? "";
  if (option.startsWith("/") && !option.startsWith("//") && !option.includes("*")) {
    option = `/${option.split("/").at(-1) ?? ""}`;
  }
  return `${main}[${option}]`;
}

/** `parse_log_pytest_options` (requests, pylint): as pytest, with path parameters shortened. */
export function parseLogPytestOptions(log: string): StatusMap {
  const map = emptyStatusMap();
  for (const line of log.split("\n")) {
    if (!startsWithStatus(line)) continue;
    const entry = statusFirst(line);
    if (entry) map[shortenOption(entry[0])] = entry[1];
  }
  return map;
}

/** `[NNm` colour remnants (Python's `\d` is any Unicode decimal digit). */
const COLOUR_CODE = /\[\p{Nd}+m/gu;
/** Characters 0x01–0x1F, which pytest_v2 deletes. */
const CONTROL_CHARS = /[\x01-\x1f]/g;

/** `parse_log_pytest_v2` (astropy, scikit-learn, sphinx): colour-stripped; `id STATUS` lines too. */
export function parseLogPytestV2(log: string): StatusMap {
  const map = emptyStatusMap();
  for (const raw of log.split("\n")) {
    const line = raw.replace(COLOUR_CODE, "").replace(CONTROL_CHARS, "");
    if (startsWithStatus(line)) {
      const entry = statusFirst(line);
      if (entry) map[entry[0]] = entry[1];
    } else if (endsWithStatus(line)) {
      const [id, status] = pySplit(line);
      if (id !== undefined && status !== undefined) map[id] = rawStatus(status);
    }
  }
  return map;
}

/** `parse_log_matplotlib`: as pytest, after `MouseButton.LEFT` → `1` and `MouseButton.RIGHT` → `3`. */
export function parseLogMatplotlib(log: string): StatusMap {
  const map = emptyStatusMap();
  for (const raw of log.split("\n")) {
    const line = raw.replaceAll("MouseButton.LEFT", "1").replaceAll("MouseButton.RIGHT", "3");
    if (!startsWithStatus(line)) continue;
    const entry = statusFirst(line);
    if (entry) map[entry[0]] = entry[1];
  }
  return map;
}

/** `parse_log_seaborn`: `FAILED id`, `id PASSED …` and `PASSED id`; nothing else is recorded. */
export function parseLogSeaborn(log: string): StatusMap {
  const map = emptyStatusMap();
  for (const line of log.split("\n")) {
    if (line.startsWith("FAILED")) {
      map[at(pySplit(line), 1, line)] = "FAILED";
    } else if (line.includes(" PASSED ")) {
      const parts = pySplit(line);
      if (at(parts, 1, line) === "PASSED") map[at(parts, 0, line)] = "PASSED";
    } else if (line.startsWith("PASSED")) {
      map[at(pySplit(line), 1, line)] = "PASSED";
    }
  }
  return map;
}

// --- django ---------------------------------------------------------------------------------------

const DJANGO_PASS_SUFFIXES = [" ... ok", " ... OK", " ...  OK"] as const;
const DJANGO_7188_PREFIX = "Applying sites.0002_alter_domain_unique...test_no_migrations";
const DJANGO_VERSION_TEST = "--version is equivalent to version";

/**
 * The pass suffixes of one stripped line: the (possibly rewritten, for django-7188) line and the
 * test it passes, if any. Python's `line` is rewritten in place and later checks see the new text.
 */
function djangoPass(line: string): { line: string; passed: string | undefined } {
  for (const suffix of DJANGO_PASS_SUFFIXES) {
    if (!line.endsWith(suffix)) continue;
    let text = line;
    if (pyStrip(text).startsWith(DJANGO_7188_PREFIX)) {
      const cut = text.indexOf("...");
      text = pyStrip(cut < 0 ? text : text.slice(cut + 3));
    }
    const last = text.lastIndexOf(suffix);
    return { line: text, passed: last < 0 ? text : text.slice(0, last) };
  }
  return { line, passed: undefined };
}

/** The one-line checks of `parse_log_django` for one stripped line, in the harness's order. */
function djangoLine(map: StatusMap, stripped: string, prevTest: string | undefined): string | undefined {
  let prev = prevTest;
  if (stripped.includes(DJANGO_VERSION_TEST)) map[DJANGO_VERSION_TEST] = "PASSED";
  if (stripped.includes(" ... ")) prev = stripped.split(" ... ")[0];
  const { line, passed } = djangoPass(stripped);
  if (passed !== undefined) map[passed] = "PASSED";
  if (line.includes(" ... skipped")) map[line.split(" ... skipped")[0] ?? ""] = "SKIPPED";
  if (line.endsWith(" ... FAIL")) map[line.split(" ... FAIL")[0] ?? ""] = "FAILED";
  if (line.startsWith("FAIL:")) map[pyStrip(at(pySplit(line), 1, line))] = "FAILED";
  if (line.endsWith(" ... ERROR")) map[line.split(" ... ERROR")[0] ?? ""] = "ERROR";
  if (line.startsWith("ERROR:")) map[pyStrip(at(pySplit(line), 1, line))] = "ERROR";
  if (pyLstrip(line).startsWith("ok") && prev !== undefined) map[prev] = "PASSED";
  return prev;
}

/**
 * The three multi-line patterns (run with `re.MULTILINE` on the raw log). `^`/`$` are written out
 * as Python sees them: after/before `\n` only (JavaScript's `m` flag would also accept `\r`).
 */
const DJANGO_MULTILINE: readonly RegExp[] = [
  String.raw`(?<=^|\n)([^\n]*?)[${PY_WS}]\.\.\.[${PY_WS}]Testing against Django installed in ([\s\S]*?) silenced\)\.\nok(?=\n|$)`,
  String.raw`(?<=^|\n)([^\n]*?)[${PY_WS}]\.\.\.[${PY_WS}]Internal Server Error: \/([^\n]*)\/\nok(?=\n|$)`,
  String.raw`(?<=^|\n)([^\n]*?)[${PY_WS}]\.\.\.[${PY_WS}]System check identified no issues \(0 silenced\)\nok(?=\n|$)`,
].map((source) => new RegExp(source, "g"));

/** `parse_log_django`: Django's runner at verbosity 2 (see the reference §3 for every rule). */
export function parseLogDjango(log: string): StatusMap {
  const map = emptyStatusMap();
  let prevTest: string | undefined;
  for (const line of log.split("\n")) prevTest = djangoLine(map, pyStrip(line), prevTest);
  for (const pattern of DJANGO_MULTILINE) {
    for (const match of log.matchAll(pattern)) map[match[1] ?? ""] = "PASSED";
  }
  return map;
}

// --- sympy ----------------------------------------------------------------------------------------

/** Python's `(_*) (.*)\.py:(.*) (_*)` with `re.findall`: `.` is anything but `\n`. */
const SYMPY_FAILURE_HEADER = /(_*) ([^\n]*)\.py:([^\n]*) (_*)/g;

/** `parse_log_sympy`: `___ file.py:test ___` headers → FAILED; `test_x ok|F|E` lines by their ending. */
export function parseLogSympy(log: string): StatusMap {
  const map = emptyStatusMap();
  for (const match of log.matchAll(SYMPY_FAILURE_HEADER)) map[`${match[2] ?? ""}.py:${match[3] ?? ""}`] = "FAILED";
  for (const raw of log.split("\n")) {
    const line = pyStrip(raw);
    if (!line.startsWith("test_")) continue;
    if (line.endsWith(" E")) map[at(pySplit(line), 0, line)] = "ERROR";
    if (line.endsWith(" F")) map[at(pySplit(line), 0, line)] = "FAILED";
    if (line.endsWith(" ok")) map[at(pySplit(line), 0, line)] = "PASSED";
  }
  return map;
}

// --- The map --------------------------------------------------------------------------------------

/** `MAP_REPO_TO_PARSER` for the 12 SWE-bench Lite repositories. */
const PARSERS: ReadonlyMap<string, LogParser> = new Map<string, LogParser>([
  ["astropy/astropy", parseLogPytestV2],
  ["django/django", parseLogDjango],
  ["matplotlib/matplotlib", parseLogMatplotlib],
  ["mwaskom/seaborn", parseLogSeaborn],
  ["pallets/flask", parseLogPytest],
  ["psf/requests", parseLogPytestOptions],
  ["pydata/xarray", parseLogPytest],
  ["pylint-dev/pylint", parseLogPytestOptions],
  ["pytest-dev/pytest", parseLogPytest],
  ["scikit-learn/scikit-learn", parseLogPytestV2],
  ["sphinx-doc/sphinx", parseLogPytestV2],
  ["sympy/sympy", parseLogSympy],
]);

export function parserFor(repo: string): LogParser | undefined {
  return PARSERS.get(repo);
}
