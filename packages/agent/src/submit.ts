/**
 * SUBMIT: the patch of the work tree against HEAD, and the seed's post-submission checks (a
 * `diff --git` header, `---`/`+++` markers, `@@` hunks, at least one added line, and
 * `git apply --check` against a clean HEAD).
 *
 * The patch is `git diff --cached --binary HEAD` over a temporary copy of the index to which every
 * change of the work tree was added (`git add -A`, so .gitignore is honoured): files the plan or the
 * model created are in it, binary files in a form `git apply` takes, and the repository's own index
 * is never touched. `git apply --check --cached` runs against another
 * temporary index read from HEAD, i.e. against a clean checkout, without writing anything. Both
 * run in the Sandbox, on the very same patch file.
 */
import { randomBytes } from "node:crypto";
import * as Effect from "effect/Effect";
import { Sandbox, type SandboxFailed } from "@graphplan/runtime";
import type { Session } from "./session.js";
import type { PatchChecks, Submission } from "./trajectory.js";

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Writes the patch of the work tree (untracked, not ignored files included) to `<base>.diff` and
 * prints it; on failure prints git's error and exits non-zero. The repository's index is not used
 * for writing: a copy of it is (`<base>.index`, removed afterwards).
 */
export function diffCommand(base: string): string {
  const p = quote(base);
  return [
    `p=${p}`,
    `idx="$(git rev-parse --git-path index)" || exit 1`,
    `rm -f "$p.index"; if [ -f "$idx" ]; then cp "$idx" "$p.index" || exit 1; fi`,
    `if GIT_INDEX_FILE="$p.index" git add -A >"$p.log" 2>&1 && GIT_INDEX_FILE="$p.index" git -c core.quotepath=false diff --cached --binary --no-color --no-ext-diff HEAD >"$p.diff" 2>"$p.log"; then`,
    `  rm -f "$p.index" "$p.log"; cat "$p.diff"`,
    `else`,
    `  s=$?; cat "$p.log"; rm -f "$p.index" "$p.log" "$p.diff"; exit $s`,
    `fi`,
  ].join("\n");
}

/** `git apply --check` of `<base>.diff` against a temporary index read from HEAD (a clean checkout); removes the patch file. */
export function applyCheckCommand(base: string): string {
  const p = quote(base);
  return [
    `p=${p}`,
    `GIT_INDEX_FILE="$p.head" git read-tree HEAD && GIT_INDEX_FILE="$p.head" git apply --check --cached "$p.diff"`,
    `s=$?; rm -f "$p.head" "$p.diff"; exit $s`,
  ].join("\n");
}

/** The text checks of the seed's patch verification (`applies` is decided by git). */
export function patchFormat(patch: string): Omit<PatchChecks, "applies"> {
  return {
    diffHeader: /^diff --git /m.test(patch),
    fileMarkers: /^--- /m.test(patch) && /^\+\+\+ /m.test(patch),
    hunks: /^@@ /m.test(patch),
    additions: patch.split("\n").some((line) => line.startsWith("+") && !line.startsWith("+++ ")),
    deletions: patch.split("\n").some((line) => line.startsWith("-") && !line.startsWith("--- ")),
  };
}

/** What is wrong with a patch, one line each (empty: it is usable). */
export function patchProblems(patch: string, checks: PatchChecks, applyOutput: string): string[] {
  if (patch.trim() === "") return ["the diff is empty: no file of the work tree differs from the last commit"];
  const problems: string[] = [];
  if (!checks.diffHeader) problems.push("the patch has no `diff --git` header");
  if (!checks.fileMarkers) problems.push("the patch has no `--- a/...` and `+++ b/...` file markers");
  if (!checks.hunks) problems.push("the patch has no `@@` hunk");
  if (!checks.additions && !checks.deletions) problems.push("the patch changes no line (no `+` or `-` line)");
  if (!checks.applies) problems.push(`\`git apply --check\` refuses the patch on a clean checkout of HEAD: ${applyOutput.trim() || "no detail"}`);
  return problems;
}

export interface PatchResult {
  readonly ok: boolean;
  readonly patch: string;
  readonly checks: PatchChecks;
  readonly problems: string[];
}

/** The work tree's patch, checked. */
export function patchOfWorkTree(timeoutMs: number): Effect.Effect<PatchResult, SandboxFailed, Sandbox> {
  return Effect.gen(function* () {
    const sandbox = yield* Sandbox;
    const base = `/tmp/graphplan-patch-${randomBytes(8).toString("hex")}`;
    const diff = yield* sandbox.exec(diffCommand(base), { timeoutMs });
    // Always run: it also removes the patch file.
    const check = yield* sandbox.exec(applyCheckCommand(base), { timeoutMs });
    if (diff.exitCode !== 0) {
      const checks = { diffHeader: false, fileMarkers: false, hunks: false, additions: false, deletions: false, applies: false };
      const detail = diff.timedOut ? "it timed out" : `exit ${diff.exitCode}: ${diff.output.trim().slice(0, 2000)}`;
      return { ok: false, patch: "", checks, problems: [`git could not produce the patch of the work tree (${detail})`] };
    }
    const patch = diff.output;
    const checks = { ...patchFormat(patch), applies: check.exitCode === 0 };
    const problems = patchProblems(patch, checks, check.output);
    return { ok: problems.length === 0, patch, checks, problems };
  });
}

/** SUBMIT: the patch of the work tree, checked and recorded in the session's submissions. */
export function submit(session: Session): Effect.Effect<Submission, SandboxFailed, Sandbox> {
  return Effect.gen(function* () {
    const result = yield* patchOfWorkTree(session.config.command.timeout_seconds * 1000);
    const submission: Submission = { phase: session.phase ?? "submit", atMessage: session.messages.length, ...result };
    session.submissions.push(submission);
    return submission;
  });
}
