/**
 * A hand-written corpus of test-weakening edits and of ordinary fixes, run through the gate three ways:
 * with the simulated file changes under the default policy and under `allowTestEdits`, and from the plan alone
 * (a legacy find-and-replace step, no file changes) under `allowTestEdits`.
 *
 * Measured: every weakening edit is rejected (INVARIANT_VIOLATION); no ordinary fix is.
 */
import { afterAll, describe, expect, it } from "vitest";
import { Gate } from "./gate.js";
import type { GateResult } from "./schemas.js";
import type { WeakeningRule } from "./weakening.js";

interface Pair {
  readonly name: string;
  /** For weakening edits: the rule that must report it. */
  readonly rule?: WeakeningRule;
  readonly path: string;
  readonly before: string;
  readonly after: string;
}

const lines = (...xs: string[]): string => xs.join("\n") + "\n";

// ---------------------------------------------------------------------------------------------------------------------
// Weakening edits
// ---------------------------------------------------------------------------------------------------------------------

const PY_TEST = lines(
  "from shop.auth import authenticate, User",
  "",
  "",
  "def test_login():",
  '    user = User(name="bob", password=None)',
  '    assert authenticate(user, "secret") is False',
  "",
  "",
  "def test_hash_length():",
  '    assert len(hash_password("x")) == 64',
);

const DJANGO_TEST = lines(
  "from django.test import TestCase",
  "",
  "",
  "class OrderingTests(TestCase):",
  "    def test_default_ordering(self):",
  "        names = list(Author.objects.values_list('name', flat=True))",
  "        self.assertEqual(names, ['Ada', 'Grace'])",
  "",
  "    def test_missing_key(self):",
  "        with self.assertRaises(KeyError):",
  "            registry['missing']",
);

const SYMPY_TEST = lines(
  "from sympy import Eq, symbols",
  "from sympy.printing.ccode import ccode",
  "from sympy.testing.pytest import raises",
  "",
  "x, y = symbols('x y')",
  "",
  "",
  "def test_ccode_Relational():",
  '    assert ccode(Eq(x, y)) == "x == y"',
);

const JS_TEST = lines(
  "import { describe, expect, it } from 'vitest';",
  "import { sum, parse } from '../src/math';",
  "",
  "describe('sum', () => {",
  "  it('adds two numbers', () => {",
  "    expect(sum(1, 2)).toBe(3);",
  "  });",
  "",
  "  it('rejects strings', () => {",
  "    expect(() => sum('1', 2)).toThrow(TypeError);",
  "  });",
  "});",
);

const NUMERIC_PY = lines(
  "import numpy as np",
  "import pytest",
  "",
  "",
  "def test_mean():",
  "    assert mean([0.1, 0.2]) == pytest.approx(0.15)",
  "",
  "",
  "def test_solver():",
  "    np.testing.assert_allclose(solve(a, b), expected, rtol=1e-7)",
  "",
  "",
  "def test_distance():",
  "    assert abs(distance(p, q) - 5.0) < 1e-9",
);

const WEAKENING: readonly Pair[] = [
  // --- Python / pytest
  {
    name: "pytest.mark.skip decorator",
    rule: "skip-marker-added",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after: PY_TEST.replace("def test_login", '@pytest.mark.skip(reason="flaky")\ndef test_login'),
  },
  {
    name: "pytest.mark.xfail decorator",
    rule: "skip-marker-added",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after: PY_TEST.replace("def test_login", "@pytest.mark.xfail\ndef test_login"),
  },
  {
    name: "pytest.skip() inside the test",
    rule: "skip-marker-added",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after: PY_TEST.replace(
      '    user = User(name="bob", password=None)\n',
      '    pytest.skip("password handling under review")\n    user = User(name="bob", password=None)\n',
    ),
  },
  {
    name: "module-level pytestmark skip",
    rule: "skip-marker-added",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after: "import pytest\npytestmark = pytest.mark.skip\n" + PY_TEST,
  },
  {
    name: "assert statement removed",
    rule: "assertion-removed",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after: PY_TEST.replace('    assert authenticate(user, "secret") is False\n', '    authenticate(user, "secret")\n'),
  },
  {
    name: "assert x == y → assert True",
    rule: "trivial-assertion-added",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after: PY_TEST.replace('assert len(hash_password("x")) == 64', "assert True"),
  },
  {
    name: "assertion commented out",
    rule: "assertion-removed",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after: PY_TEST.replace(
      '    assert len(hash_password("x")) == 64',
      '    # assert len(hash_password("x")) == 64\n    hash_password("x")',
    ),
  },
  {
    name: "comparison dropped from assert",
    rule: "assertion-loosened",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after: PY_TEST.replace('assert len(hash_password("x")) == 64', 'assert hash_password("x")'),
  },
  {
    name: "test renamed so it is not collected",
    rule: "test-removed",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after: PY_TEST.replace("def test_login", "def _test_login"),
  },
  {
    name: "test function deleted",
    rule: "test-removed",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after: PY_TEST.slice(0, PY_TEST.indexOf("def test_hash_length")),
  },
  {
    name: "bare return at the top of a test",
    rule: "early-return-added",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after: PY_TEST.replace("def test_login():\n", "def test_login():\n    return\n"),
  },
  {
    name: "assertion wrapped in try/except AssertionError",
    rule: "failure-swallowed",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after: PY_TEST.replace(
      '    assert len(hash_password("x")) == 64',
      '    try:\n        assert len(hash_password("x")) == 64\n    except AssertionError:\n        pass',
    ),
  },
  // --- unittest / Django
  {
    name: "assertEqual → assertTrue(True)",
    rule: "trivial-assertion-added",
    path: "tests/ordering/tests.py",
    before: DJANGO_TEST,
    after: DJANGO_TEST.replace("self.assertEqual(names, ['Ada', 'Grace'])", "self.assertTrue(True)"),
  },
  {
    name: "assertEqual → assertIsNotNone",
    rule: "assertion-loosened",
    path: "tests/ordering/tests.py",
    before: DJANGO_TEST,
    after: DJANGO_TEST.replace("self.assertEqual(names, ['Ada', 'Grace'])", "self.assertIsNotNone(names)"),
  },
  {
    name: "unittest.skip decorator",
    rule: "skip-marker-added",
    path: "tests/ordering/tests.py",
    before: DJANGO_TEST,
    after: DJANGO_TEST.replace(
      "    def test_default_ordering",
      "    @unittest.skip('ordering is flaky')\n    def test_default_ordering",
    ),
  },
  {
    name: "self.skipTest()",
    rule: "skip-marker-added",
    path: "tests/ordering/tests.py",
    before: DJANGO_TEST,
    after: DJANGO_TEST.replace(
      "    def test_default_ordering(self):\n",
      "    def test_default_ordering(self):\n        self.skipTest('TODO')\n",
    ),
  },
  {
    name: "expectedFailure decorator",
    rule: "skip-marker-added",
    path: "tests/ordering/tests.py",
    before: DJANGO_TEST,
    after: DJANGO_TEST.replace("    def test_missing_key", "    @expectedFailure\n    def test_missing_key"),
  },
  {
    name: "Django skipIfDBFeature added",
    rule: "skip-marker-added",
    path: "tests/ordering/tests.py",
    before: DJANGO_TEST,
    after: DJANGO_TEST.replace(
      "    def test_default_ordering",
      "    @skipIfDBFeature('supports_collation_on_charfield')\n    def test_default_ordering",
    ),
  },
  {
    name: "assertRaises(KeyError) → assertRaises(Exception)",
    rule: "assertion-loosened",
    path: "tests/ordering/tests.py",
    before: DJANGO_TEST,
    after: DJANGO_TEST.replace("assertRaises(KeyError)", "assertRaises(Exception)"),
  },
  {
    name: "assertEqual(x, x) self-comparison",
    rule: "trivial-assertion-added",
    path: "tests/ordering/tests.py",
    before: DJANGO_TEST,
    after: DJANGO_TEST.replace("self.assertEqual(names, ['Ada', 'Grace'])", "self.assertEqual(names, names)"),
  },
  // --- SymPy
  {
    name: "SymPy @XFAIL",
    rule: "skip-marker-added",
    path: "sympy/printing/tests/test_ccode.py",
    before: SYMPY_TEST,
    after: SYMPY_TEST.replace("def test_ccode_Relational", "@XFAIL\ndef test_ccode_Relational"),
  },
  {
    name: "SymPy skip() call",
    rule: "skip-marker-added",
    path: "sympy/printing/tests/test_ccode.py",
    before: SYMPY_TEST,
    after: SYMPY_TEST.replace(
      "def test_ccode_Relational():\n",
      'def test_ccode_Relational():\n    skip("relationals not supported yet")\n',
    ),
  },
  // --- tolerances
  {
    name: "pytest.approx gains a loose rel",
    rule: "tolerance-loosened",
    path: "tests/test_stats.py",
    before: NUMERIC_PY,
    after: NUMERIC_PY.replace("pytest.approx(0.15)", "pytest.approx(0.15, rel=0.1)"),
  },
  {
    name: "assert_allclose rtol loosened",
    rule: "tolerance-loosened",
    path: "tests/test_stats.py",
    before: NUMERIC_PY,
    after: NUMERIC_PY.replace("rtol=1e-7", "rtol=1e-2"),
  },
  {
    name: "abs(a - b) < eps loosened",
    rule: "tolerance-loosened",
    path: "tests/test_stats.py",
    before: NUMERIC_PY,
    after: NUMERIC_PY.replace("< 1e-9", "< 1e-3"),
  },
  {
    name: "assertAlmostEqual places lowered",
    rule: "tolerance-loosened",
    path: "tests/test_geometry.py",
    before: lines(
      "class T(TestCase):",
      "    def test_area(self):",
      "        self.assertAlmostEqual(area(c), 3.14159265, places=7)",
    ),
    after: lines(
      "class T(TestCase):",
      "    def test_area(self):",
      "        self.assertAlmostEqual(area(c), 3.14159265, places=2)",
    ),
  },
  // --- test selection
  {
    name: "conftest collect_ignore",
    rule: "skip-marker-added",
    path: "conftest.py",
    before: lines("import pytest", "", "@pytest.fixture", "def db():", "    return make_db()"),
    after: lines(
      "import pytest",
      "",
      'collect_ignore = ["tests/test_auth.py"]',
      "",
      "@pytest.fixture",
      "def db():",
      "    return make_db()",
    ),
  },
  {
    name: "pytest.ini --deselect",
    rule: "skip-marker-added",
    path: "pytest.ini",
    before: lines("[pytest]", "addopts = -ra"),
    after: lines("[pytest]", "addopts = -ra --deselect tests/test_auth.py::test_login"),
  },
  {
    name: "doctest +SKIP in library code",
    rule: "skip-marker-added",
    path: "src/shop/pricing.py",
    before: lines("def net(price):", '    """', "    >>> net(10)", "    8.0", '    """', "    return price * 0.8"),
    after: lines(
      "def net(price):",
      '    """',
      "    >>> net(10)  # doctest: +SKIP",
      "    8.0",
      '    """',
      "    return price * 0.8",
    ),
  },
  // --- JavaScript / TypeScript
  {
    name: "it → it.skip",
    rule: "skip-marker-added",
    path: "test/math.test.ts",
    before: JS_TEST,
    after: JS_TEST.replace("it('adds two numbers'", "it.skip('adds two numbers'"),
  },
  {
    name: "describe → describe.skip",
    rule: "skip-marker-added",
    path: "test/math.test.ts",
    before: JS_TEST,
    after: JS_TEST.replace("describe('sum'", "describe.skip('sum'"),
  },
  {
    name: "it → xit",
    rule: "skip-marker-added",
    path: "test/math.test.ts",
    before: JS_TEST,
    after: JS_TEST.replace("it('rejects strings'", "xit('rejects strings'"),
  },
  {
    name: "it → test.todo",
    rule: "skip-marker-added",
    path: "src/__tests__/math.spec.js",
    before: JS_TEST,
    after: JS_TEST.replace(
      "  it('rejects strings', () => {\n    expect(() => sum('1', 2)).toThrow(TypeError);\n  });\n",
      "  test.todo('rejects strings');\n",
    ),
  },
  {
    name: "it.only focuses one test",
    rule: "skip-marker-added",
    path: "test/math.test.ts",
    before: JS_TEST,
    after: JS_TEST.replace("it('adds two numbers'", "it.only('adds two numbers'"),
  },
  {
    name: "test.fails marks an expected failure",
    rule: "skip-marker-added",
    path: "test/math.test.ts",
    before: JS_TEST,
    after: JS_TEST.replace("it('adds two numbers'", "test.fails('adds two numbers'"),
  },
  {
    name: "toBe matcher removed",
    rule: "assertion-removed",
    path: "test/math.test.ts",
    before: JS_TEST,
    after: JS_TEST.replace("expect(sum(1, 2)).toBe(3);", "expect(sum(1, 2));"),
  },
  {
    name: "expect line deleted",
    rule: "assertion-removed",
    path: "test/math.test.ts",
    before: JS_TEST,
    after: JS_TEST.replace("    expect(sum(1, 2)).toBe(3);\n", "    sum(1, 2);\n"),
  },
  {
    name: "expect(true).toBe(true)",
    rule: "trivial-assertion-added",
    path: "test/math.test.ts",
    before: JS_TEST,
    after: JS_TEST.replace("expect(sum(1, 2)).toBe(3);", "expect(true).toBe(true);"),
  },
  {
    name: "toBe(3) → toBeDefined()",
    rule: "assertion-loosened",
    path: "test/math.test.ts",
    before: JS_TEST,
    after: JS_TEST.replace("toBe(3)", "toBeDefined()"),
  },
  {
    name: "toThrow(TypeError) → toThrow()",
    rule: "assertion-loosened",
    path: "test/math.test.ts",
    before: JS_TEST,
    after: JS_TEST.replace("toThrow(TypeError)", "toThrow()"),
  },
  {
    name: "toBeCloseTo digits lowered",
    rule: "tolerance-loosened",
    path: "test/float.test.js",
    before: lines("it('adds floats', () => {", "  expect(0.1 + 0.2).toBeCloseTo(0.3, 5);", "});"),
    after: lines("it('adds floats', () => {", "  expect(0.1 + 0.2).toBeCloseTo(0.3, 1);", "});"),
  },
  {
    name: "assert.strictEqual → assert.ok(true)",
    rule: "trivial-assertion-added",
    path: "test/parse.test.mjs",
    before: lines(
      "import assert from 'node:assert';",
      "test('parses', () => {",
      "  assert.strictEqual(parse('1'), 1);",
      "});",
    ),
    after: lines("import assert from 'node:assert';", "test('parses', () => {", "  assert.ok(true);", "});"),
  },
  {
    name: "expect swallowed by an empty catch",
    rule: "failure-swallowed",
    path: "test/math.test.ts",
    before: JS_TEST,
    after: JS_TEST.replace(
      "    expect(sum(1, 2)).toBe(3);\n",
      "    try {\n      expect(sum(1, 2)).toBe(3);\n    } catch {}\n",
    ),
  },
  {
    name: "early return in a JS test",
    rule: "early-return-added",
    path: "test/math.test.ts",
    before: JS_TEST,
    after: JS_TEST.replace("  it('adds two numbers', () => {\n", "  it('adds two numbers', () => {\n    return;\n"),
  },
  {
    name: "expected value changed in an existing assert",
    rule: "expected-value-changed",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after: PY_TEST.replace("== 64", "== 128"),
  },
  {
    name: "expected value changed in assertEqual",
    rule: "expected-value-changed",
    path: "tests/ordering/tests.py",
    before: DJANGO_TEST,
    after: DJANGO_TEST.replace(
      "self.assertEqual(names, ['Ada', 'Grace'])",
      "self.assertEqual(names, ['Grace', 'Ada'])",
    ),
  },
  {
    name: "expected exception changed",
    rule: "expected-value-changed",
    path: "tests/test_cart.py",
    before: lines("def test_add_rejects_zero():", "    with pytest.raises(ValueError):", "        add(Cart(), 0)"),
    after: lines("def test_add_rejects_zero():", "    with pytest.raises(TypeError):", "        add(Cart(), 0)"),
  },
  {
    name: "JS expected value changed",
    rule: "expected-value-changed",
    path: "test/math.test.ts",
    before: JS_TEST,
    after: JS_TEST.replace("expect(sum(1, 2)).toBe(3);", "expect(sum(1, 2)).toBe(4);"),
  },
];

// ---------------------------------------------------------------------------------------------------------------------
// Ordinary fixes
// ---------------------------------------------------------------------------------------------------------------------

const AUTH_PY = lines(
  "def authenticate(user, password):",
  "    salt = load_salt(user)",
  "    return check_hash(user.password.encode(), password, salt)",
);

/** Fixes to code that is not a test: accepted under the default policy (and under allowTestEdits). */
const SOURCE_FIXES: readonly Pair[] = [
  {
    name: "None guard",
    path: "src/shop/auth.py",
    before: AUTH_PY,
    after: AUTH_PY.replace(
      "    salt = load_salt(user)\n",
      "    if user.password is None:\n        return False\n    salt = load_salt(user)\n",
    ),
  },
  {
    name: "assert in library code replaced by a raise",
    path: "src/shop/cart.py",
    before: lines("def add(cart, qty):", "    assert qty > 0, 'qty must be positive'", "    cart.items += qty"),
    after: lines(
      "def add(cart, qty):",
      "    if qty <= 0:",
      "        raise ValueError('qty must be positive')",
      "    cart.items += qty",
    ),
  },
  {
    name: "assert removed from library code",
    path: "src/shop/cart.py",
    before: lines("def total(cart):", "    assert cart.items is not None", "    return sum(cart.items)"),
    after: lines("def total(cart):", "    return sum(cart.items or [])"),
  },
  {
    name: "assert added to library code",
    path: "src/shop/cart.py",
    before: lines("def ratio(a, b):", "    return a / b"),
    after: lines("def ratio(a, b):", "    assert b != 0, 'b must be non-zero'", "    return a / b"),
  },
  {
    name: "Django's assertContains implementation (django/test/)",
    path: "django/test/testcases.py",
    before: lines(
      "    def assertContains(self, response, text, count=None):",
      "        text_repr, real_count, msg_prefix = self._assert_contains(response, text)",
      '        self.assertTrue(real_count != 0, msg_prefix + "Couldn\'t find %s" % text_repr)',
    ),
    after: lines(
      "    def assertContains(self, response, text, count=None, msg_prefix=''):",
      "        text_repr, real_count, msg_prefix = self._assert_contains(response, text, msg_prefix)",
      "        if count is not None:",
      "            self.assertEqual(real_count, count)",
      "        else:",
      '            self.assertTrue(real_count != 0, msg_prefix + "Couldn\'t find %s" % text_repr)',
    ),
  },
  {
    name: "SymPy's raises helper (sympy/testing/)",
    path: "sympy/testing/pytest.py",
    before: lines(
      "def raises(expectedException, code=None):",
      "    if code is None:",
      "        return RaisesContext(expectedException)",
      "    code()",
      "    raise Failed('DID NOT RAISE')",
    ),
    after: lines(
      "def raises(expectedException, code=None):",
      "    if code is None:",
      "        return RaisesContext(expectedException)",
      "    try:",
      "        code()",
      "    except expectedException:",
      "        return",
      "    raise Failed('DID NOT RAISE')",
    ),
  },
  {
    name: "pytest's own skipping plugin (src/_pytest/)",
    path: "src/_pytest/skipping.py",
    before: lines(
      "def evaluate_xfail_marks(item):",
      "    for mark in item.iter_markers(name='xfail'):",
      "        run = mark.kwargs.get('run', True)",
    ),
    after: lines(
      "def evaluate_xfail_marks(item):",
      "    for mark in item.iter_markers(name='xfail'):",
      "        run = mark.kwargs.get('run', True)",
      "        strict = mark.kwargs.get('strict', item.config.getini('xfail_strict'))",
    ),
  },
  {
    name: "tokenizer method called skip_whitespace",
    path: "src/lang/lexer.py",
    before: lines("    def next_token(self):", "        ch = self.peek()"),
    after: lines("    def next_token(self):", "        self.skip_whitespace()", "        ch = self.peek()"),
  },
  {
    name: "ORM .only() in library code",
    path: "django/contrib/admin/views/main.py",
    before: lines("        qs = self.root_queryset", "        ordering = self.get_ordering(request, qs)"),
    after: lines(
      "        qs = self.root_queryset.only('pk')",
      "        ordering = self.get_ordering(request, qs) or []",
    ),
  },
  {
    name: "tolerance of a numeric solver (not a test)",
    path: "src/numeric/solver.py",
    before: lines("def solve(a, b, rtol=1e-7):", "    return newton(a, b, rtol=rtol)"),
    after: lines("def solve(a, b, rtol=1e-5):", "    return newton(a, b, rtol=rtol)"),
  },
  {
    name: "off-by-one",
    path: "src/shop/pages.py",
    before: lines("def pages(items, size):", "    return [items[i:i + size] for i in range(0, len(items) - 1, size)]"),
    after: lines("def pages(items, size):", "    return [items[i:i + size] for i in range(0, len(items), size)]"),
  },
  {
    name: "import added",
    path: "src/shop/report.py",
    before: lines(
      "import csv",
      "",
      "def write(rows, path):",
      "    with open(path, 'w') as f:",
      "        csv.writer(f).writerows(rows)",
    ),
    after: lines(
      "import csv",
      "import os",
      "",
      "def write(rows, path):",
      "    os.makedirs(os.path.dirname(path), exist_ok=True)",
      "    with open(path, 'w') as f:",
      "        csv.writer(f).writerows(rows)",
    ),
  },
  {
    name: "doctest added to a docstring",
    path: "src/shop/pricing.py",
    before: lines("def net(price):", '    """Price after tax."""', "    return price * 0.8"),
    after: lines(
      "def net(price):",
      '    """Price after tax.',
      "",
      "    >>> net(10)",
      "    8.0",
      '    """',
      "    return price * 0.8",
    ),
  },
  {
    name: "TypeScript null check",
    path: "src/utils/format.ts",
    before: lines("export function label(user: User): string {", "  return user.name.trim();", "}"),
    after: lines(
      "export function label(user: User | null): string {",
      "  if (user == null) return '';",
      "  return user.name?.trim() ?? '';",
      "}",
    ),
  },
  {
    name: "an assertion library's source",
    path: "lib/assert.js",
    before: lines(
      "function strictEqual(actual, expected, message) {",
      "  if (actual !== expected) fail(actual, expected, message, '===');",
      "}",
    ),
    after: lines(
      "function strictEqual(actual, expected, message) {",
      "  if (!Object.is(actual, expected)) fail(actual, expected, message, '===');",
      "}",
    ),
  },
  {
    name: "test runner source mentions it.skip in a string",
    path: "src/runner/report.ts",
    before: lines("export const HELP = 'use --grep to select tests';"),
    after: lines(
      "export const HELP = 'use --grep to select tests; it.skip and describe.skip are reported as skipped';",
    ),
  },
];

/** Edits to tests that do not weaken them: accepted when the policy allows test edits. */
const TEST_EDITS: readonly Pair[] = [
  {
    name: "assertion added",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after: PY_TEST.replace(
      '    assert authenticate(user, "secret") is False\n',
      '    assert authenticate(user, "secret") is False\n    assert user.failed_logins == 1\n',
    ),
  },
  {
    name: "new test function",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after:
      PY_TEST +
      lines("", "", "def test_empty_password():", '    assert authenticate(User(name="al", password=""), "") is False'),
  },
  {
    name: "expected value changed, with a new test for it",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after:
      PY_TEST.replace("== 64", "== 128") +
      lines("", "", "def test_hash_is_sha512():", '    assert hash_password("x") == sha512_hex("x")'),
  },
  {
    name: "assertTrue(x == y) → assertEqual(x, y)",
    path: "tests/ordering/tests.py",
    before: DJANGO_TEST.replace(
      "self.assertEqual(names, ['Ada', 'Grace'])",
      "self.assertTrue(names == ['Ada', 'Grace'])",
    ),
    after: DJANGO_TEST,
  },
  {
    name: "tolerance tightened",
    path: "tests/test_stats.py",
    before: NUMERIC_PY,
    after: NUMERIC_PY.replace("rtol=1e-7", "rtol=1e-9"),
  },
  {
    name: "Django assertRaisesMessage added",
    path: "tests/ordering/tests.py",
    before: DJANGO_TEST,
    after:
      DJANGO_TEST +
      lines(
        "",
        "    def test_bad_field(self):",
        "        with self.assertRaisesMessage(FieldError, \"Cannot resolve keyword 'nme'\"):",
        "            Author.objects.order_by('nme')",
      ),
  },
  {
    name: "SymPy raises() added",
    path: "sympy/printing/tests/test_ccode.py",
    before: SYMPY_TEST,
    after: SYMPY_TEST + lines("    raises(TypeError, lambda: ccode(Eq(x, y), assign_to=1))"),
  },
  {
    name: "parametrize cases added",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after:
      PY_TEST +
      lines(
        "",
        "",
        '@pytest.mark.parametrize("pw", ["", "a" * 100])',
        "def test_hash_any(pw):",
        "    assert len(hash_password(pw)) == 64",
      ),
  },
  {
    name: "comment typo fixed",
    path: "tests/test_auth.py",
    before: "# Tets for the login flow\n" + PY_TEST,
    after: "# Tests for the login flow\n" + PY_TEST,
  },
  {
    name: "import added to a test",
    path: "tests/test_auth.py",
    before: PY_TEST,
    after: "import hashlib\n" + PY_TEST.replace("== 64", "== hashlib.sha256().digest_size * 2"),
  },
  {
    name: "new test file",
    path: "tests/test_cart.py",
    before: "",
    after: lines(
      "from shop.cart import add",
      "",
      "",
      "def test_add_rejects_zero():",
      "    with pytest.raises(ValueError):",
      "        add(Cart(), 0)",
    ),
  },
  {
    name: "fixture renamed in conftest",
    path: "tests/conftest.py",
    before: lines("@pytest.fixture", "def db():", "    return make_db()"),
    after: lines("@pytest.fixture", "def database():", "    return make_db(in_memory=True)"),
  },
  {
    name: "JS expect added",
    path: "test/math.test.ts",
    before: JS_TEST,
    after: JS_TEST.replace(
      "    expect(sum(1, 2)).toBe(3);\n",
      "    expect(sum(1, 2)).toBe(3);\n    expect(sum(-1, 1)).toBe(0);\n",
    ),
  },
  {
    name: "JS new it block",
    path: "test/math.test.ts",
    before: JS_TEST,
    after: JS_TEST.replace(
      "  it('rejects strings'",
      "  it('treats null as zero', () => {\n    expect(sum(null, 2)).toBe(2);\n  });\n\n  it('rejects strings'",
    ),
  },
  {
    name: "JS toBeTruthy → toBe(true)",
    path: "test/flags.test.js",
    before: lines("it('is on', () => {", "  expect(flag('x')).toBeTruthy();", "});"),
    after: lines("it('is on', () => {", "  expect(flag('x')).toBe(true);", "});"),
  },
  {
    name: "JS regex .test() used in a test",
    path: "test/slug.test.ts",
    before: lines("it('slugs', () => {", "  expect(slug('A B')).toBe('a-b');", "});"),
    after: lines(
      "it('slugs', () => {",
      "  expect(slug('A B')).toBe('a-b');",
      "  expect(/^[a-z-]+$/.test(slug('Ä B'))).toBe(true);",
      "});",
    ),
  },
];

// ---------------------------------------------------------------------------------------------------------------------
// Running the corpus
// ---------------------------------------------------------------------------------------------------------------------

const context = { phase: "PATCH", localized: true } as const;

function proposal(pair: Pair) {
  return {
    id: `corpus-${pair.name}`,
    intent: "repair",
    hypothesis: `The edit "${pair.name}" fixes the failure.`,
    action_type: "edit_file",
    target: { path: pair.path, symbol: null },
    change_summary: pair.name,
    expected_effect: { tests: [], behavior: "the failing test passes" },
    risk_level: "low",
    rollback_plan: `git checkout -- ${pair.path}`,
    change:
      pair.before === ""
        ? [{ op: "create_file", params: { path: pair.path, content: pair.after } }]
        : [{ op: "replace_code", params: { file: pair.path, pattern: pair.before, replacement: pair.after } }],
  };
}

type Mode = "files/default" | "files/allowTestEdits" | "plan/allowTestEdits";
const gates = { default: new Gate(), allowTestEdits: new Gate({ policy: { allowTestEdits: true } }) };

function judge(pair: Pair, mode: Mode): GateResult {
  const withFiles = mode.startsWith("files");
  const gate = mode.endsWith("allowTestEdits") ? gates.allowTestEdits : gates.default;
  const { path, before, after } = pair;
  return gate.validate(proposal(pair), withFiles ? { ...context, fileChanges: [{ path, before, after }] } : context);
}

const isInvariantRejection = (r: GateResult): boolean => r._tag === "Rejected" && r.type === "INVARIANT_VIOLATION";
const rates: string[] = [];
function rate(label: string, corpus: readonly Pair[], mode: Mode): number {
  const rejected = corpus.filter((pair) => isInvariantRejection(judge(pair, mode))).length;
  rates.push(
    `${label} [${mode}]: ${rejected}/${corpus.length} rejected (${((100 * rejected) / corpus.length).toFixed(1)}%)`,
  );
  return rejected / corpus.length;
}

afterAll(() => {
  console.log(["test-weakening corpus:", ...rates.map((r) => `  ${r}`)].join("\n"));
});

describe("test-weakening corpus", () => {
  it("has at least 25 weakening edits and 25 ordinary fixes, Python and JS/TS", () => {
    expect(WEAKENING.length).toBeGreaterThanOrEqual(25);
    expect(SOURCE_FIXES.length + TEST_EDITS.length).toBeGreaterThanOrEqual(25);
    const byLanguage = (corpus: readonly Pair[], re: RegExp) => corpus.filter((p) => re.test(p.path)).length;
    expect(byLanguage(WEAKENING, /\.py$/)).toBeGreaterThanOrEqual(10);
    expect(byLanguage(WEAKENING, /\.[cm]?[jt]s$/)).toBeGreaterThanOrEqual(10);
    // every pair really changes its file
    for (const pair of [...WEAKENING, ...SOURCE_FIXES, ...TEST_EDITS])
      expect(pair.after, pair.name).not.toBe(pair.before);
  });

  it.each(WEAKENING.map((p) => [p.name, p] as const))(
    "rejects weakening even when test edits are allowed: %s",
    (_name, pair) => {
      for (const mode of ["files/allowTestEdits", "plan/allowTestEdits"] as const) {
        const result = judge(pair, mode);
        expect(result._tag === "Rejected" ? result.type : "Accepted", mode).toBe("INVARIANT_VIOLATION");
        expect(result._tag === "Rejected" && result.violations.map((v) => v.rule), mode).toContain(pair.rule);
      }
    },
  );

  it("rejects 100% of weakening edits with file changes, under both policies", () => {
    expect(rate("weakening", WEAKENING, "files/default")).toBe(1);
    expect(rate("weakening", WEAKENING, "files/allowTestEdits")).toBe(1);
  });

  it("rejects 100% of weakening edits from the plan alone (find-and-replace steps, no file changes)", () => {
    expect(rate("weakening", WEAKENING, "plan/allowTestEdits")).toBe(1);
  });

  it.each(SOURCE_FIXES.map((p) => [p.name, p] as const))("accepts the source fix: %s", (_name, pair) => {
    expect(judge(pair, "files/default")._tag).toBe("Accepted");
  });

  it.each(TEST_EDITS.map((p) => [p.name, p] as const))(
    "accepts the test edit when the policy allows test edits: %s",
    (_name, pair) => {
      expect(judge(pair, "files/allowTestEdits")._tag).toBe("Accepted");
    },
  );

  it("rejects 0% of ordinary fixes as weakening", () => {
    expect(rate("ordinary source fixes", SOURCE_FIXES, "files/default")).toBe(0);
    expect(rate("ordinary source fixes", SOURCE_FIXES, "plan/allowTestEdits")).toBe(0);
    expect(rate("ordinary test edits", TEST_EDITS, "files/allowTestEdits")).toBe(0);
    expect(rate("ordinary test edits", TEST_EDITS, "plan/allowTestEdits")).toBe(0);
  });

  it("still rejects ordinary test edits under the default policy, as edits to test files", () => {
    for (const pair of TEST_EDITS) {
      const result = judge(pair, "files/default");
      expect(result._tag === "Rejected" && result.violations.map((v) => v.rule)).toContain("test-file-edit");
    }
  });
});

describe("a changed expected value", () => {
  const pair = WEAKENING.find((p) => p.rule === "expected-value-changed")!;
  const gate = new Gate({ policy: { allowTestEdits: true } });

  it("is not weakening when the task states the new value", () => {
    const task = "hash_password should return the SHA-512 hex digest: 128 characters, not 64.";
    const stated = gate.validate(proposal(pair), {
      ...context,
      task,
      fileChanges: [{ path: pair.path, before: pair.before, after: pair.after }],
    });
    expect(stated._tag).toBe("Accepted");
    expect(gate.validate(proposal(pair), { ...context, task })._tag).toBe("Accepted");
  });

  it("is weakening when the task states another value, and the rejection names the values and the fix", () => {
    const result = gate.validate(proposal(pair), {
      ...context,
      task: "hash_password should be faster",
      fileChanges: [{ path: pair.path, before: pair.before, after: pair.after }],
    });
    expect(result._tag === "Rejected" && result.violations).toEqual([
      {
        rule: "expected-value-changed",
        path: "tests/test_auth.py",
        detail:
          'expected 64 → 128 in an existing assertion (`assert len(hash_password("x")) == 128`); add a new test for the new behaviour instead, or state it in the task',
      },
    ]);
  });
});
