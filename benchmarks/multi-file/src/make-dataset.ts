/**
 * `pnpm -s --filter @graphplan/bench-multi-file make-dataset --repos DIR --out FILE.jsonl [--per-repo N]`
 * (relative paths are the caller's): from the history of each
 * repository in DIR (clones named `<owner>__<name>`, bare or not), the commits (one parent) that
 * change 2 to 10 files, those that add, delete or rename one first; each becomes a line of a
 * SWE-bench-style dataset — `repo`, `instance_id`, `base_commit` (the parent), `patch` (`git diff -M`
 * of the whole commit: code, docs, changelogs, config, modes) — for `pnpm -s bench replay --dataset FILE`.
 * No file is left out: what the engine cannot do shows in the replay's report.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command, InvalidArgumentError } from "commander";

const positive = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("a positive whole number");
  return n;
};

/** A path as the user meant it: pnpm runs a package's script in the package's folder and says where it was called from in INIT_CWD. */
const fromCaller = (path: string): string =>
  resolve((process.env.npm_lifecycle_event === "make-dataset" && process.env.INIT_CWD) || process.cwd(), path);

const program = new Command("make-dataset")
  .requiredOption("--repos <dir>", "directory of clones named <owner>__<name> (bare or plain)", fromCaller)
  .requiredOption("--out <file>", "the dataset to write (JSONL)", fromCaller)
  .option("--per-repo <n>", "commits per repository", positive, 40)
  .option("--scan <n>", "newest commits of each repository to look at", positive, 4000)
  .showHelpAfterError()
  // Usage errors exit 2, as in every GraphPlan command.
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  .parse();
const options = program.opts<{ repos: string; out: string; perRepo: number; scan: number }>();
if (!statSync(options.repos, { throwIfNoEntry: false })?.isDirectory())
  program.error(
    `error: --repos ${options.repos} is not a directory; give the directory of clones named <owner>__<name>`,
  );

interface Change {
  readonly status: string;
  readonly paths: readonly string[];
}

const git = (dir: string, ...args: string[]): string =>
  execFileSync("git", ["-C", dir, ...args], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });

const lines: string[] = [];
const counts: string[] = [];
for (const name of readdirSync(options.repos).sort()) {
  const match = /^([^_]+(?:_[^_]+)*)__(.+)$/.exec(name);
  if (!match) continue;
  const dir = join(options.repos, name);
  const repo = `${match[1]}/${match[2]}`;
  const log = git(dir, "log", "--no-merges", "--format=%H %P", "-n", String(options.scan), "HEAD").trim().split("\n");
  const withFiles: { commit: string; parent: string; changes: Change[] }[] = [];
  const plain: typeof withFiles = [];
  for (const entry of log) {
    const [commit, parent, ...more] = entry.split(" ");
    if (!commit || !parent || more.length) continue;
    const changes = git(dir, "diff-tree", "-r", "-M", "--no-commit-id", "--name-status", parent, commit)
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => {
        const [status, ...paths] = l.split("\t");
        return { status: status ?? "", paths };
      });
    if (changes.length < 2 || changes.length > 10) continue;
    (changes.some((c) => /^[ADR]/.test(c.status)) ? withFiles : plain).push({ commit, parent, changes });
  }
  const chosen = [...withFiles.slice(0, Math.ceil(options.perRepo / 2)), ...plain].slice(0, options.perRepo);
  for (const { commit, parent, changes } of chosen) {
    const patch = git(dir, "diff", "-M", parent, commit);
    if (!patch.trim()) continue;
    lines.push(
      JSON.stringify({
        repo,
        instance_id: `${name}-${commit.slice(0, 10)}`,
        base_commit: parent,
        patch,
        problem_statement: git(dir, "log", "-1", "--format=%s", commit).trim(),
      }),
    );
  }
  counts.push(
    `${repo}: ${chosen.length} commits (${Math.min(withFiles.length, Math.ceil(options.perRepo / 2))} adding, deleting or renaming a file; ${withFiles.length + plain.length} eligible of ${log.length} scanned)`,
  );
}
writeFileSync(options.out, `${lines.join("\n")}\n`);
console.log(`${options.out}: ${lines.length} commits\n${counts.join("\n")}`);
