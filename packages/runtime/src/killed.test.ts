/**
 * The all-or-nothing promise under SIGKILL: a child process applying a plan is killed at seeded random
 * moments; after `recover` every file is byte-identical to the original, or (the kill came after the
 * commit point) every file is the applied result. Never a mix.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { recover } from "./apply.js";
import { snapshot, tempDir } from "./fixtures/tmp.js";
import { Workspace } from "./workspace.js";

const SLEEP_MS = 40;
const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const childScript = fileURLToPath(new URL("./fixtures/apply-child.ts", import.meta.url));

/** mulberry32: a small seeded generator, so a failing run can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** When to kill: `ms` after the child prints the line `after` ("start", or "write N" just before file N is written). */
interface Kill {
  readonly after: string;
  readonly ms: number;
}

/** Run the child; kill it as `kill` says (never, if undefined). Times are from "start". */
function runChild(root: string, planPath: string, kill?: Kill) {
  return new Promise<{ output: string; killed: boolean; ms: number; firstWriteMs: number }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", tsx, "--conditions=source", childScript, root, planPath, String(SLEEP_MS)],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    let started = 0;
    let firstWrite = 0;
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (!started && output.includes("start\n")) started = performance.now();
      if (kill && !timer && output.includes(`${kill.after}\n`))
        timer = setTimeout(() => child.kill("SIGKILL"), kill.ms);
      if (!firstWrite && output.includes("write 0\n")) firstWrite = performance.now();
    });
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (_code, signal) => {
      clearTimeout(timer);
      resolve({
        output,
        killed: signal === "SIGKILL",
        ms: performance.now() - started,
        firstWriteMs: firstWrite - started,
      });
    });
  });
}

const recoverIn = (root: string) => Effect.runPromise(recover().pipe(Effect.provide(Workspace.layer(root))));

interface Scenario {
  readonly trials: number;
  readonly files: Record<string, string>;
  readonly plan: unknown;
}

const functions = (i: number) =>
  `def f${i}(x):\n    return x + ${i}\n\n\ndef keep${i}():\n    return ${i}\n` + `# filler ${i}\n`.repeat(200);
const names = ["a.py", "b.py", "pkg/c.py", "pkg/d.py", "e.py"];

const scenarios: Array<[string, Scenario]> = [
  [
    "replace_node in five files",
    {
      trials: 24,
      files: Object.fromEntries(names.map((n, i) => [n, functions(i)])),
      plan: names.map((file, i) => ({
        op: "replace_node",
        params: {
          locator: { kind: "function", name: `f${i}`, file },
          replacement: `def f${i}(x):\n    return x * ${i}`,
        },
      })),
    },
  ],
  [
    "three edits and two new files in new directories",
    {
      trials: 20,
      files: { "a.py": "a\n".repeat(300), "b.py": "b\n".repeat(300), "pkg/c.py": "c\n" },
      plan: [
        { op: "append_text", params: { file: "a.py", text: "A\n" } },
        { op: "create_file", params: { path: "new/deep/x.py", content: "x\n" } },
        { op: "append_text", params: { file: "pkg/c.py", text: "C\n" } },
        { op: "create_file", params: { path: "new/y.py", content: "y\n" } },
        { op: "append_text", params: { file: "b.py", text: "B\n" } },
      ],
    },
  ],
];

describe.each(scenarios)("a killed apply: %s", (name, scenario) => {
  it("is rolled back by recover to the original bytes, or was complete: never a mix", async () => {
    const original = tempDir();
    for (const [name, text] of Object.entries(scenario.files)) {
      mkdirSync(join(original, name, ".."), { recursive: true });
      writeFileSync(join(original, name), text);
    }
    const planPath = join(tempDir(), "plan.json");
    writeFileSync(planPath, JSON.stringify(scenario.plan));
    const before = snapshot(original);

    // Calibrate: one full run gives the applied result and how long the apply takes.
    const full = tempDir();
    cpSync(original, full, { recursive: true });
    const done = await runChild(full, planPath);
    expect(done.output).toContain("done");
    const after = snapshot(full);
    const changedFiles = Object.keys({ ...before, ...after }).filter((k) => before[k] !== after[k] && !k.endsWith("/"));
    expect(changedFiles.length).toBe(5);
    // Kills are timed from the child's own progress lines, not from a calibrated clock (a loaded CI machine
    // made every kill land after the end): while the journal is being written ("start" + up to the first
    // write), during each file's write window ("write N" + up to 1.5 sleeps), or up to three sleeps after the last
    // write (so some kills come after the commit).
    const steps = ["start", ...changedFiles.map((_, i) => `write ${i}`)];
    const random = seeded(20_251_121);
    const kills: Kill[] = Array.from({ length: scenario.trials }, () => {
      const after = steps[Math.floor(random() * steps.length)] ?? "start";
      const last = after === steps.at(-1);
      const window = after === "start" ? Math.max(1, done.firstWriteMs) : SLEEP_MS * (last ? 4 : 1.5);
      return { after, ms: Math.floor(random() * window) };
    });
    const outcomes = { original: 0, applied: 0, journalLeft: 0, mixedBeforeRecover: 0 };
    const trial = async (index: number) => {
      const kill = kills[index] ?? { after: "start", ms: 0 };
      const root = tempDir();
      cpSync(original, root, { recursive: true });
      const run = await runChild(root, planPath, kill);
      expect(run.killed || run.output.includes("done"), run.output).toBe(true);
      const state = snapshot(root);
      const changed = changedFiles.filter((n) => state[n] !== before[n]).length;
      if (existsSync(join(root, ".graphplan", "journal.json"))) outcomes.journalLeft++;
      if (changed > 0 && changed < changedFiles.length) outcomes.mixedBeforeRecover++;

      await recoverIn(root);
      const recovered = JSON.stringify(snapshot(root));
      if (recovered === JSON.stringify(before)) outcomes.original++;
      else if (recovered === JSON.stringify(after)) outcomes.applied++;
      else
        expect.fail(
          `trial ${index} (kill ${kill.ms} ms after "${kill.after}"): neither original nor applied: ${recovered}`,
        );
    };
    // Two children at a time (the machine has two cores); each kill is timed from its own child's start.
    for (let i = 0; i < scenario.trials; i += 2)
      await Promise.all([trial(i), ...(i + 1 < scenario.trials ? [trial(i + 1)] : [])]);
    console.log(
      `killed apply (${name}): first write ${Math.round(done.firstWriteMs)} ms, done ${Math.round(done.ms)} ms; outcomes`,
      outcomes,
    );
    expect(outcomes.original + outcomes.applied).toBe(scenario.trials);
    expect(outcomes.journalLeft).toBeGreaterThan(0);
    expect(outcomes.mixedBeforeRecover).toBeGreaterThan(0);
  }, 300_000);
});
