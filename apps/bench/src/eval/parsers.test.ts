import { describe, expect, it } from "vitest";
import {
  HarnessParseError,
  parseLogDjango,
  parseLogMatplotlib,
  parseLogPytest,
  parseLogPytestOptions,
  parseLogPytestV2,
  parseLogSeaborn,
  parseLogSympy,
  parserFor,
  pySplit,
  pyStrip,
  type StatusMap,
} from "./parsers.js";

/** A status map as a plain object, for toEqual (the parsers return null-prototype objects). */
const plain = (map: StatusMap): Record<string, string> => ({ ...map });

/** pytest 7 `-rA` output as flask/xarray/pytest-dev print it (the short test summary). */
const PYTEST_RA = `+ : '>>>>> Start Test Output'
+ pytest -rA tests/test_config.py
============================= test session starts ==============================
platform linux -- Python 3.11.9, pytest-7.4.4, pluggy-1.5.0
rootdir: /testbed
configfile: pyproject.toml
collected 7 items

tests/test_config.py ..F.sxE                                             [100%]

==================================== ERRORS ====================================
______________________ ERROR at setup of test_session _________________________
file /testbed/tests/test_config.py, line 40
E       fixture 'app2' not found
=================================== FAILURES ===================================
__________________________ test_config_from_file_toml __________________________
E       TypeError: load() got an unexpected keyword argument 'text'
==================================== PASSES ====================================
=========================== short test summary info ============================
PASSED tests/test_config.py::test_config_from_pyfile
PASSED tests/test_config.py::test_config_from_object
PASSED tests/test_config.py::test_from_prefixed_env[with spaces in the id]
SKIPPED [1] tests/test_config.py:210: requires tomllib
XFAIL tests/test_config.py::test_get_namespace - reason: not implemented
ERROR tests/test_config.py::test_session - fixture 'app2' not found
FAILED tests/test_config.py::test_config_from_file_toml - TypeError: load() got an unexpected keyword argument 'text'
============= 1 failed, 3 passed, 1 skipped, 1 xfailed, 1 error in 0.12s =============
+ : '>>>>> End Test Output'
`;

describe("parse_log_pytest", () => {
  it("reads the -rA short summary: key = second token, value = first", () => {
    expect(plain(parseLogPytest(PYTEST_RA))).toEqual({
      "tests/test_config.py::test_config_from_pyfile": "PASSED",
      "tests/test_config.py::test_config_from_object": "PASSED",
      "tests/test_config.py::test_from_prefixed_env[with": "PASSED",
      "[1]": "SKIPPED",
      "tests/test_config.py::test_get_namespace": "XFAIL",
      "tests/test_config.py::test_session": "ERROR",
      "tests/test_config.py::test_config_from_file_toml": "FAILED",
    });
  });

  it("truncates ids with spaces at the first space, and a FAILED id at an inner ' - '", () => {
    const log = "FAILED tests/t.py::test_sub[a - b] - AssertionError\nPASSED tests/t.py::test_p[x y]\n";
    expect(plain(parseLogPytest(log))).toEqual({
      "tests/t.py::test_sub[a": "FAILED",
      "tests/t.py::test_p[x": "PASSED",
    });
  });

  it("only reads lines that start with a status word, skips a bare word, and ignores XPASS", () => {
    const log = "  PASSED tests/t.py::indented\nPASSED\nXPASS tests/t.py::test_xpass\nERROR collecting tests/t.py\n";
    expect(plain(parseLogPytest(log))).toEqual({ collecting: "ERROR" });
  });

  it("lets a later line win for the same id", () => {
    expect(plain(parseLogPytest("FAILED t.py::a\nPASSED t.py::a\n"))).toEqual({ "t.py::a": "PASSED" });
  });

  it("keeps ids that are Object.prototype names as plain keys", () => {
    const map = parseLogPytest("PASSED __proto__\nFAILED constructor\n");
    expect(Object.keys(map)).toEqual(["__proto__", "constructor"]);
    expect(map["__proto__"]).toBe("PASSED");
    expect(Object.getPrototypeOf(map)).toBeNull();
  });
});

describe("parse_log_pytest_options (requests, pylint)", () => {
  it("shortens an absolute-path parameter to / and its last component", () => {
    const log = [
      "PASSED tests/test_requests.py::test_path[/tmp/pytest-of-root/pytest-0/test_path0/file.txt]",
      "FAILED tests/test_utils.py::test_unc[//server/share/x] - AssertionError",
      "PASSED tests/test_lint.py::test_glob[/usr/lib/*.py]",
      "PASSED tests/test_functional.py::test_functional[recursion_error_3152]",
      "PASSED tests/test_self.py::test_cwd[/a/b]trailing",
      "PASSED tests/test_self.py::test_plain",
    ].join("\n");
    expect(plain(parseLogPytestOptions(log))).toEqual({
      "tests/test_requests.py::test_path[/file.txt]": "PASSED",
      "tests/test_utils.py::test_unc[//server/share/x]": "FAILED",
      "tests/test_lint.py::test_glob[/usr/lib/*.py]": "PASSED",
      "tests/test_functional.py::test_functional[recursion_error_3152]": "PASSED",
      "tests/test_self.py::test_cwd[/b]": "PASSED",
      "tests/test_self.py::test_plain": "PASSED",
    });
  });
});

describe("parse_log_pytest_v2 (astropy, scikit-learn, sphinx)", () => {
  it("reads astropy 1.3's -vv classic lines that end in the status", () => {
    const log = [
      "astropy/io/fits/tests/test_checksum.py::TestChecksumFunctions::test_sample_file PASSED",
      "astropy/io/fits/tests/test_checksum.py::TestChecksumFunctions::test_image_create FAILED",
      "astropy/io/fits/tests/test_checksum.py::TestChecksumFunctions::test_nonstandard_checksum SKIPPED",
      "astropy/io/fits/tests/test_checksum.py::test_xfail xfail",
      "=================== 1 failed, 1 passed, 1 skipped in 2.31 seconds ===================",
    ].join("\n");
    expect(plain(parseLogPytestV2(log))).toEqual({
      "astropy/io/fits/tests/test_checksum.py::TestChecksumFunctions::test_sample_file": "PASSED",
      "astropy/io/fits/tests/test_checksum.py::TestChecksumFunctions::test_image_create": "FAILED",
      "astropy/io/fits/tests/test_checksum.py::TestChecksumFunctions::test_nonstandard_checksum": "SKIPPED",
    });
  });

  it("strips colour codes and control characters before reading the summary", () => {
    const log = [
      "\x1b[32mPASSED\x1b[0m sklearn/tests/test_base.py::test_clone",
      "\x1b[31mFAILED\x1b[0m sklearn/tests/test_base.py::test_repr - AssertionError: x",
      "\x1b[33mSKIPPED\x1b[0m [2] sklearn/tests/test_base.py:12: no pandas",
      "\x1b[1m\x1b[31mERROR\x1b[0m sklearn/tests/test_base.py::test_pickle\r",
    ].join("\n");
    expect(plain(parseLogPytestV2(log))).toEqual({
      "sklearn/tests/test_base.py::test_clone": "PASSED",
      "sklearn/tests/test_base.py::test_repr": "FAILED",
      "[2]": "SKIPPED",
      "sklearn/tests/test_base.py::test_pickle": "ERROR",
    });
  });

  it("leaves codes with a semicolon, and stores the second token of any line ending in a status word", () => {
    const log = "[1;31mFAILED t.py::a\nsome words ERROR\n";
    expect(plain(parseLogPytestV2(log))).toEqual({ some: "words" });
  });
});

describe("parse_log_matplotlib", () => {
  it("replaces MouseButton.LEFT/RIGHT with 1/3 before reading pytest lines", () => {
    const log = [
      "PASSED lib/matplotlib/tests/test_widgets.py::test_span_selector_drag[MouseButton.LEFT-True]",
      "FAILED lib/matplotlib/tests/test_widgets.py::test_lasso[MouseButton.RIGHT] - assert 0",
      "PASSED lib/matplotlib/tests/test_axes.py::test_get_labels",
    ].join("\n");
    expect(plain(parseLogMatplotlib(log))).toEqual({
      "lib/matplotlib/tests/test_widgets.py::test_span_selector_drag[1-True]": "PASSED",
      "lib/matplotlib/tests/test_widgets.py::test_lasso[3]": "FAILED",
      "lib/matplotlib/tests/test_axes.py::test_get_labels": "PASSED",
    });
  });
});

describe("parse_log_seaborn", () => {
  it("records FAILED and PASSED only, from summary and verbose lines", () => {
    const log = [
      "tests/test_core.py::TestHueMapping::test_init_from_map PASSED        [ 10%]",
      "PASSED tests/test_core.py::TestVectorPlotter::test_long_df",
      "FAILED tests/_core/test_plot.py::TestPlotting::test_limits - AssertionError",
      "SKIPPED [1] tests/test_core.py:30: needs scipy",
      "XFAIL tests/test_core.py::test_xfail - flaky",
      "ERROR tests/test_core.py::test_setup",
      "the result PASSED inspection",
    ].join("\n");
    expect(plain(parseLogSeaborn(log))).toEqual({
      "tests/test_core.py::TestHueMapping::test_init_from_map": "PASSED",
      "tests/test_core.py::TestVectorPlotter::test_long_df": "PASSED",
      "tests/_core/test_plot.py::TestPlotting::test_limits": "FAILED",
    });
  });

  it("raises, as the harness does, on a status line with no id", () => {
    expect(() => parseLogSeaborn("FAILED\n")).toThrow(HarnessParseError);
    expect(() => parseLogSeaborn("PASSED")).toThrow(HarnessParseError);
  });
});

/** Django's runner at verbosity 2 (Django 3.x, Python 3.6–3.9 ids). */
const DJANGO_LOG = `+ ./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 httpwrappers.tests
Testing against Django installed in '/testbed/django'
Importing application httpwrappers
Skipping setup of unused database(s): default, other.
System check identified no issues (0 silenced).
test_basic (httpwrappers.tests.QueryDictTests) ... ok
test_cookie_edgecases (httpwrappers.tests.CookieTests) ... FAIL
test_json_response_raises (httpwrappers.tests.JsonResponseTests) ... ERROR
test_stream (httpwrappers.tests.FileCloseTests) ... skipped 'requires a filesystem'
test_newlines_in_headers (httpwrappers.tests.HttpResponseTests)
Make sure HttpResponse handles newline characters. ... ok
test_upper_ok (httpwrappers.tests.X) ... OK
test_two_spaces (httpwrappers.tests.X) ...  OK
test_printing (httpwrappers.tests.StreamingTests) ... some output printed by the test
more output
ok

======================================================================
FAIL: test_cookie_edgecases (httpwrappers.tests.CookieTests)
----------------------------------------------------------------------
Traceback (most recent call last):
AssertionError: 'a' != 'b'

======================================================================
ERROR: test_json_response_raises (httpwrappers.tests.JsonResponseTests)
----------------------------------------------------------------------
Ran 8 tests in 0.021s

FAILED (failures=1, errors=1, skipped=1)
`;

describe("parse_log_django", () => {
  it("reads verbosity-2 lines, docstring ids, output between ... and ok, and FAIL:/ERROR: stray keys", () => {
    expect(plain(parseLogDjango(DJANGO_LOG))).toEqual({
      "test_basic (httpwrappers.tests.QueryDictTests)": "PASSED",
      "test_cookie_edgecases (httpwrappers.tests.CookieTests)": "FAILED",
      "test_json_response_raises (httpwrappers.tests.JsonResponseTests)": "ERROR",
      "test_stream (httpwrappers.tests.FileCloseTests)": "SKIPPED",
      "Make sure HttpResponse handles newline characters.": "PASSED",
      "test_upper_ok (httpwrappers.tests.X)": "PASSED",
      "test_two_spaces (httpwrappers.tests.X)": "PASSED",
      "test_printing (httpwrappers.tests.StreamingTests)": "PASSED",
      test_cookie_edgecases: "FAILED",
      test_json_response_raises: "ERROR",
    });
  });

  it("reads Python 3.11 ids (Class.method), as django 5.0 prints them", () => {
    const log =
      "test_get (admin_views.tests.AdminViewBasicTest.test_get) ... ok\ntest_post (admin_views.tests.AdminViewBasicTest.test_post) ... FAIL\n";
    expect(plain(parseLogDjango(log))).toEqual({
      "test_get (admin_views.tests.AdminViewBasicTest.test_get)": "PASSED",
      "test_post (admin_views.tests.AdminViewBasicTest.test_post)": "FAILED",
    });
  });

  it("marks the last ' ... ' test PASSED on any later line starting with ok, even one that failed", () => {
    const log = "test_a (m.T) ... FAIL\nokay, unrelated output\n";
    expect(plain(parseLogDjango(log))).toEqual({ "test_a (m.T)": "PASSED" });
  });

  it("strips the migration output glued to django-7188's test", () => {
    const log =
      "  Applying sites.0002_alter_domain_unique...test_no_migrations (migrations.test_loader.LoaderTests) ... ok\n";
    expect(plain(parseLogDjango(log))).toEqual({ "test_no_migrations (migrations.test_loader.LoaderTests)": "PASSED" });
  });

  it("records the --version line as a literal key", () => {
    const log = "test_version (admin_scripts.tests.CommandTypes)\n--version is equivalent to version ... ok\n";
    expect(plain(parseLogDjango(log))).toEqual({ "--version is equivalent to version": "PASSED" });
  });

  it("passes a test whose ok follows a 'Testing against Django installed in … silenced).' block", () => {
    const log = [
      "test_outer (admin_scripts.tests.ManageRunserver) ... Testing against Django installed in '/testbed/django'",
      "test_inner (admin_scripts.tests.Inner) ... skipped 'no'",
      "System check identified no issues (0 silenced).",
      "ok",
    ].join("\n");
    expect(plain(parseLogDjango(log))).toEqual({
      "test_outer (admin_scripts.tests.ManageRunserver)": "PASSED",
      "test_inner (admin_scripts.tests.Inner)": "PASSED",
    });
  });

  it("applies the Internal Server Error and System check patterns with any whitespace around ...", () => {
    const log =
      "test_500 (view_tests.tests.X)\t...\tInternal Server Error: /raises500/\nok\ntest_sys (check_framework.tests.Y)\t...\tSystem check identified no issues (0 silenced)\nok\n";
    const map = plain(parseLogDjango(log));
    expect(map["test_500 (view_tests.tests.X)"]).toBe("PASSED");
    expect(map["test_sys (check_framework.tests.Y)"]).toBe("PASSED");
  });

  it("sees ^ and $ only at \\n, as Python's re.MULTILINE does", () => {
    const line = "x\rtest_cr (m.T)\t...\tSystem check identified no issues (0 silenced)\nok";
    expect(plain(parseLogDjango(`${line}\r\n`))).toEqual({});
    expect(plain(parseLogDjango(`${line}\n`))).toEqual({ "x\rtest_cr (m.T)": "PASSED" });
  });

  it("raises on a bare FAIL: line, as the harness does", () => {
    expect(() => parseLogDjango("FAIL:\n")).toThrow(HarnessParseError);
  });
});

/** sympy's bin/test -C --verbose output. */
const SYMPY_LOG = `============================= test process starts ==============================
executable:         /opt/miniconda3/envs/testbed/bin/python  (3.9.19-final-0) [CPython]
architecture:       64-bit
cache:              no
ground types:       python
numpy:              None
random seed:        81962303
hash randomization: on (PYTHONHASHSEED=3417410093)

sympy/printing/tests/test_ccode.py[6]
test_printmethod ok
test_ccode_sqrt ok
test_ccode_Pow F
test_ccode_Max E
test_ccode_known_functions f
test_ccode_slow s                                                         [FAIL]


________________________________________________________________________________
________ sympy/printing/tests/test_ccode.py:test_ccode_Max _________
Traceback (most recent call last):
  File "/testbed/sympy/printing/tests/test_ccode.py", line 40, in test_ccode_Max
NameError: name 'Max' is not defined
________________________________________________________________________________
_________ sympy/printing/tests/test_ccode.py:test_ccode_Pow __________
AssertionError

= tests finished: 2 passed, 1 failed, 1 skipped, 1 expected to fail, 1 exceptions, in 0.31 seconds =
DO *NOT* COMMIT!
`;

describe("parse_log_sympy", () => {
  it("reads test_ lines by their ending and ___ file.py:test ___ headers as FAILED", () => {
    expect(plain(parseLogSympy(SYMPY_LOG))).toEqual({
      "sympy/printing/tests/test_ccode.py:test_ccode_Max": "FAILED",
      "sympy/printing/tests/test_ccode.py:test_ccode_Pow": "FAILED",
      test_printmethod: "PASSED",
      test_ccode_sqrt: "PASSED",
      test_ccode_Pow: "FAILED",
      test_ccode_Max: "ERROR",
    });
  });

  it("strips each line, so \\r\\n endings and indentation still read", () => {
    expect(plain(parseLogSympy("  test_a ok\r\ntest_b F\r\n"))).toEqual({ test_a: "PASSED", test_b: "FAILED" });
  });
});

describe("Python string semantics", () => {
  it("splits and strips on Python's whitespace (incl. \\x1c and \\x85, not the BOM)", () => {
    expect(pySplit(" a\x1cb\x85c\u3000d\ufeffe ")).toEqual(["a", "b", "c", "d\ufeffe"]);
    expect(pyStrip("\x1f\u00a0 x \u2028")).toBe("x");
  });
});

describe("the parser map", () => {
  it("maps the 12 Lite repositories to the harness's parsers", () => {
    expect(parserFor("django/django")).toBe(parseLogDjango);
    expect(parserFor("sympy/sympy")).toBe(parseLogSympy);
    expect(parserFor("astropy/astropy")).toBe(parseLogPytestV2);
    expect(parserFor("scikit-learn/scikit-learn")).toBe(parseLogPytestV2);
    expect(parserFor("sphinx-doc/sphinx")).toBe(parseLogPytestV2);
    expect(parserFor("psf/requests")).toBe(parseLogPytestOptions);
    expect(parserFor("pylint-dev/pylint")).toBe(parseLogPytestOptions);
    expect(parserFor("matplotlib/matplotlib")).toBe(parseLogMatplotlib);
    expect(parserFor("mwaskom/seaborn")).toBe(parseLogSeaborn);
    expect(parserFor("pallets/flask")).toBe(parseLogPytest);
    expect(parserFor("pydata/xarray")).toBe(parseLogPytest);
    expect(parserFor("pytest-dev/pytest")).toBe(parseLogPytest);
    expect(parserFor("pvlib/pvlib-python")).toBeUndefined();
  });
});
