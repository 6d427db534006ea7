/**
 * SUBMIT: the patch of the work tree against HEAD, and the design's (docs/design.md, Origins) post-submission checks (a
 * `diff --git` header, `---`/`+++` markers, `@@` hunks, at least one added line, and
 * `git apply --check` against a clean HEAD).
 *
 * The patch is `git diff --cached --binary HEAD` over a temporary copy of the index to which every
 * change of the work tree was added (`git add -A`, so .gitignore is honoured): files the plan or the
 * model created are in it, binary files in a form `git apply` takes, and the repository's own index
 * is never touched. `git apply --check --cached` runs against another
 * temporary index read from HEAD, i.e. against a clean checkout, without writing anything. Both
 * run in the Sandbox, on the very same patch file, as one command (`patchCommand`): in a container
 * each command is a round trip to the engine.
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

/** The text checks of the design's patch verification (`applies` is decided by git). */
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
  if (!checks.applies)
    problems.push(
      `\`git apply --check\` refuses the patch on a clean checkout of HEAD: ${applyOutput.trim() || "no detail"}`,
    );
  return problems;
}

export interface PatchResult {
  readonly ok: boolean;
  readonly patch: string;
  readonly checks: PatchChecks;
  readonly problems: string[];
}

/**
 * `diffCommand` then, when it succeeded, `applyCheckCommand` on its patch file, in one command: the
 * patch, then a line `<marker> <the check's exit status>`, then the check's output. A failed diff
 * exits with its status and prints git's error, without the marker.
 */
export function patchCommand(base: string, marker: string): string {
  return [
    diffCommand(base),
    // In a subshell: the check ends with `exit`, and its output is printed after its status.
    `c="$(exec 2>&1`,
    applyCheckCommand(base),
    `)"; s=$?`,
    `printf '\\n%s %s\\n%s' ${quote(marker)} "$s" "$c"`,
  ].join("\n");
}

/** The marker `patchCommand` prints before the check's status (its nonce is in the command). */
const PATCH_MARKER = /GRAPHPLAN-APPLY-CHECK-[0-9a-f]{16}/;

/**
 * For a command table (`TestSandbox`): what `patchCommand` prints for `patch`, given the command it
 * was asked to run (which holds the marker) — `undefined` for any other command. `applies: false`
 * prints `checkOutput` as git's refusal.
 */
export function patchCommandOutput(
  command: string,
  patch: string,
  check: { readonly applies: boolean; readonly output?: string } = { applies: true },
): string | undefined {
  const marker = PATCH_MARKER.exec(command)?.[0];
  if (marker === undefined || !command.includes("git add -A")) return undefined;
  return `${patch}\n${marker} ${check.applies ? 0 : 1}\n${check.output ?? ""}`;
}

/** The work tree's patch, checked: one command in the Sandbox (see `patchCommand`). */
export function patchOfWorkTree(timeoutMs: number): Effect.Effect<PatchResult, SandboxFailed, Sandbox> {
  return Effect.gen(function* () {
    const sandbox = yield* Sandbox;
    const nonce = randomBytes(8).toString("hex");
    const marker = `GRAPHPLAN-APPLY-CHECK-${nonce}`; // PATCH_MARKER
    const ran = yield* sandbox.exec(patchCommand(`/tmp/graphplan-patch-${nonce}`, marker), { timeoutMs });
    const at = ran.output.lastIndexOf(`\n${marker} `);
    if (ran.exitCode !== 0 || at < 0) {
      const checks = {
        diffHeader: false,
        fileMarkers: false,
        hunks: false,
        additions: false,
        deletions: false,
        applies: false,
      };
      const detail = ran.timedOut ? "it timed out" : `exit ${ran.exitCode}: ${ran.output.trim().slice(0, 2000)}`;
      return {
        ok: false,
        patch: "",
        checks,
        problems: [`git could not produce the patch of the work tree (${detail})`],
      };
    }
    const patch = ran.output.slice(0, at);
    const trailer = ran.output.slice(at + marker.length + 2);
    const newline = trailer.indexOf("\n");
    const status = trailer.slice(0, newline < 0 ? undefined : newline);
    const checkOutput = newline < 0 ? "" : trailer.slice(newline + 1);
    const checks = { ...patchFormat(patch), applies: status === "0" };
    const problems = patchProblems(patch, checks, checkOutput);
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
