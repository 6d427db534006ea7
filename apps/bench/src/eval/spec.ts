/**
 * What the SWE-bench harness (v4.1.0, tag `v4.1.0`, commit 726c546) runs for one instance, as pure
 * functions: the instance record, the per-(repo, version) test command and install line of the 12
 * SWE-bench Lite repositories, the test directives, the test files the script resets, the
 * `/eval.sh` text (byte for byte `TestSpec.eval_script`), the instance image name and the
 * model-patch apply chain. Mirrors `swebench/harness/{constants,test_spec,utils}` of that version;
 * `/work/shared/reference/swebench-harness.md` §1, §2 and §4 describe the same rules.
 */
import { z } from "zod";
import * as Data from "effect/Data";

// --- The instance --------------------------------------------------------------------------------

/** A JSON-encoded string array (as the dataset stores F2P/P2P), decoded; anything else is an issue. */
const jsonStringArray = z
  .string()
  .transform((text, ctx): unknown => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "not a JSON-encoded string array" });
      return z.NEVER;
    }
  })
  .pipe(z.array(z.string()));

/** F2P / P2P: an array, or its JSON encoding; missing → `[]` (the harness's `_from_json_or_obj`). */
const testList = z
  .union([z.array(z.string()), jsonStringArray])
  .optional()
  .transform((list) => list ?? []);

export const EvalInstanceSchema = z.looseObject({
  repo: z.string().describe("owner/name, e.g. django/django"),
  instance_id: z.string().min(1),
  base_commit: z.string().min(1),
  /**
   * The spec-table key. A JSON number is accepted and written with `String(n)`: 3.1 → "3.1", but
   * 3.0 → "3" (a JSON number cannot carry the written form), so datasets should use strings.
   */
  version: z.union([z.string(), z.number().transform((n) => String(n))]),
  test_patch: z.string(),
  FAIL_TO_PASS: testList,
  PASS_TO_PASS: testList,
  problem_statement: z.string().optional(),
});
export type EvalInstance = z.infer<typeof EvalInstanceSchema>;

// --- Marker strings (constants/__init__.py) -------------------------------------------------------

export const START_TEST_OUTPUT = ">>>>> Start Test Output";
export const END_TEST_OUTPUT = ">>>>> End Test Output";
export const APPLY_PATCH_FAIL = ">>>>> Patch Apply Failed";
export const APPLY_PATCH_PASS = ">>>>> Applied Patch";
export const RESET_FAILED = ">>>>> Reset Failed";
export const TESTS_ERROR = ">>>>> Tests Errored";
export const TESTS_TIMEOUT = ">>>>> Tests Timed Out";
/** The heredoc delimiter around the test patch in `/eval.sh`. */
export const HEREDOC_DELIMITER = "EOF_114329324912";
/** Where the model patch is copied in the container (`DOCKER_PATCH`). */
export const DOCKER_PATCH = "/tmp/patch.diff";

// --- The spec table (constants/python.py, Lite rows only) -----------------------------------------

export interface RepoVersionSpec {
  readonly test_cmd: string;
  readonly install?: string;
  readonly eval_commands: readonly string[];
}

/** `TEST_PYTEST` is defined twice in constants/python.py; the second, plain one wins. */
const TEST_PYTEST = "pytest -rA";
const TEST_ASTROPY_PYTEST = "pytest -rA -vv -o console_output_style=classic --tb=no";
const TEST_DJANGO = "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1";
const TEST_SEABORN = "pytest --no-header -rA";
const TEST_SPHINX = "tox --current-env -epy39 -v --";
const TEST_SYMPY = "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose";
const PIP_EDITABLE = "python -m pip install -e .";
const DJANGO_LOCALE = [
  "sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen",
  "export LANG=en_US.UTF-8",
  "export LANGUAGE=en_US:en",
  "export LC_ALL=en_US.UTF-8",
] as const;

type SpecRows = readonly (readonly [repo: string, versions: string, spec: RepoVersionSpec])[];

const spec = (test_cmd: string, install: string, eval_commands: readonly string[] = []): RepoVersionSpec => ({
  test_cmd,
  install,
  eval_commands,
});

/** (repo, space-separated versions, spec): every (repo, version) pair that SWE-bench Lite uses. */
const SPEC_ROWS: SpecRows = [
  ["astropy/astropy", "1.3", spec(TEST_ASTROPY_PYTEST, "python -m pip install -e .[test] --verbose")],
  ["astropy/astropy", "4.3 5.1 5.2", spec(TEST_PYTEST, "python -m pip install -e .[test] --verbose")],
  ["django/django", "3.0 3.1 3.2", spec(TEST_DJANGO, PIP_EDITABLE, DJANGO_LOCALE)],
  ["django/django", "4.0 4.1 4.2 5.0", spec(TEST_DJANGO, PIP_EDITABLE)],
  ["matplotlib/matplotlib", "3.3 3.5 3.6 3.7", spec(TEST_PYTEST, PIP_EDITABLE)],
  ["mwaskom/seaborn", "0.12 0.13", spec(TEST_SEABORN, "python -m pip install -e .[dev]")],
  ["pallets/flask", "2.0 2.3", spec(TEST_PYTEST, PIP_EDITABLE)],
  ["psf/requests", "0.14 2.3 2.4 2.7 2.10", spec(TEST_PYTEST, "python -m pip install .")],
  ["pydata/xarray", "0.12", spec(TEST_PYTEST, PIP_EDITABLE)],
  ["pylint-dev/pylint", "2.13 2.14 2.15", spec(TEST_PYTEST, PIP_EDITABLE)],
  ["pytest-dev/pytest", "4.4 4.5 4.6 5.0 5.2 5.4 6.0 6.3 7.0 8.0", spec(TEST_PYTEST, PIP_EDITABLE)],
  [
    "scikit-learn/scikit-learn",
    "0.20 0.21 0.22 1.3",
    spec(TEST_PYTEST, "python -m pip install -v --no-use-pep517 --no-build-isolation -e ."),
  ],
  ["sphinx-doc/sphinx", "3.1 3.2 3.3 3.4 3.5 4.0 5.0 5.1 7.1", spec(TEST_SPHINX, "python -m pip install -e .[test]")],
  ["sympy/sympy", "1.0 1.1 1.2 1.4 1.5 1.6 1.7 1.8 1.9 1.10 1.11 1.12 1.13", spec(TEST_SYMPY, PIP_EDITABLE)],
];

function buildSpecTable(rows: SpecRows): ReadonlyMap<string, ReadonlyMap<string, RepoVersionSpec>> {
  const table = new Map<string, Map<string, RepoVersionSpec>>();
  for (const [repo, versions, rowSpec] of rows) {
    const byVersion = table.get(repo) ?? new Map<string, RepoVersionSpec>();
    for (const version of versions.split(" ")) byVersion.set(version, rowSpec);
    table.set(repo, byVersion);
  }
  return table;
}

/** repo → version → spec, for the 64 (repo, version) pairs of SWE-bench Lite. */
export const SPEC_TABLE: ReadonlyMap<string, ReadonlyMap<string, RepoVersionSpec>> = buildSpecTable(SPEC_ROWS);

/** The harness's `MAP_REPO_VERSION_TO_SPECS[repo][version]` (Lite rows), or undefined. */
export function specFor(repo: string, version: string): RepoVersionSpec | undefined {
  return SPEC_TABLE.get(repo)?.get(version);
}

// --- Test directives and the reset list -----------------------------------------------------------

/** `NON_TEST_EXTS`; note `csv` has no dot. */
export const NON_TEST_EXTS: readonly string[] = [
  ".json",
  ".png",
  "csv",
  ".txt",
  ".md",
  ".jpg",
  ".jpeg",
  ".pkl",
  ".yml",
  ".yaml",
  ".toml",
];

/** Python's `diff --git a/.* b/(.*)` with `re.findall`: `.` is anything but `\n`, unanchored. */
const DIRECTIVE_PATTERN = /diff --git a\/[^\n]* b\/([^\n]*)/g;

function djangoDirective(path: string): string {
  let d = path.endsWith(".py") ? path.slice(0, -".py".length) : path;
  d = d.startsWith("tests/") ? d.slice("tests/".length) : d;
  return d.replaceAll("/", ".");
}

/** `get_test_directives`: the test patch's `b/` paths, non-test extensions dropped, django as modules. */
export function testDirectives(instance: { readonly repo: string; readonly test_patch: string }): string[] {
  const paths = [...instance.test_patch.matchAll(DIRECTIVE_PATTERN)].map((m) => m[1] ?? "");
  const kept = paths.filter((d) => !NON_TEST_EXTS.some((ext) => d.endsWith(ext)));
  return instance.repo === "django/django" ? kept.map(djangoDirective) : kept;
}

/** Thrown where unidiff (and so the harness) would raise `UnidiffParseError` on a test patch. */
export class PatchParseError extends Data.TaggedError("PatchParseError")<{ readonly message: string }> {}

const DEV_NULL = "/dev/null";

interface PatchedFile {
  source: string;
  target: string;
  hunks: number;
}

/** unidiff 0.7.5's `diff --git` header regexes, tried in its order. */
const GIT_HEADERS = [
  /^diff --git (a\/[^\t\n]+) (b\/[^\t\n]+)/,
  /^diff --git ([^\n]*:\/\/[^\t\n]+) ([^\n]*:\/\/[^\t\n]+)/,
  /^diff --git ([^\t\n]+) ([^\t\n]+)/,
];
const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const BINARY_DIFF =
  /^Binary files? ([^\t]+?)(?:\t[\s0-9:+-]+)?(?: and ([^\t]+?)(?:\t[\s0-9:+-]+)?)? (differ|has changed)/;

/**
 * Consumes one hunk body starting at `lines[start]` (unidiff's `_parse_hunk`); returns the index
 * of the first line after it.
 */
function skipHunk(lines: readonly string[], start: number, header: RegExpExecArray): number {
  let source = Number(header[1]);
  let target = Number(header[3]);
  const sourceEnd = source + (header[2] === undefined ? 1 : Number(header[2]));
  const targetEnd = target + (header[4] === undefined ? 1 : Number(header[4]));
  let i = start;
  for (; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const kind = /^[- +\\]/.test(line) ? line[0] : /^[- +\\]?[\r\n]{1,2}/.test(line) || line === "" ? " " : undefined;
    if (kind === undefined) throw new PatchParseError({ message: `Hunk diff line expected: ${line}` });
    if (kind !== "+" && kind !== "\\") source++;
    if (kind !== "-" && kind !== "\\") target++;
    if (source > sourceEnd || target > targetEnd)
      throw new PatchParseError({ message: "Hunk is longer than expected" });
    if (source === sourceEnd && target === targetEnd) return i + 1;
  }
  if (source < sourceEnd || target < targetEnd) throw new PatchParseError({ message: "Hunk is shorter than expected" });
  return i;
}

/** The parse state of unidiff's `PatchSet._parse`. */
interface ParseState {
  readonly files: PatchedFile[];
  current: PatchedFile | undefined;
  inInfo: boolean;
  /** The last `---` name or `diff --git` source (Python's `source_file` local). */
  pendingSource: string | undefined;
}

/** The metadata lines (`diff --git`, new/deleted, `---`, `+++`); true when the line was one. */
function metadataLine(state: ParseState, line: string): boolean {
  const git = GIT_HEADERS.map((re) => re.exec(line)).find((m) => m !== null);
  if (git) {
    state.pendingSource = git[1] ?? "";
    state.current = { source: state.pendingSource, target: git[2] ?? "", hunks: 0 };
    state.files.push(state.current);
    state.inInfo = true;
    return true;
  }
  const newFile = /^new file mode \d+$/.test(line);
  if (newFile || /^deleted file mode \d+$/.test(line)) {
    if (!state.current || !state.inInfo) throw new PatchParseError({ message: `Unexpected file mode line: ${line}` });
    if (newFile) state.current.source = DEV_NULL;
    else state.current.target = DEV_NULL;
    return true;
  }
  const source = /^--- ([^\t\n]+)/.exec(line);
  if (source) {
    state.pendingSource = source[1] ?? "";
    if (state.current && state.current.source !== state.pendingSource) state.current = undefined;
    return true;
  }
  const target = /^\+\+\+ ([^\t\n]+)/.exec(line);
  if (!target) return false;
  if (state.current && state.current.target !== target[1])
    throw new PatchParseError({ message: `Target without source: ${line}` });
  if (!state.current) {
    if (state.pendingSource === undefined) throw new PatchParseError({ message: `Target without source: ${line}` });
    state.current = { source: state.pendingSource, target: target[1] ?? "", hunks: 0 };
    state.files.push(state.current);
    state.inInfo = false;
  }
  return true;
}

/** Any other line: patch info, or a binary-file notice that ends the current file. */
function infoLine(state: ParseState, line: string): void {
  if (!state.inInfo) {
    state.current = undefined;
    state.inInfo = true;
  }
  const binary = BINARY_DIFF.exec(line);
  if (!binary && line !== "GIT binary patch") return;
  if (!binary && !state.current) throw new PatchParseError({ message: `Unexpected binary patch: ${line}` });
  if (binary && !state.current) state.files.push({ source: binary[1] ?? "", target: binary[2] ?? "", hunks: 0 });
  state.current = undefined;
  state.inInfo = false;
}

/** The files of a unified diff as unidiff 0.7.5's `PatchSet` lists them (source/target names only). */
function patchedFiles(patch: string): PatchedFile[] {
  const lines = patch.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const state: ParseState = { files: [], current: undefined, inInfo: false, pendingSource: undefined };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (metadataLine(state, line)) continue;
    const hunk = HUNK_HEADER.exec(line);
    const current = state.current;
    if (hunk || /^\\ No newline at end of file/.test(line) || (line === "" && current)) {
      if (!current || (!hunk && current.hunks === 0))
        throw new PatchParseError({ message: `Unexpected line: ${line}` });
      if (hunk) {
        state.inInfo = false;
        current.hunks++;
        i = skipHunk(lines, i + 1, hunk) - 1;
      }
      continue;
    }
    infoLine(state, line);
  }
  return state.files;
}

/**
 * `get_modified_files` (harness utils): the test patch's files whose source is not /dev/null, with
 * `a/` stripped (sources without it are dropped), in patch order. New files are not listed.
 */
export function modifiedTestFiles(testPatch: string): string[] {
  return patchedFiles(testPatch)
    .map((file) => file.source)
    .filter((source) => source !== DEV_NULL && source.startsWith("a/"))
    .map((source) => source.slice(2));
}

// --- The eval script ------------------------------------------------------------------------------

/** How the image's Python environment is entered, and the install line re-run before the tests. */
export interface EvalEnvironment {
  readonly activate: readonly string[];
  readonly install?: string;
}

/** The official images: conda env `testbed` under /opt/miniconda3; install comes from the spec. */
export const HARNESS_ENVIRONMENT: EvalEnvironment = {
  activate: ["source /opt/miniconda3/bin/activate", "conda activate testbed"],
};

const REPO_DIRECTORY = "/testbed";

/** The command lines of `make_eval_script_list_py` (v4.1.0), with the environment's activate/install. */
function evalScriptLines(instance: EvalInstance, spec: RepoVersionSpec, environment: EvalEnvironment): string[] {
  const base = instance.base_commit;
  const reset = `git checkout ${base} ${modifiedTestFiles(instance.test_patch).join(" ")}`;
  const applyTestPatch = `git apply -v - <<'${HEREDOC_DELIMITER}'\n${instance.test_patch}\n${HEREDOC_DELIMITER}`;
  const testCommand = [spec.test_cmd, ...testDirectives(instance)].join(" ");
  const install = environment.install ?? spec.install;
  return [
    ...environment.activate,
    `cd ${REPO_DIRECTORY}`,
    ...spec.eval_commands,
    `git config --global --add safe.directory ${REPO_DIRECTORY}`,
    `cd ${REPO_DIRECTORY}`,
    "git status",
    "git show",
    `git -c core.fileMode=false diff ${base}`,
    ...environment.activate,
    ...(install === undefined ? [] : [install]),
    reset,
    applyTestPatch,
    `: '${START_TEST_OUTPUT}'`,
    testCommand,
    `: '${END_TEST_OUTPUT}'`,
    reset,
  ];
}

/**
 * The `/eval.sh` text. With the default environment this is byte for byte the harness's
 * `TestSpec.eval_script`: `"\n".join(["#!/bin/bash", "set -uxo pipefail"] + lines) + "\n"`.
 * A given environment replaces both activation pairs, and the install line when it has one.
 * Throws (as `make_test_spec` would) when the test patch cannot be parsed.
 */
export function evalScript(
  instance: EvalInstance,
  spec: RepoVersionSpec,
  environment: EvalEnvironment = HARNESS_ENVIRONMENT,
): string {
  return `${["#!/bin/bash", "set -uxo pipefail", ...evalScriptLines(instance, spec, environment)].join("\n")}\n`;
}

// --- Images and the model-patch apply chain -------------------------------------------------------

export interface ImageNameOptions {
  /** Registry namespace; `null` = locally built images (no prefix, no `_1776_`). Default "swebench". */
  readonly namespace?: string | null;
  readonly tag?: string;
  readonly arch?: string;
}

/** `TestSpec.instance_image_key`: `[namespace/]sweb.eval.<arch>.<id lower>:<tag>`, `__` → `_1776_` with a namespace. */
export function instanceImageName(instanceId: string, options: ImageNameOptions = {}): string {
  const namespace = options.namespace === undefined ? "swebench" : options.namespace;
  const key = `sweb.eval.${options.arch ?? "x86_64"}.${instanceId.toLowerCase()}:${options.tag ?? "latest"}`;
  return namespace === null ? key : `${namespace}/${key}`.replaceAll("__", "_1776_");
}

/** `GIT_APPLY_CMDS` + the patch path, as argv (docker-py splits the string; first exit 0 wins). */
export function patchApplyCommands(path: string = DOCKER_PATCH): string[][] {
  return [
    ["git", "apply", "--verbose", path],
    ["git", "apply", "--verbose", "--reject", path],
    ["patch", "--batch", "--fuzz=5", "-p1", "-i", path],
  ];
}
