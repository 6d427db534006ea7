/**
 * Which paths are tests (or test infrastructure), and which are not project code at all.
 */

/** Directories that hold tests wherever they appear. */
const TEST_DIRS_ANYWHERE = new Set(["tests", "__tests__", "__test__"]);
/**
 * Directories that hold tests only at the top of the repository: `django/test/` and `sympy/testing/` are the
 * testing frameworks' own source, while a root `test/` (JavaScript) or `testing/` (pytest) holds tests.
 */
const TEST_DIRS_AT_ROOT = new Set(["test", "testing", "spec", "specs"]);
const TEST_FILE_PATTERNS: readonly RegExp[] = [
  /^test_.*\.py$/, // test_auth.py
  /^.*_tests?\.py$/, // auth_test.py, auth_tests.py
  /^tests\.py$/, // Django apps
  /^unittest_.*\.py$/, // pylint
  /^conftest\.py$/,
  /^pytest\.ini$/,
  /^.*\.(test|spec)\.[cm]?[jt]sx?$/, // auth.test.ts, auth.spec.js
  /^test_.*\.[cm]?[jt]sx?$/,
  /^.*_test\.go$/,
  /^.*Tests?\.(java|kt|cs)$/,
  /^(jest|vitest|karma|playwright)\.config\.[cm]?[jt]s$/,
  /^\.mocharc(\.[a-z]+)?$/,
];

function segments(path: string): string[] {
  return path
    .replace(/\\/g, "/")
    .replace(/^\.\//, "")
    .split("/")
    .filter((s) => s.length > 0 && s !== ".");
}

/**
 * True for test files and test infrastructure: anything under `tests/` or `__tests__/` (anywhere) or a root
 * `test/`, `testing/`, `spec/`; files named `test_*.py`, `*_test.py`, `tests.py`, `conftest.py`, `*.test.ts`,
 * `*.spec.js`, `*_test.go`, `*Test.java`; test-runner configuration (`pytest.ini`, `jest.config.js`, ...).
 */
export function isTestPath(path: string): boolean {
  const parts = segments(path);
  const name = parts.at(-1) ?? "";
  if (TEST_FILE_PATTERNS.some((re) => re.test(name))) return true;
  const dirs = parts.slice(0, -1);
  if (dirs.some((d) => TEST_DIRS_ANYWHERE.has(d))) return true;
  return dirs.length > 0 && TEST_DIRS_AT_ROOT.has(dirs[0]!);
}

const NON_PROJECT: readonly RegExp[] = [
  /[\\/](site|dist)-packages[\\/]/,
  /[\\/]lib(64)?[\\/]python\d(\.\d+)?[\\/]/, // stdlib of system, conda, pyenv, venv pythons
  /[\\/]Lib[\\/]/, // Windows stdlib
  /^</, // <frozen importlib._bootstrap>, <string>, <doctest ...>
  /[\\/]node_modules[\\/]/,
  /^node:/,
];

/** False for standard-library, site-packages and interpreter frames. */
export function isProjectPath(path: string): boolean {
  return !NON_PROJECT.some((re) => re.test(path));
}

/** `path` relative to `root` when it lies inside it; otherwise unchanged (minus a leading `./`). */
export function relativeTo(path: string, root: string | undefined): string {
  const clean = path.replace(/\\/g, "/").replace(/^\.\//, "");
  if (!root) return clean;
  const base = root.replace(/\\/g, "/").replace(/\/+$/, "") + "/";
  return clean.startsWith(base) ? clean.slice(base.length) : clean;
}

/** Two paths name the same file when one is a suffix of the other on a segment boundary. */
export function samePath(a: string, b: string): boolean {
  const x = segments(a).join("/");
  const y = segments(b).join("/");
  if (x === y) return true;
  const [long, short] = x.length >= y.length ? [x, y] : [y, x];
  return short.length > 0 && long.endsWith("/" + short);
}
