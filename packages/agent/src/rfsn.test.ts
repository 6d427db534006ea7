/**
 * `--strategy rfsn` end to end: real git, real python3 running the project's unittest tests in the local
 * sandbox, a scripted model proposing patches, the real gate and verifier.
 */
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { describe, expect, it } from "vitest";
import { LanguageModel, Sandbox, ScriptedModel, Workspace } from "@graphplan/runtime";
import { makeRepo, tempDir } from "@graphplan/testkit";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runAgent } from "./agent.js";
import { configWith, git, json, read } from "./fixtures/repo.js";
import { modelLayer } from "./layers.js";
import type { Proposer } from "./rfsn.js";
import { TrajectorySchema } from "./trajectory.js";

const WORDS = `"""Counting words."""
import re

WORD = re.compile(r"[A-Za-z0-9']+")


def words(text):
    return [w.lower() for w in WORD.findall(text)]


def word_count(text):
    """How many words text has."""
    return len(text.split(" "))
`;

const TESTS = `import unittest

from textstats.words import word_count


class WordCountTest(unittest.TestCase):
    def test_sentence(self):
        self.assertEqual(word_count("the cat sat"), 3)

    def test_empty_text_has_no_words(self):
        self.assertEqual(word_count(""), 0)
`;

const TASK = 'word_count("") returns 1; an empty text has no words.';
const FAILING = ["tests.test_words.WordCountTest.test_empty_text_has_no_words"];

/** The test's expectation changed to the buggy output: a weakening the gate must refuse. */
const WEAKEN = [
  {
    op: "replace_code",
    params: {
      file: "tests/test_words.py",
      pattern: 'self.assertEqual(word_count(""), 0)',
      replacement: 'self.assertEqual(word_count(""), 1)',
    },
  },
];
const FIX = [
  {
    template: "change_return_value",
    params: {
      target: { kind: "return", file: "textstats/words.py", parent: { kind: "function", name: "word_count" } },
      value: "len(words(text))",
    },
  },
];

function project() {
  const repo = makeRepo(tempDir());
  repo.commit({
    ".gitignore": "__pycache__/\n",
    "textstats/__init__.py": "",
    "textstats/words.py": WORDS,
    "tests/__init__.py": "",
    "tests/test_words.py": TESTS,
  });
  return repo.dir;
}

async function run(
  repo: string,
  script: ScriptedModel | Layer.Layer<LanguageModel>,
  failingTests: readonly string[] = FAILING,
  proposers?: readonly Proposer[],
) {
  const config = await configWith({});
  const layers = Layer.mergeAll(
    script instanceof ScriptedModel ? LanguageModel.layerScripted(script) : script,
    Sandbox.layerLocal({ cwd: repo }),
    Workspace.layer(repo),
  );
  const options = {
    rfsn: { failingTests, testCommand: "python3 -m unittest {tests}", ...(proposers ? { proposers } : {}) },
  };
  return Effect.runPromise(runAgent({ task: TASK, config }, options).pipe(Effect.provide(layers)));
}

describe("--strategy rfsn", () => {
  it("reproduces the failure, refuses a proposal that weakens the test, applies the real fix, and submits once the tests pass", async () => {
    const repo = project();
    const script = new ScriptedModel([
      json(WEAKEN, "Make the test expect what the code does."),
      json(FIX, "Count the words that words() finds."),
    ]);
    const trajectory = await run(repo, script);

    expect(TrajectorySchema.parse(trajectory)).toEqual(trajectory);
    expect(trajectory.exitStatus).toBe("Submitted");
    expect(read(repo, "tests/test_words.py")).toBe(TESTS);
    expect(read(repo, "textstats/words.py")).toContain("    return len(words(text))\n");
    expect(trajectory.patch).toContain("+    return len(words(text))");
    expect(trajectory.patch).not.toContain("tests/test_words.py");
    expect(trajectory.patch.match(/^diff --git /gm)).toHaveLength(1);
    // The planner's way: reproduce (explore), patch (plan), the gate's refusal (verify), the fix applied (execute), the tests (review), submit.
    const reasons = trajectory.transitions.map((t) => `${t.to}: ${t.reason}`);
    expect(reasons[0]).toMatch(/^explore: RFSN REPRODUCE: run_tests/);
    expect(reasons).toContainEqual(expect.stringMatching(/^verify: the gate rejected patch-\d+: INVARIANT_VIOLATION$/));
    expect(reasons).toContainEqual(expect.stringMatching(/^execute: RFSN PATCH: patch-\d+ verified$/));
    expect(reasons.at(-1)).toBe("submit: RFSN DONE: the tests pass");
    // The failing run was observed for real, and the model was told why its first proposal was refused.
    expect(trajectory.messages.some((m) => m.role === "user" && /FAILED \(failures=1\)/.test(m.content))).toBe(true);
    expect(script.requests[1]!.at(-1)!.content).toContain(
      "Your last proposal did not work: the gate rejected it (INVARIANT_VIOLATION)",
    );
    expect(script.requests[1]!.at(-1)!.content).toContain("expected-value-changed");
    expect(trajectory.plans.map((p) => p.valid)).toEqual([true, true]);
  });

  it("with no failing test named, reproduces with the whole suite and fixes what it shows", async () => {
    const repo = project();
    const trajectory = await run(repo, new ScriptedModel([json(FIX)]), []);
    expect(trajectory.exitStatus).toBe("Submitted");
    expect(trajectory.transitions[0]!.reason).toBe("RFSN REPRODUCE: run_tests .");
    expect(trajectory.messages[0]!.content).toMatch(/^\$ python3 -m unittest \n\(exit 1\)/);
    expect(read(repo, "textstats/words.py")).toContain("    return len(words(text))\n");
  });

  it("asks every proposer for each patch and applies the candidate the planner ranks first that passes the gate", async () => {
    const repo = project();
    const weakener = new ScriptedModel(Array(4).fill(json(WEAKEN)));
    const fixer = new ScriptedModel(Array(4).fill(json(FIX)));
    const trajectory = await run(repo, new ScriptedModel([]), FAILING, [
      { name: "weakener", model: weakener },
      { name: "fixer", model: fixer },
    ]);
    expect(trajectory.exitStatus).toBe("Submitted");
    expect(weakener.used).toBe(fixer.used);
    expect(weakener.used).toBeGreaterThanOrEqual(1);
    expect(read(repo, "tests/test_words.py")).toBe(TESTS);
    expect(read(repo, "textstats/words.py")).toContain("    return len(words(text))\n");
    expect(trajectory.plans.filter((p) => p.valid)).toHaveLength(2 * fixer.used);
  });

  it("ends Failed with the planner's reason when no proposal fixes the tests, leaving the tests untouched", async () => {
    const repo = project();
    const trajectory = await run(repo, new ScriptedModel(Array(12).fill(json(WEAKEN))));
    expect(trajectory.exitStatus).toBe("Failed");
    expect(trajectory.exitReason).toMatch(/^RfsnStuck: the RFSN planner is stuck: /);
    expect(read(repo, "tests/test_words.py")).toBe(TESTS);
    expect(trajectory.patch).toBe("");
  });

  it("with --provider replay, answers each patch request with the plan compiled from the reference patch, which the planner verifies, applies and submits", async () => {
    const repo = project();
    const fixed = read(repo, "textstats/words.py").replace('len(text.split(" "))', "len(words(text))");
    writeFileSync(join(repo, "textstats/words.py"), fixed);
    const patch = git(repo, "diff");
    git(repo, "checkout", "--", ".");
    const patchFile = join(tempDir(), "gold.diff");
    writeFileSync(patchFile, patch);
    const layer = await Effect.runPromise(
      modelLayer({ provider: "replay", patch: patchFile, strategy: "rfsn" }, await configWith({}), repo),
    );
    const trajectory = await run(repo, layer as Layer.Layer<LanguageModel>);
    expect(trajectory.exitStatus, trajectory.exitReason).toBe("Submitted");
    expect(trajectory.transitions.at(-1)!.reason).toBe("RFSN DONE: the tests pass");
    expect(trajectory.totals.modelCalls).toBe(1);
    expect(trajectory.plans.map((p) => p.valid)).toEqual([true]);
    expect(trajectory.patch).toBe(patch);
  });
});
