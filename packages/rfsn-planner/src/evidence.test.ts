import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  detectFramework,
  extractEvidence,
  extractExceptionType,
  extractTracebackFile,
  extractTracebackFrames,
  parseFailingTests,
  parsePytestNodeids,
  parseTestSummary,
} from "./evidence.js";

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
const pytestLong = fixture("pytest-long.txt");
const pytestShort = fixture("pytest-short-site-packages.txt");
const django = fixture("django-runtests.txt");
const sympy = fixture("sympy-bin-test.txt");

describe("pytest output", () => {
  it("anchors the long-format traceback on the innermost project frame, with its function", () => {
    expect(extractTracebackFrames(pytestLong)).toEqual([
      { file: "tests/test_auth.py", line: 14, name: "test_login", project: true },
      { file: "src/shop/auth.py", line: 42, name: "authenticate", project: true },
    ]);
    expect(extractTracebackFile(pytestLong)).toBe("src/shop/auth.py");
    expect(extractExceptionType(pytestLong)).toBe("AttributeError");
  });

  it("skips site-packages and standard-library frames in the short format", () => {
    const frames = extractTracebackFrames(pytestShort);
    expect(frames.map((f) => [f.file, f.project])).toEqual([
      ["tests/test_client.py", true],
      ["src/shop/client.py", true],
      ["/opt/venv/lib/python3.11/site-packages/requests/models.py", false],
      ["/usr/lib/python3.11/json/__init__.py", false],
      ["/usr/lib/python3.11/json/decoder.py", false],
    ]);
    expect(extractTracebackFile(pytestShort)).toBe("src/shop/client.py");
    expect(extractExceptionType(pytestShort)).toBe("json.decoder.JSONDecodeError");
  });

  it("reads node ids from the short test summary, with classes", () => {
    expect(parsePytestNodeids(pytestLong)).toEqual([
      "tests/test_auth.py::test_login",
      "tests/test_auth.py::test_logout",
    ]);
    expect(parseFailingTests(pytestShort)).toEqual([
      {
        id: "tests/test_client.py::TestClient::test_fetch_prices",
        name: "test_fetch_prices",
        file: "tests/test_client.py",
      },
    ]);
  });

  it("reads node ids from verbose lines and collection errors", () => {
    const out = [
      "tests/test_a.py::test_one PASSED",
      "tests/test_a.py::test_two[1-2] FAILED",
      "ERROR tests/test_broken.py - ImportError: cannot import name 'x'",
    ].join("\n");
    expect(parsePytestNodeids(out)).toEqual(["tests/test_a.py::test_two[1-2]"]);
    expect(parseFailingTests(out).map((t) => t.id)).toEqual(["tests/test_a.py::test_two[1-2]", "tests/test_broken.py"]);
  });

  it("reads the summary line", () => {
    expect(parseTestSummary(pytestLong)).toEqual({ passed: 5, failed: 2 });
    expect(parseTestSummary("==== 1 failed, 3 passed, 2 errors in 1.20s ====")).toEqual({ passed: 3, failed: 3 });
    expect(parseTestSummary("============ 12 passed in 0.50s ============")).toEqual({ passed: 12, failed: 0 });
  });

  it("falls back to a test file when the failure is raised in the test itself", () => {
    const out = [
      "tests/test_math.py:9: in test_div",
      "    assert div(1, 0) == 0",
      "E   ZeroDivisionError: division by zero",
    ].join("\n");
    expect(extractTracebackFile(out)).toBe("tests/test_math.py");
    expect(extractExceptionType(out)).toBe("ZeroDivisionError");
  });
});

describe("Django runtests output", () => {
  it("returns SWE-bench style ids for both the 4.1+ and the older header format", () => {
    expect(parseFailingTests(django, { projectRoot: "/testbed" })).toEqual([
      {
        id: "test_changelist_ordering (admin_views.tests.AdminViewBasicTest)",
        name: "test_changelist_ordering",
        file: "tests/admin_views/tests.py",
      },
      {
        id: "test_list_filter_title (admin_views.tests.AdminViewBasicTest)",
        name: "test_list_filter_title",
        file: "tests/admin_views/tests.py",
      },
    ]);
    expect(parseFailingTests("FAIL: test_x (utils_tests.test_text.TestUtilsText)").map((t) => t.id)).toEqual([
      "test_x (utils_tests.test_text.TestUtilsText)",
    ]);
  });

  it("anchors on the innermost non-test project frame of the first ERROR block", () => {
    expect(extractTracebackFile(django, { projectRoot: "/testbed" })).toBe("django/contrib/admin/views/main.py");
    expect(extractExceptionType(django)).toBe("TypeError");
    const frames = extractTracebackFrames(django, { projectRoot: "/testbed" });
    expect(frames.filter((f) => !f.project).map((f) => f.file)).toEqual([
      "/usr/lib/python3.11/unittest/case.py",
      "/usr/lib/python3.11/unittest/case.py",
    ]);
    expect(frames.at(-1)).toEqual({
      file: "django/contrib/admin/views/main.py",
      line: 388,
      name: "get_ordering",
      project: true,
    });
  });

  it("reads Ran/FAILED into passed and failed counts", () => {
    expect(parseTestSummary(django)).toEqual({ passed: 1, failed: 2 });
    expect(parseTestSummary("Ran 5 tests in 0.1s\n\nOK")).toEqual({ passed: 5, failed: 0 });
    expect(parseTestSummary("Ran 5 tests in 0.1s\n\nOK (skipped=2)")).toEqual({ passed: 3, failed: 0 });
  });
});

describe("SymPy bin/test output", () => {
  it("reads ids and files from the ___ path:test ___ headers", () => {
    expect(parseFailingTests(sympy)).toEqual([
      { id: "test_ccode_Relational", name: "test_ccode_Relational", file: "sympy/printing/tests/test_ccode.py" },
      { id: "test_ccode_sinc", name: "test_ccode_sinc", file: "sympy/printing/tests/test_ccode.py" },
    ]);
  });

  it("anchors on the printer method that raised, relative to the project root", () => {
    expect(extractTracebackFile(sympy, { projectRoot: "/testbed" })).toBe("sympy/printing/ccode.py");
    expect(extractTracebackFile(sympy)).toBe("/testbed/sympy/printing/ccode.py");
    expect(extractExceptionType(sympy)).toBe("KeyError");
  });

  it("counts exceptions as failures in the tests finished line, in both banner styles", () => {
    expect(parseTestSummary(sympy)).toEqual({ passed: 2, failed: 2 });
    expect(parseTestSummary("________ tests finished: 3 passed, 1 failed ________")).toEqual({ passed: 3, failed: 1 });
    expect(parseTestSummary("== tests finished: 7 passed, 1 expected to fail, in 2.0 seconds ==")).toEqual({
      passed: 7,
      failed: 0,
    });
  });

  it("reads the exception of a bare AssertionError", () => {
    const second = sympy.slice(sympy.indexOf("____________ sympy/printing/tests/test_ccode.py:test_ccode_sinc"));
    expect(extractExceptionType(second)).toBe("AssertionError");
  });
});

describe("extractEvidence", () => {
  it("detects the framework of each runner", () => {
    expect([pytestLong, pytestShort, django, sympy, "hello"].map(detectFramework)).toEqual([
      "pytest",
      "pytest",
      "django",
      "sympy",
      "unknown",
    ]);
  });

  it("fingerprints the symptom without line numbers, so a moved line is the same symptom", () => {
    const a = extractEvidence(django, { projectRoot: "/testbed" });
    const b = extractEvidence(django.replace("line 388", "line 391"), { projectRoot: "/testbed" });
    const c = extractEvidence(django.replace("TypeError: 'NoneType'", "ValueError: 'NoneType'"), {
      projectRoot: "/testbed",
    });
    expect(a.signature).toBe(b.signature);
    expect(a.signature).not.toBe(c.signature);
    expect(a.signature).toContain("TypeError|django/contrib/admin/views/main.py:get_ordering|");
  });

  it("uses the last traceback of a chained exception", () => {
    const out = [
      "Traceback (most recent call last):",
      '  File "/app/src/cfg.py", line 3, in load',
      "    return data[key]",
      "KeyError: 'port'",
      "",
      "During handling of the above exception, another exception occurred:",
      "",
      "Traceback (most recent call last):",
      '  File "/app/src/server.py", line 10, in start',
      "    port = load('port')",
      '  File "/app/src/cfg.py", line 5, in load',
      "    raise ConfigError(key) from None",
      "app.errors.ConfigError: port",
    ].join("\n");
    const ev = extractEvidence(out, { projectRoot: "/app" });
    expect(ev.exceptionType).toBe("app.errors.ConfigError");
    expect(ev.frames.map((f) => f.file)).toEqual(["src/server.py", "src/cfg.py"]);
  });
});
