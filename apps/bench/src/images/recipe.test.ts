/** The recipe: its schema, its error messages, and which environment an instance gets. */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@graphplan/testkit";
import { describe, expect, it } from "vitest";
import { DEFAULT_RECIPE, loadRecipe, parseRecipe, recipeFor, RecipeInvalid } from "./recipe.js";

const minimal = {
  base: { image: "graphplan-debian:test" },
  environments: [{ name: "calc", repo: "acme/calc", versions: ["1.0"] }],
};

function recipeFile(text: string): string {
  const path = join(tempDir(), "recipe.yaml");
  writeFileSync(path, text);
  return path;
}

/** The message `loadRecipe` throws for a YAML text. */
function errorOf(text: string): string {
  const path = recipeFile(text);
  try {
    loadRecipe(path);
  } catch (error) {
    expect(error).toBeInstanceOf(RecipeInvalid);
    return (error as Error).message.replace(path, "FILE");
  }
  throw new Error("the recipe was accepted");
}

describe("RecipeSchema", () => {
  it("fills the defaults of a minimal recipe", () => {
    const recipe = parseRecipe(minimal, "inline");
    expect(recipe.base.interpreters).toEqual({
      to: "/root/.pyenv",
      versions: [],
      exclude: ["lib/python*/test", "lib/python*/site-packages/*"],
    });
    expect(recipe.environments[0]).toMatchObject({
      install: ":",
      activate: [],
      setup: [],
      instance_setup: [],
      env: {},
      packages: [],
      repositories: [],
      timeout_seconds: 1800,
    });
    expect(recipe.environments[0]?.python).toBeUndefined();
  });

  it("accepts the shipped recipe, whose environments cover django 3.0–5.0, sympy, pytest, sphinx, pylint, flask, seaborn, xarray, requests, matplotlib 3.3–3.7, scikit-learn and astropy 4.3–5.2", () => {
    const recipe = loadRecipe(DEFAULT_RECIPE);
    const claims: Array<[string, string]> = [
      ["django/django", "3.0"],
      ["django/django", "3.2"],
      ["django/django", "4.1"],
      ["django/django", "5.0"],
      ["sympy/sympy", "1.1"],
      ["sympy/sympy", "1.13"],
      ["pytest-dev/pytest", "4.4"],
      ["pytest-dev/pytest", "8.0"],
      ["sphinx-doc/sphinx", "3.1"],
      ["sphinx-doc/sphinx", "7.1"],
      ["pylint-dev/pylint", "2.13"],
      ["pallets/flask", "2.0"],
      ["pallets/flask", "2.3"],
      ["mwaskom/seaborn", "0.12"],
      ["pydata/xarray", "0.12"],
      ["psf/requests", "2.3"],
      ["matplotlib/matplotlib", "3.3"],
      ["matplotlib/matplotlib", "3.5"],
      ["matplotlib/matplotlib", "3.7"],
      ["scikit-learn/scikit-learn", "0.20"],
      ["scikit-learn/scikit-learn", "0.22"],
      ["astropy/astropy", "4.3"],
      ["astropy/astropy", "5.2"],
    ];
    for (const [repo, version] of claims) expect(recipeFor(recipe, repo, version), `${repo} ${version}`).toBeDefined();
    for (const [repo, version] of [
      ["psf/requests", "2.1"],
      ["matplotlib/matplotlib", "3.2"],
      ["django/django", "2.2"],
      ["astropy/astropy", "2.0"],
      ["scikit-learn/scikit-learn", "1.2"],
    ] as const) {
      expect(recipeFor(recipe, repo, version), `${repo} ${version}`).toBeUndefined();
    }
    expect(recipe.base.debian?.packages).toContain("locales");
  });

  it("gives requests' five Lite versions one environment with a local httpbin.org, started by its activate lines", () => {
    const recipe = loadRecipe(DEFAULT_RECIPE);
    const environment = recipeFor(recipe, "psf/requests", "2.10");
    expect(environment?.name).toBe("requests");
    for (const version of ["0.14", "2.3", "2.4", "2.7"])
      expect(recipeFor(recipe, "psf/requests", version)).toBe(environment);
    expect(environment?.python).toBe("3.9.18");
    expect(environment?.packages).toEqual(expect.arrayContaining(["python3-httpbin", "python3-gunicorn", "openssl"]));
    // The eval script and /root/.bashrc start httpbin; the setup writes the starter, which maps the hosts
    // the tests name and serves both schemes, and a sitecustomize that trusts the local CA.
    expect(environment?.activate).toEqual(["sweb-httpbin"]);
    const setup = environment?.setup.join("\n") ?? "";
    expect(setup).toContain("/usr/local/bin/sweb-httpbin");
    expect(setup).toMatch(/127\.0\.0\.1 httpbin\.org .*www\.google\.co\.uk' >> \/etc\/hosts/);
    expect(setup).toContain("serve 80\n");
    expect(setup).toMatch(/serve 443 --certfile \S+ --keyfile \S+/);
    expect(setup).toContain("ssl.SSLContext.load_verify_locations = load_verify_locations");
    expect(setup).toContain("https://httpbin.org/get");
  });

  it("starts httpbin from /root/.bashrc without re-entering it: the starter's bash does not read BASH_ENV (an agent's commands set it)", () => {
    const setup = loadRecipe(DEFAULT_RECIPE)
      .environments.find((e) => e.name === "requests")!
      .setup.join("\n");
    const shebang = /cat > \/usr\/local\/bin\/sweb-httpbin <<'SH'\n(#!.*)\n/.exec(setup)?.[1];
    expect(shebang).toBeDefined();
    // The starter's first line over a script that only says where it runs, and a .bashrc that runs it as the
    // activate line does; the .bashrc stops itself at depth 3, so a starter that re-enters it fails here, not forever.
    const dir = tempDir();
    const starter = join(dir, "sweb-httpbin");
    writeFileSync(starter, `${shebang}\necho "starter BASH_ENV=[$BASH_ENV]"\n`, { mode: 0o755 });
    const bashrc = join(dir, "bashrc");
    writeFileSync(
      bashrc,
      `[ "\${DEPTH:-0}" -ge 3 ] && { echo "re-entered"; exit 1; }\nexport DEPTH=$(( \${DEPTH:-0} + 1 ))\n${starter}\n`,
    );
    const run = spawnSync("bash", ["-c", "echo command"], {
      env: { ...process.env, BASH_ENV: bashrc },
      encoding: "utf8",
      // a ceiling against a starter that re-enters without end; three short shells take far less, but under the
      // whole suite (image builds committing gigabytes) 10 s was once not enough
      timeout: 90_000,
    });
    expect(run.error, "the shells did not finish").toBeUndefined();
    // The starter ran without BASH_ENV every time, nothing re-entered the .bashrc, and the command ran. (How many
    // times the .bashrc runs the starter depends on the shell's environment: once here, more under the whole suite.)
    const lines = run.stdout.trim().split("\n");
    expect(lines.at(-1), run.stdout).toBe("command");
    expect(lines.slice(0, -1).length, run.stdout).toBeGreaterThan(0);
    expect(new Set(lines.slice(0, -1)), run.stdout).toEqual(new Set(["starter BASH_ENV=[]"]));
    expect(run.status).toBe(0);
  });

  it("gives matplotlib 3.3–3.7 one Python 3.11 environment that compiles the extensions in /testbed, per instance and again at eval", () => {
    const recipe = loadRecipe(DEFAULT_RECIPE);
    const environment = recipeFor(recipe, "matplotlib/matplotlib", "3.6");
    expect(environment?.name).toBe("matplotlib-3.3-3.7");
    for (const version of ["3.3", "3.5", "3.7"])
      expect(recipeFor(recipe, "matplotlib/matplotlib", version)).toBe(environment);
    // Debian's numpy, contourpy... are cpython-311 builds, so the 3.11 interpreter.
    expect(environment?.python).toBe("3.11.7");
    // Debian's compiler, qhull (the build would otherwise download it), freetype's build tools, pybind11 (late 3.6 and 3.7 build with it), setuptools-scm-git-archive (3.5 asks for it), Ghostscript (the [pdf] image comparisons skip without it).
    expect(environment?.packages).toEqual(
      expect.arrayContaining([
        "g++",
        "make",
        "autoconf",
        "automake",
        "libtool",
        "pkg-config",
        "libqhull-dev",
        "python3-setuptools-scm",
        "python3-setuptools-scm-git-archive",
        "python3-pybind11",
        "ghostscript",
        // the harness's own pre_install: TeX for the usetex tests (a skipped P2P test counts as failed)
        "texlive",
        "texlive-latex-extra",
        "cm-super",
        "dvipng",
        "ffmpeg",
      ]),
    );
    // Debian's own matplotlib leaves the image, /testbed/lib comes first on the path.
    expect(environment?.setup[0]).toMatch(/^dpkg -r --force-depends python3-matplotlib\b/);
    // trixie's pytest 8 (the dataset's ids: `[100-100_0]` for a duplicated parameter) ahead of bookworm's 7.2.
    const setup = environment?.setup.join("\n") ?? "";
    expect(setup).toContain(
      "printf '/testbed/lib\\n/opt/sweb/trixie-pytest/usr/lib/python3/dist-packages\\n/usr/lib/python3/dist-packages\\n'",
    );
    expect(environment?.other_suites).toEqual([
      {
        suite: "trixie",
        into: "/opt/sweb/trixie-pytest",
        packages: expect.arrayContaining([
          "python3-pytest=8.3.5-2",
          "python3-pluggy=1.5.0-1",
          "python3-pytest-xdist=3.6.1-1",
        ]),
      },
    ]);
    // bookworm's pytest-benchmark needs the real `py` library, not pytest 8's shim
    expect(setup).toContain("rm /opt/sweb/trixie-pytest/usr/lib/python3/dist-packages/py.py");
    expect(setup).toContain('assert pytest.__version__ == "8.3.5"');
    // pycairo: the Cairo backend's tests (23476's test_savefig_pixel_ratio[Cairo]) skip without it
    expect(environment?.packages).toContain("python3-cairo");
    // freetype 2.6.1 (the baselines' version) built once from freetype's own history, with matplotlib's configure
    // options; Debian's freetype is not installed, so nothing else can be linked.
    expect(environment?.repositories).toEqual([{ repo: "freetype/freetype", path: "/opt/freetype.git" }]);
    expect(environment?.packages).not.toContain("libfreetype-dev");
    expect(setup).toMatch(/git --git-dir=\/opt\/freetype\.git archive VER-2-6-1 \| tar -x -C \$src/);
    expect(setup).toContain(
      "./configure --with-zlib=no --with-bzip2=no --with-png=no --with-harfbuzz=no --enable-static --disable-shared",
    );
    // Each instance is built in place against that freetype and Debian's qhull (options in $MPLSETUPCFG, which 3.3's
    // setupext reads as 3.5–3.7's do, outside /testbed), then imported and its freetype checked; the eval re-runs the build.
    expect(environment?.env.MPLSETUPCFG).toBe("/opt/sweb/mplsetup.cfg");
    expect(setup).toMatch(
      /printf '\[libs\]\\nsystem_freetype = false\\nsystem_qhull = true\\n' > \/opt\/sweb\/mplsetup\.cfg/,
    );
    const instanceSetup = environment?.instance_setup.join("\n") ?? "";
    expect(instanceSetup).not.toContain("mplsetup.cfg");
    expect(environment?.instance_setup[0]).toBe("mkdir -p build && ln -sfn /opt/freetype-2.6.1 build/freetype-2.6.1");
    expect(instanceSetup).toContain("setup.py build_ext --inplace");
    expect(instanceSetup).toContain('== ("2.6.1", "local")');
    expect(environment?.install).toBe("python setup.py build_ext --inplace");
  });

  it("closes the measured package gaps: xarray gets Debian's sparse and pint, django 3.x bullseye's asgiref, not bookworm's", () => {
    const recipe = loadRecipe(DEFAULT_RECIPE);
    expect(recipeFor(recipe, "pydata/xarray", "0.12")?.packages).toEqual(
      expect.arrayContaining(["python3-sparse", "python3-pint"]),
    );
    const django3 = recipeFor(recipe, "django/django", "3.2");
    expect(recipeFor(recipe, "django/django", "3.0")).toBe(django3);
    const setup = django3?.setup ?? [];
    // bookworm's asgiref is no longer linked in; the bullseye package is, checked by its version.
    expect(setup.find((line) => line.startsWith("sweb-site "))?.split(" ")).not.toContain("asgiref");
    expect(django3?.other_suites).toEqual([
      { suite: "bullseye", into: "/opt/sweb/asgiref-3.3.1", packages: ["python3-asgiref=3.3.1-1"] },
    ]);
    expect(setup.join("\n")).toMatch(
      /ln -sfn "\$f" \/opt\/sweb\/site\/[\s\S]*assert asgiref\.__version__ == "3\.3\.0"/,
    );
    // django 4.x keeps bookworm's (it needs asgiref >= 3.3.2).
    expect(recipeFor(recipe, "django/django", "4.0")?.setup[0]?.split(" ")).toContain("asgiref");
  });

  it("gives xarray numbagg v0.2.2 from numbagg's own history, on the path after /testbed", () => {
    const xarray = recipeFor(loadRecipe(DEFAULT_RECIPE), "pydata/xarray", "0.12");
    expect(xarray?.repositories).toEqual([{ repo: "numbagg/numbagg", path: "/opt/numbagg.git" }]);
    const setup = xarray?.setup.join("\n") ?? "";
    expect(setup).toContain("git --git-dir=/opt/numbagg.git archive v0.2.2 numbagg | tar -x -C /opt/numbagg");
    expect(setup).toMatch(/printf '\/testbed\\n\/usr\/lib\/python3\/dist-packages\\n\/opt\/numbagg\\n'/);
    expect(setup).toContain("numbagg.move_exp_nanmean");
  });

  it("builds scikit-learn on bullseye's Python 3.9 stack at pinned versions, its extensions in /testbed per instance and again at eval", () => {
    const recipe = loadRecipe(DEFAULT_RECIPE);
    const byVersion = Object.fromEntries(
      ["0.20", "0.21", "0.22", "1.3"].map((v) => [v, recipeFor(recipe, "scikit-learn/scikit-learn", v)]),
    );
    expect(Object.values(byVersion).map((e) => e?.name)).toEqual([
      "scikit-learn-0.20-and-0.22",
      "scikit-learn-0.21",
      "scikit-learn-0.20-and-0.22",
      "scikit-learn-1.3",
    ]);
    const stack = (e: (typeof byVersion)[string]) => e?.other_suites?.find((o) => o.into === "/opt/sweb/bullseye");
    for (const environment of Object.values(byVersion)) {
      expect(environment?.python).toBe("3.9.18");
      // one stack, pinned, checked against bullseye's signed index by apt, linked into the site directory
      expect(stack(environment)).toEqual(stack(byVersion["0.20"]));
      expect(environment?.setup.join("\n")).toContain("for f in /opt/sweb/bullseye/usr/lib/python3/dist-packages/*");
      expect(environment?.install).toContain("setup.py build_ext --inplace");
      expect(environment?.instance_setup.join("\n")).toContain("setup.py build_ext --inplace");
    }
    expect(stack(byVersion["0.20"])?.suite).toBe("bullseye");
    expect(stack(byVersion["0.20"])?.packages.slice(0, 3)).toEqual([
      "python3-numpy=1:1.19.5-1",
      "python3-scipy=1.6.0-2",
      "cython3=0.29.21-3+b1",
    ]);
    // 0.21's vendored joblib does not import on Python >= 3.8: scikit-learn's own switch to the installed one.
    expect(byVersion["0.21"]?.env.SKLEARN_SITE_JOBLIB).toBe("1");
    expect(byVersion["0.20"]?.env.SKLEARN_SITE_JOBLIB).toBeUndefined();
    // 1.3 asks Cython >= 0.29.33 and joblib >= 1.1.1: trixie's Cython replaces bullseye's, bookworm's joblib bullseye's.
    const setup13 = byVersion["1.3"]?.setup.join("\n") ?? "";
    expect(byVersion["1.3"]?.other_suites?.[1]).toEqual({
      suite: "trixie",
      into: "/opt/sweb/trixie",
      packages: ["cython3=3.0.11+dfsg-2+b1"],
    });
    expect(setup13.indexOf("rm -rf /opt/sweb/site/Cython")).toBeGreaterThan(setup13.indexOf("/opt/sweb/bullseye/"));
    expect(setup13.indexOf("/opt/sweb/trixie/")).toBeGreaterThan(setup13.indexOf("rm -rf /opt/sweb/site/Cython"));
    expect(setup13).toContain("sweb-site /opt/sweb/site joblib threadpoolctl");
    expect(byVersion["1.3"]?.packages).toEqual(expect.arrayContaining(["python3-joblib", "python3-threadpoolctl"]));
    // SWE-bench's Python 3.6 environments (0.20–0.22) ran a pytest older than 7, whose ids name a complex parameter
    // by argument name and index (14983's `[None-train_size3]`): bullseye's 6.0.2; 1.3 keeps bookworm's 7.2.
    const pins = (e: (typeof byVersion)[string]) => e?.other_suites?.flatMap((o) => o.packages) ?? [];
    for (const version of ["0.20", "0.21", "0.22"]) {
      const setup = byVersion[version]?.setup.join("\n") ?? "";
      expect(pins(byVersion[version])).toContain("python3-pytest=6.0.2-2");
      expect(setup).not.toMatch(/sweb-site \/opt\/sweb\/site pytest /);
      expect(setup).toContain('assert pytest.__version__ == "6.0.2"');
    }
    expect(pins(byVersion["1.3"])).not.toContain("python3-pytest=6.0.2-2");
    expect(setup13).toContain("sweb-site /opt/sweb/site pytest _pytest py pluggy");
  });

  it("builds astropy 4.3–5.2 on Debian's Python 3.11 stack with the harness's setuptools pin made per instance, and 1.3 with astropy-helpers at the submodule's commit", () => {
    const recipe = loadRecipe(DEFAULT_RECIPE);
    const modern = recipeFor(recipe, "astropy/astropy", "5.1");
    for (const version of ["4.3", "5.2"]) expect(recipeFor(recipe, "astropy/astropy", version)).toBe(modern);
    expect(modern?.python).toBe("3.11.7");
    expect(modern?.packages).toEqual(
      expect.arrayContaining(["cython3", "python3-erfa", "python3-extension-helpers", "python3-pytest-astropy"]),
    );
    // the harness's pre_install, before the build, so that the setup commit carries it as the official images' does
    expect(modern?.instance_setup[0]).toBe(
      `sed -i 's/requires = \\["setuptools",/requires = \\["setuptools==68.0.0",/' pyproject.toml`,
    );
    const old = recipeFor(recipe, "astropy/astropy", "1.3");
    expect(old?.name).toBe("astropy-1.3");
    expect(old?.repositories).toEqual([{ repo: "astropy/astropy-helpers", path: "/opt/astropy-helpers.git" }]);
    expect(old?.instance_setup[0]).toContain("git config submodule.astropy_helpers.url /opt/astropy-helpers.git");
    expect(old?.instance_setup[0]).toContain("submodule update -q --init astropy_helpers");
    expect(old?.other_suites?.flatMap((o) => o.packages)).toContain("python3-pytest=6.0.2-2");
  });

  it("astropy 1.3's sitecustomize gives this Python astropy's own Python 3.6 list of warnings to ignore, and collections' ABC aliases", () => {
    const setup = recipeFor(loadRecipe(DEFAULT_RECIPE), "astropy/astropy", "1.3")?.setup.join("\n") ?? "";
    const source = /cat > \/opt\/sweb\/site\/sitecustomize\.py <<'EOF'\n([\s\S]*?)\nEOF/.exec(setup)?.[1];
    expect(source).toBeDefined();
    // A stand-in astropy with the 1.3 helper's list (3.5 and 3.6 only), beside the sitecustomize.
    const dir = tempDir();
    writeFileSync(join(dir, "sitecustomize.py"), source!);
    mkdirSync(join(dir, "astropy", "tests"), { recursive: true });
    writeFileSync(join(dir, "astropy", "__init__.py"), "");
    writeFileSync(join(dir, "astropy", "tests", "__init__.py"), "");
    writeFileSync(
      join(dir, "astropy", "tests", "helper.py"),
      '_warnings_to_ignore_by_pyver = {(3, 5): set(["U mode"]), (3, 6): set([r"\'U\' mode is deprecated", "getargspec"])}\n',
    );
    const run = spawnSync(
      "python3",
      [
        "-W",
        "error",
        "-c",
        [
          "import collections, sys, json",
          "from collections import Mapping, OrderedDict",
          "assert Mapping is __import__('collections.abc').abc.Mapping",
          "import astropy.tests.helper as h",
          "print(json.dumps(sorted(h._warnings_to_ignore_by_pyver[sys.version_info[:2]])))",
          "print(json.dumps(sorted(h._warnings_to_ignore_by_pyver[(3, 5)])))",
        ].join("\n"),
      ],
      { env: { ...process.env, PYTHONPATH: dir }, encoding: "utf8" },
    );
    expect(run.status, run.stderr).toBe(0);
    const [current, py35] = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as string[]);
    expect(current).toEqual(["'U' mode is deprecated", "getargspec", "tostring\\(\\) is deprecated"]);
    expect(py35).toEqual(["U mode"]);
  });

  it("scikit-learn 0.21's sitecustomize makes sklearn.externals.joblib and its submodules the installed joblib, never the vendored copy", () => {
    const setup = recipeFor(loadRecipe(DEFAULT_RECIPE), "scikit-learn/scikit-learn", "0.21")?.setup.join("\n") ?? "";
    const source = /cat > \/opt\/sweb\/site\/sitecustomize\.py <<'EOF'\n([\s\S]*?)\nEOF/.exec(setup)?.[1];
    expect(source).toBeDefined();
    // 0.20 and 0.22 import their vendored joblib as it is.
    expect(recipeFor(loadRecipe(DEFAULT_RECIPE), "scikit-learn/scikit-learn", "0.22")?.setup.join("\n")).not.toContain(
      "sitecustomize",
    );
    // Stand-ins: a vendored joblib that fails as 0.21's does on Python >= 3.8, and an installed one.
    const dir = tempDir();
    writeFileSync(join(dir, "sitecustomize.py"), source!);
    mkdirSync(join(dir, "sklearn", "externals", "joblib"), { recursive: true });
    writeFileSync(join(dir, "sklearn", "__init__.py"), "");
    writeFileSync(join(dir, "sklearn", "externals", "__init__.py"), "");
    writeFileSync(
      join(dir, "sklearn", "externals", "joblib", "__init__.py"),
      "raise TypeError('an integer is required (got type bytes)')\n",
    );
    mkdirSync(join(dir, "joblib"));
    writeFileSync(join(dir, "joblib", "__init__.py"), "__version__ = '0.17.0'\n");
    writeFileSync(join(dir, "joblib", "numpy_pickle.py"), "def dump(): return 'installed'\n");
    const run = spawnSync(
      "python3",
      [
        "-c",
        [
          "import joblib, sklearn.externals.joblib as vendored",
          "from sklearn.externals.joblib import numpy_pickle",
          "from sklearn.externals.joblib.numpy_pickle import dump",
          "import sklearn.externals",
          "assert vendored is joblib and sklearn.externals.joblib is joblib",
          "assert numpy_pickle is joblib.numpy_pickle",
          "print(vendored.__version__, dump())",
        ].join("\n"),
      ],
      { env: { ...process.env, PYTHONPATH: dir }, encoding: "utf8" },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("0.17.0 installed");
    // No other name is touched: a missing submodule is still missing.
    const missing = spawnSync("python3", ["-c", "import sklearn.externals.joblib.nothing"], {
      env: { ...process.env, PYTHONPATH: dir },
      encoding: "utf8",
    });
    expect(missing.stderr).toContain("ModuleNotFoundError: No module named 'sklearn.externals.joblib.nothing'");
  });
});

describe("recipeFor", () => {
  it("matches a version range numerically (1.10 is after 1.9) and a version list exactly", () => {
    const recipe = parseRecipe(
      {
        base: { image: "x" },
        environments: [
          { name: "old", repo: "a/b", versions: { from: "1.0", to: "1.9" } },
          { name: "new", repo: "a/b", versions: ["1.10", "1.11"] },
        ],
      },
      "inline",
    );
    expect(recipeFor(recipe, "a/b", "1.2")?.name).toBe("old");
    expect(recipeFor(recipe, "a/b", "1.9")?.name).toBe("old");
    expect(recipeFor(recipe, "a/b", "1.10")?.name).toBe("new");
    expect(recipeFor(recipe, "a/b", "1.12")).toBeUndefined();
    expect(recipeFor(recipe, "c/d", "1.2")).toBeUndefined();
  });
});

describe("loadRecipe's errors name the file, the field and what to write", () => {
  it("an unreadable file", () => {
    expect(() => loadRecipe("/nonexistent/recipe.yaml")).toThrow(
      "the recipe /nonexistent/recipe.yaml cannot be read (ENOENT); give an existing YAML file with --recipe",
    );
  });

  it("YAML that does not parse", () => {
    expect(errorOf("base: [unclosed\n")).toMatch(/^the recipe FILE is not valid YAML: /);
  });

  it("a version written as a YAML number", () => {
    expect(errorOf("base: {image: x}\nenvironments:\n  - {name: calc, repo: acme/calc, versions: [3.0]}\n")).toBe(
      'the recipe FILE is invalid: environments[0].versions (environment calc): write a list of quoted versions (["3.0", "3.1"]) or a range ({from: "3.0", to: "3.2"})',
    );
  });

  it("an interpreter the base does not copy in", () => {
    expect(
      errorOf(
        "base: {image: x, interpreters: {versions: ['3.9.18']}}\nenvironments:\n  - {name: calc, repo: acme/calc, versions: ['1.0'], python: 3.8.18}\n",
      ),
    ).toBe(
      'the recipe FILE is invalid: environments[0].python (environment calc): the base copies in no Python 3.8.18; add it to base.interpreters.versions (now ["3.9.18"]) or name one of those',
    );
  });

  it("a base with both or neither of debian and image", () => {
    expect(errorOf("base: {}\n")).toBe(
      "the recipe FILE is invalid: base: give exactly one of `debian:` (an mmdebstrap build: suite, mirror, packages) or `image:` (an existing image name)",
    );
    expect(errorOf("base: {image: x, debian: {packages: [git]}}\n")).toMatch(/base: give exactly one of `debian:`/);
  });

  it("a misspelt field", () => {
    expect(
      errorOf(
        "base: {image: x}\nenvironments:\n  - {name: calc, repo: acme/calc, versions: ['1.0'], instance-setup: [make]}\n",
      ),
    ).toBe(
      `the recipe FILE is invalid: environments[0] (environment calc): unknown field instance-setup; check the spelling (the README's "recipe format" lists the fields)`,
    );
  });

  it("a missing field, a bad package name and a bad repo", () => {
    const message = errorOf(
      "base: {debian: {packages: ['Python3 Numpy']}}\nenvironments:\n  - {name: calc, repo: calc, versions: ['1.0']}\n  - {repo: a/b, versions: ['1.0']}\n",
    );
    expect(message).toContain(
      "base.debian.packages[0]: not a Debian package name; write one name such as python3-numpy",
    );
    expect(message).toContain(
      "environments[0].repo (environment calc): write the dataset's repo as owner/name, e.g. django/django",
    );
    expect(message).toContain("environments[1].name: missing; write this field (string)");
  });

  it("other suites' packages without a version, and an entry with a relative directory", () => {
    expect(
      errorOf(
        "base: {image: x}\nenvironments:\n  - {name: old, repo: a/b, versions: ['1.0'], other_suites: [{suite: bullseye, into: /opt/b, packages: [python3-numpy]}]}\n",
      ),
    ).toBe(
      "the recipe FILE is invalid: environments[0].other_suites[0].packages[0] (environment old): pin each package to a version of that suite, name=version (e.g. python3-numpy=1:1.19.5-1; `apt-cache policy NAME` lists them)",
    );
    expect(
      errorOf(
        "base: {image: x}\nenvironments:\n  - {name: old, repo: a/b, versions: ['1.0'], other_suites: [{suite: bullseye, into: opt/b, packages: [gcc=4:12.2.0-3]}]}\n",
      ),
    ).toBe(
      "the recipe FILE is invalid: environments[0].other_suites[0].into (environment old): write the absolute directory inside the image they are unpacked under, e.g. /opt/sweb/bullseye",
    );
  });

  it("two environments claiming one version, and a range that ends before it starts", () => {
    expect(
      errorOf(
        "base: {image: x}\nenvironments:\n  - {name: one, repo: a/b, versions: {from: '1.0', to: '1.5'}}\n  - {name: two, repo: a/b, versions: ['1.5']}\n",
      ),
    ).toBe(
      "the recipe FILE is invalid: environments[1].versions (environment two): a/b 1.5 is already claimed by the environment one; give each version to one environment",
    );
    expect(
      errorOf("base: {image: x}\nenvironments:\n  - {name: one, repo: a/b, versions: {from: '1.10', to: '1.9'}}\n"),
    ).toBe(
      "the recipe FILE is invalid: environments[0].versions (environment one): the range ends (1.9) before it starts (1.10); swap from and to",
    );
  });
});
