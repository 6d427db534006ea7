import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git, makeRepo, tempDir } from "@graphplan/testkit";
import { describe, expect, it } from "vitest";
import { demoCommand, DEFAULT_EXAMPLE, readExample } from "./demo.js";
import { runCommand } from "./run.js";
import { runInProcess } from "./fixtures/in-process.js";

const demo = (...args: string[]) => runInProcess([demoCommand], ["demo", ...args]);
/**
 * Runs `body` with the temporary directory (`os.tmpdir()`, read from TMPDIR at each call) set to a
 * new empty directory of its own, and returns what is left in it afterwards: a scan of the shared
 * /tmp would race with the demo that cli.test.ts runs in another process.
 */
async function leftInTmp(body: () => Promise<void>): Promise<string[]> {
  const own = tempDir();
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = own;
  try {
    expect(tmpdir()).toBe(own);
    await body();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  return readdirSync(own);
}

describe("graphplan demo", () => {
  it("shows the example's test failing, the agent's phases as they happen, the diff, and the test passing", async () => {
    let result = { code: -1, stdout: "", stderr: "" };
    const left = await leftInTmp(async () => {
      result = await demo();
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const [testBefore, rest] = result.stdout.split("the agent (");
    expect(testBefore).toMatch(/\$ python3 -m unittest -v\nfails \(exit 1\)\n[\s\S]*FAILED \(failures=2\)/);
    const phases = rest!
      .split("\n")
      .filter((l) => l.startsWith("["))
      .map((l) => l.slice(1, l.indexOf("]")));
    expect(phases).toEqual(["explore", "graph", "plan", "verify", "execute", "review", "submit"]);
    expect(rest).toContain('-    return len(text.split(" "))\n+    return len(words(text))\n');
    expect(rest).toMatch(/\$ python3 -m unittest -v\npasses\n[\s\S]*\| OK\n$/);
    // The temporary repository is gone.
    expect(left).toEqual([]);
  });

  it("keeps the repository with --keep, the fix committed nowhere but applied in the work tree", async () => {
    const keep = join(tempDir(), "textstats");
    const result = await demo("--keep", keep);
    expect(result.code).toBe(0);
    expect(existsSync(join(keep, ".git"))).toBe(true);
    expect(result.stdout).toContain(`repository: ${keep}\n`);
  });

  it("exits 2 with one line for bad input, leaving nothing behind", async () => {
    const notEmpty = tempDir();
    writeFileSync(join(notEmpty, "x"), "");
    const broken = tempDir();
    writeFileSync(
      join(broken, "example.json"),
      JSON.stringify({ description: "d", project: "p", task: "t.md", test: "true" }),
    );
    const cases: [string[], RegExp][] = [
      [
        ["--example", "/nonexistent/example"],
        /^error: cannot read the example \/nonexistent\/example\/example\.json: .* \(an example is a directory with example\.json; see .*\)$/,
      ],
      [["--example", broken], /^error: the example .* is invalid: patch: /],
      [["--provider", "anthropic"], /^error: --provider anthropic needs --model NAME$/],
      [["--keep", notEmpty], /^error: --keep .* is not empty; name a new directory$/],
    ];
    const left = await leftInTmp(async () => {
      for (const [args, expected] of cases) {
        const result = await demo(...args);
        expect(result.code, args.join(" ")).toBe(2);
        expect(result.stderr.trimEnd(), args.join(" ")).toMatch(expected);
        expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
      }
    });
    expect(left).toEqual([]);
  });

  it("reads the shipped example", () => {
    const read = readExample(DEFAULT_EXAMPLE);
    expect(read.ok && read.example.test).toBe("python3 -m unittest -v");
  });
});

const example = (path: string) => readFileSync(join(DEFAULT_EXAMPLE, path), "utf8");
/** The example project committed into a fresh git repository. */
const projectRepo = () => {
  const repo = makeRepo(tempDir());
  const files: Record<string, string> = {};
  for (const path of [
    ".gitignore",
    "textstats/__init__.py",
    "textstats/words.py",
    "tests/__init__.py",
    "tests/test_words.py",
  ])
    files[path] = example(join("project", path));
  repo.commit(files, "the example project");
  return repo.dir;
};
const run = (...args: string[]) => runInProcess([runCommand], ["run", ...args]);

describe("graphplan run --provider replay", () => {
  it("solves a task with the reference patch compiled into a plan, with no API key, billed as Claude Sonnet 5 would bill it", async () => {
    const repo = projectRepo();
    const out = join(tempDir(), "out");
    const result = await run(
      "--repo",
      repo,
      "--task",
      join(DEFAULT_EXAMPLE, "task.md"),
      "--provider",
      "replay",
      "--patch",
      join(DEFAULT_EXAMPLE, "fix.patch"),
      "--output",
      out,
      "--quiet",
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Submitted: patch of 1 file \(\+1 -1\); 4 model calls, [\d.]+k? tokens in \(\d+% from the cache\), \d+ out, \$0\.\d{4} as anthropic:claude-sonnet-5 would bill them; phases explore>graph>plan>verify>execute>review>submit;/,
    );
    // The trajectory's totals are the stand-in's billing, through the Anthropic SDK: each call reads the
    // conversation so far from the cache, once it is long enough to be cached (1024 tokens).
    const t = JSON.parse(readFileSync(join(out, "trajectory.json"), "utf8"));
    const calls = t.messages.filter((m: { role: string }) => m.role === "assistant");
    expect(calls).toHaveLength(4);
    for (let i = 1; i < calls.length; i++)
      if (calls[i - 1].usage.inputTokens >= 1024)
        expect(calls[i].usage.cacheReadTokens).toBe(calls[i - 1].usage.inputTokens);
    expect(t.totals.cacheReadTokens).toBeGreaterThan(0);
    expect(readFileSync(join(out, "patch.diff"), "utf8")).toContain(
      '-    return len(text.split(" "))\n+    return len(words(text))\n',
    );
    expect(readFileSync(join(repo, "textstats/words.py"), "utf8")).toContain("    return len(words(text))\n");
  });

  it("exits 2 naming the problem when there is no patch, or the patch cannot be replayed, and changes nothing", async () => {
    const repo = projectRepo();
    const notADiff = join(tempDir(), "notes.txt");
    writeFileSync(notADiff, "fix word_count\n");
    const elsewhere = join(tempDir(), "other.patch");
    writeFileSync(
      elsewhere,
      example("fix.patch").replaceAll('    return len(text.split(" "))', "    return len(text.split())"),
    );
    const cases: [string[], RegExp][] = [
      [
        [],
        /^error: --provider replay needs --patch FILE \(the reference patch, a unified diff, that the replay model plans with\)$/,
      ],
      [["--patch", notADiff], /^error: the replay model cannot replay .*notes\.txt: /],
      [["--patch", elsewhere], /^error: the replay model cannot replay .*other\.patch: /],
    ];
    for (const [args, expected] of cases) {
      const result = await run(
        "--repo",
        repo,
        "--task-text",
        "fix it",
        "--provider",
        "replay",
        ...args,
        "--output",
        join(tempDir(), "out"),
        "--quiet",
      );
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr.trimEnd(), args.join(" ")).toMatch(expected);
    }
    expect(git(repo, "status", "--porcelain")).toBe("");
  });

  it("refuses --patch without --provider replay", async () => {
    const result = await run(
      "--repo",
      projectRepo(),
      "--task-text",
      "fix it",
      "--provider",
      "openai",
      "--model",
      "gpt-4.1",
      "--patch",
      join(DEFAULT_EXAMPLE, "fix.patch"),
      "--quiet",
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("error: --patch goes with --provider replay\n");
  });
});

describe("graphplan run --strategy rfsn", () => {
  const FIX = [
    {
      template: "change_return_value",
      params: {
        target: { kind: "return", file: "textstats/words.py", parent: { kind: "function", name: "word_count" } },
        value: "len(words(text))",
      },
    },
  ];
  const UNITTEST = "python3 -m unittest {tests}";

  it("lets the RFSN planner drive: the failing tests run, the model's patch is applied, the tests pass", async () => {
    const repo = projectRepo();
    const script = join(tempDir(), "replies.json");
    writeFileSync(
      script,
      JSON.stringify([`THOUGHT: count what words() finds.\n\n\`\`\`json\n${JSON.stringify(FIX)}\n\`\`\``]),
    );
    const out = join(tempDir(), "out");
    const failing = [
      "tests.test_words.WordCountTest.test_empty_text_has_no_words",
      "tests.test_words.WordCountTest.test_any_whitespace_separates_words",
    ];
    const result = await run(
      "--repo",
      repo,
      "--task",
      join(DEFAULT_EXAMPLE, "task.md"),
      "--strategy",
      "rfsn",
      ...failing.flatMap((t) => ["--failing-test", t]),
      "--test-command",
      UNITTEST,
      "--provider",
      "scripted",
      "--script",
      script,
      "--output",
      out,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Submitted: patch of 1 file \(\+1 -1\); 1 model calls/);
    expect(result.stderr.split("\n").slice(0, 2)).toEqual([
      "[explore] RFSN REPRODUCE: run_tests .",
      expect.stringMatching(/^ {2}\$ |^\[/),
    ]);
    expect(result.stderr).toMatch(/\[submit\] RFSN DONE: the tests pass\n$/);
    expect(readFileSync(join(repo, "textstats/words.py"), "utf8")).toContain("    return len(words(text))\n");
  });

  it("exits 2 for the rfsn options without --strategy rfsn, and for a test command with nowhere to put the tests", async () => {
    const repo = projectRepo();
    const cases: [string[], string][] = [
      [["--failing-test", "t"], "error: --failing-test and --models go with --strategy rfsn\n"],
      [
        ["--strategy", "rfsn", "--test-command", "make test"],
        'error: --test-command "make test" has no {tests}; write where the tests go, e.g. "python3 -m pytest {tests}"\n',
      ],
      [["--strategy", "rfsn", "--models", " , "], "error: --models needs model names, comma-separated\n"],
    ];
    for (const [args, expected] of cases) {
      const result = await run(
        "--repo",
        repo,
        "--task-text",
        "fix it",
        "--provider",
        "openai",
        "--model",
        "gpt-4.1",
        ...args,
        "--quiet",
      );
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toBe(expected);
    }
  });
});
