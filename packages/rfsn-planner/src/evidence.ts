/**
 * Evidence from test output: traceback frames, the exception type, failing test ids and the pass/fail summary, for
 * pytest, Django's `runtests.py` (unittest) and SymPy's `bin/test`.
 */
import { isProjectPath, isTestPath, relativeTo } from "./test-paths.js";
import type { Evidence, FailingTest, TestFramework, TestSummary, TracebackFrame } from "./schemas.js";

export interface EvidenceOptions {
  /** Absolute path of the checkout (e.g. `/testbed`); frames inside it are reported relative to it. */
  readonly projectRoot?: string | undefined;
}

const lines = (text: string): string[] => text.replace(/\r\n?/g, "\n").split("\n");

// --- frameworks and failure blocks ---------------------------------------------------------------------------------

const SYMPY_HEADER = /^_{2,} (\S+\.py):(\S+) _{2,}$/;
const DJANGO_HEADER = /^(ERROR|FAIL): (\w+) \(([\w.]+)\)/;
/** A pytest section header `____ test_x ____`; `_ _ _ _` frame separators are not headers. */
const PYTEST_HEADER = /^_{3,} (\S.*?) _{3,}$/;

/** Which runner printed `output`. */
export function detectFramework(output: string): TestFramework {
  if (/test process starts|tests finished: /.test(output) || lines(output).some((l) => SYMPY_HEADER.test(l))) {
    return "sympy";
  }
  if (/^Ran \d+ tests? in /m.test(output) || lines(output).some((l) => DJANGO_HEADER.test(l))) return "django";
  if (
    /test session starts|^(FAILED|ERROR|PASSED) \S|::\S+ (PASSED|FAILED|ERROR)|^=+ .*\b(passed|failed)\b/m.test(output)
  ) {
    return "pytest";
  }
  return "unknown";
}

/** The text of the first failure (first test section holding a traceback), or the whole output. */
function firstFailureBlock(output: string): string[] {
  const all = lines(output);
  const starts: number[] = [];
  all.forEach((l, i) => {
    if (SYMPY_HEADER.test(l) || DJANGO_HEADER.test(l) || (PYTEST_HEADER.test(l) && !/^_ _/.test(l))) starts.push(i);
  });
  for (let k = 0; k < starts.length; k++) {
    const block = all.slice(starts[k], starts[k + 1] ?? all.length);
    if (block.some((l) => NATIVE_FRAME.test(l) || PYTEST_FRAME.test(l))) return block;
  }
  return all;
}

// --- traceback frames ----------------------------------------------------------------------------------------------

const NATIVE_FRAME = /^\s*File "(.+?)", line (\d+)(?:, in (.+?))?\s*$/;
/** pytest locations: `src/auth.py:30: in authenticate`, `tests/test_auth.py:12: ` or `src/auth.py:30: AttributeError`. */
const PYTEST_FRAME = /^(\S+?\.py):(\d+):(?: in (\S+)| ([A-Za-z_][\w.]*))?\s*$/;
const DEF_LINE = /^\s*(?:async\s+)?def (\w+)\s*\(/;

interface RawFrames {
  readonly frames: TracebackFrame[];
  /** The exception named on pytest's final location line (`src/auth.py:30: AttributeError`). */
  readonly pytestException: string | null;
  /** Lines after the last frame (where a native traceback prints its exception). */
  readonly tail: string[];
}

function parseFrames(block: string[], root: string | undefined): RawFrames {
  // A chained traceback prints several "Traceback" sections; the last one is the exception that propagated.
  let from = 0;
  block.forEach((l, i) => {
    if (/^\s*Traceback \(most recent call last\):/.test(l)) from = i;
  });
  const frames: TracebackFrame[] = [];
  let lastDef: string | null = null;
  let pytestException: string | null = null;
  let lastFrameAt = -1;
  for (let i = from; i < block.length; i++) {
    const l = block[i]!;
    const native = NATIVE_FRAME.exec(l);
    const pytest = native ? null : PYTEST_FRAME.exec(l);
    const def = DEF_LINE.exec(l);
    if (def) lastDef = def[1]!;
    if (!native && !pytest) continue;
    const m = (native ?? pytest)!;
    const file = relativeTo(m[1]!, root);
    const name = m[3] ?? (pytest ? lastDef : null) ?? null;
    frames.push({ file, line: Number(m[2]), name, project: isProjectPath(m[1]!) });
    if (pytest?.[4]) pytestException = pytest[4];
    lastDef = null;
    lastFrameAt = i;
  }
  return { frames, pytestException, tail: lastFrameAt >= 0 ? block.slice(lastFrameAt + 1) : block };
}

/** Frames of the first traceback in `output`, outermost first, as printed. */
export function extractTracebackFrames(output: string, options: EvidenceOptions = {}): TracebackFrame[] {
  return parseFrames(firstFailureBlock(output), options.projectRoot).frames;
}

/**
 * The project file nearest to where the first failure was raised: the innermost frame that is not standard
 * library / site-packages, preferring code under test over test files (falling back to a test file when the failure
 * is raised in the test itself). Null when there is no project frame.
 */
export function extractTracebackFile(output: string, options: EvidenceOptions = {}): string | null {
  return anchorFrame(extractTracebackFrames(output, options))?.file ?? null;
}

function anchorFrame(frames: readonly TracebackFrame[]): TracebackFrame | null {
  const project = frames.filter((f) => f.project);
  return project.findLast((f) => !isTestPath(f.file)) ?? project.at(-1) ?? null;
}

// --- exception type ------------------------------------------------------------------------------------------------

const EXCEPTION_LINE = /^([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)(?::\s.*|:)?\s*$/;
const PYTEST_E_LINE = /^E\s+([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?::\s.*|:)?\s*$/;

/** `KeyError`, `json.decoder.JSONDecodeError`: some dotted part starts with a capital. */
const looksLikeClass = (name: string): boolean => /(?:^|\.)[A-Z]/.test(name);

function exceptionOf(raw: RawFrames): string | null {
  if (raw.pytestException) return raw.pytestException;
  for (const l of raw.tail) {
    const e = PYTEST_E_LINE.exec(l);
    if (e && looksLikeClass(e[1]!)) return e[1]!;
  }
  // Native traceback: the first non-indented line after the last frame names the exception.
  for (const l of raw.tail) {
    if (l.trim() === "" || /^\s/.test(l)) continue;
    const m = EXCEPTION_LINE.exec(l);
    return m && looksLikeClass(m[1]!) ? m[1]! : null;
  }
  return null;
}

/** The class name of the first failure's exception (`AttributeError`, `django.core.exceptions.FieldError`). */
export function extractExceptionType(output: string, options: EvidenceOptions = {}): string | null {
  return exceptionOf(parseFrames(firstFailureBlock(output), options.projectRoot));
}

// --- failing tests -------------------------------------------------------------------------------------------------

/** Failing test ids in the form SWE-bench uses, in order of appearance, without duplicates. */
export function parseFailingTests(output: string, options: EvidenceOptions = {}): FailingTest[] {
  const found = new Map<string, FailingTest>();
  const add = (t: FailingTest): void => {
    if (!found.has(t.id)) found.set(t.id, t);
  };
  for (const raw of lines(output)) {
    const l = raw.trimEnd();
    let m: RegExpExecArray | null;
    if ((m = SYMPY_HEADER.exec(l))) {
      add({ id: m[2]!, name: m[2]!, file: relativeTo(m[1]!, options.projectRoot) });
    } else if ((m = DJANGO_HEADER.exec(l))) {
      const name = m[2]!;
      // Django >= 4.1 prints `test_x (module.Class.test_x)`; SWE-bench ids are `test_x (module.Class)`.
      const where = m[3]!.endsWith(`.${name}`) ? m[3]!.slice(0, -(name.length + 1)) : m[3]!;
      add({ id: `${name} (${where})`, name, file: null });
    } else if ((m = /^(?:FAILED|ERROR) (\S+?::\S+?|\S+\.py)(?: - .*)?$/.exec(l))) {
      add(pytestId(m[1]!, options.projectRoot));
    } else if ((m = /^(\S+?::\S+) (?:FAILED|ERROR)\b/.exec(l))) {
      add(pytestId(m[1]!, options.projectRoot));
    }
  }
  // Django does not print the test file; the traceback frame of the test function does.
  const frames = lines(output).flatMap((l) => {
    const m = NATIVE_FRAME.exec(l);
    return m ? [{ file: relativeTo(m[1]!, options.projectRoot), name: m[3] ?? null }] : [];
  });
  return [...found.values()].map((t) =>
    t.file !== null ? t : { ...t, file: frames.find((f) => f.name === t.name && isTestPath(f.file))?.file ?? null },
  );
}

function pytestId(id: string, root: string | undefined): FailingTest {
  const [file, ...rest] = id.split("::");
  const rel = relativeTo(file!, root);
  return { id: [rel, ...rest].join("::"), name: rest.at(-1) ?? rel, file: rel };
}

/** The pytest node ids of failing tests (`tests/test_auth.py::test_login`) in `output`. */
export function parsePytestNodeids(output: string, options: EvidenceOptions = {}): string[] {
  return parseFailingTests(output, options)
    .filter((t) => t.id.includes("::"))
    .map((t) => t.id);
}

// --- summary -------------------------------------------------------------------------------------------------------

const count = (text: string, re: RegExp): number => {
  const m = re.exec(text);
  return m ? Number(m[1]) : 0;
};

/** Passed and failed (failures + errors) counts from the runner's summary line, when it printed one. */
export function parseTestSummary(output: string): TestSummary | null {
  const sympy = /tests finished: ([^\n]*)/.exec(output);
  if (sympy) {
    const s = sympy[1]!;
    return {
      passed: count(s, /(\d+) passed/),
      failed: count(s, /(\d+) failed/) + count(s, /(\d+) exceptions?/) + count(s, /(\d+) expected to fail but passed/),
    };
  }
  const ran = /^Ran (\d+) tests? in /m.exec(output);
  if (ran) {
    const verdict = /^(OK|FAILED)\b(?: \(([^)]*)\))?/m.exec(output.slice(ran.index));
    const detail = verdict?.[2] ?? "";
    const failed = count(detail, /\bfailures=(\d+)/) + count(detail, /\berrors=(\d+)/);
    const notRun = count(detail, /\bskipped=(\d+)/) + count(detail, /\bexpected failures=(\d+)/);
    return { passed: Math.max(0, Number(ran[1]) - failed - notRun), failed };
  }
  const pytest = [...output.matchAll(/^=+ (.*\b(?:passed|failed|errors?|no tests ran)\b.*) =+\s*$/gm)].at(-1);
  if (pytest) {
    const s = pytest[1]!;
    return { passed: count(s, /(\d+) passed/), failed: count(s, /(\d+) failed/) + count(s, /(\d+) errors?\b/) };
  }
  return null;
}

// --- all of it -----------------------------------------------------------------------------------------------------

/** Everything the planner reads out of one test run. */
export function extractEvidence(output: string, options: EvidenceOptions = {}): Evidence {
  const raw = parseFrames(firstFailureBlock(output), options.projectRoot);
  const failingTests = parseFailingTests(output, options);
  const exceptionType = exceptionOf(raw);
  const anchor = anchorFrame(raw.frames);
  const signature = [
    exceptionType ?? "no-exception",
    anchor ? `${anchor.file}:${anchor.name ?? "?"}` : "no-frame",
    failingTests
      .map((t) => t.id)
      .sort()
      .join(","),
  ].join("|");
  return {
    framework: detectFramework(output),
    failingTests,
    exceptionType,
    frames: raw.frames,
    tracebackFile: anchor?.file ?? null,
    summary: parseTestSummary(output),
    signature,
  };
}
