/**
 * A fresh, detached git worktree of a repository (bare or not) at one commit, in a new temporary
 * directory, as a scoped resource: it is removed (`git worktree remove --force`, `git worktree
 * prune`, and the directory deleted) when the scope closes, whether the work in it succeeded,
 * failed or was interrupted.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import { isGitRepository, MissingCommit, UnknownRepository } from "../git.js";

const run = promisify(execFile);

/** `git ARGS` in `cwd`: stdout, or an error carrying git's stderr. */
async function git(cwd: string, ...args: string[]): Promise<string> {
  try {
    const { stdout } = await run("git", ["-C", cwd, ...args], {
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
      maxBuffer: 1 << 24,
    });
    return stdout;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(stderr || (error as Error).message);
  }
}

/** The worktree could not be made for a reason other than the input (disk full, a git error...). */
export class WorktreeFailed extends Data.TaggedError("WorktreeFailed")<{
  readonly repo: string;
  readonly commit: string;
  readonly detail: string;
}> {
  override get message(): string {
    return `could not create a worktree of ${this.repo} at ${this.commit}: ${this.detail}`;
  }
}

export interface Worktree {
  /** The worktree's directory (a real path): the agent's workspace. */
  readonly dir: string;
  /** The repository's git directory (absolute, real path): a worktree's `.git` file points into it. */
  readonly gitDir: string;
  /** The full id of the commit checked out. */
  readonly commit: string;
}

export interface WorktreeOptions {
  /** Where the temporary directory is made (default: the OS temp directory). */
  readonly tempRoot: string;
  /** Told what could not be cleaned up (the release itself never fails). */
  readonly onCleanupProblem?: (problem: string) => void;
}

type Acquired = Worktree;

async function acquire(repo: string, repoPath: string, commit: string, tempRoot: string): Promise<Acquired> {
  if (!isGitRepository(repoPath)) throw new UnknownRepository({ repo, path: repoPath });
  let gitDir: string;
  try {
    gitDir = await realpath((await git(repoPath, "rev-parse", "--path-format=absolute", "--git-common-dir")).trim());
  } catch {
    throw new UnknownRepository({ repo, path: repoPath });
  }
  let full: string;
  try {
    full = (await git(gitDir, "rev-parse", "--verify", "--quiet", "--end-of-options", `${commit}^{commit}`)).trim();
  } catch {
    throw new MissingCommit({ repo, commit });
  }
  const dir = await realpath(await mkdtemp(join(tempRoot, "graphplan-bench-agent-")));
  try {
    await git(gitDir, "worktree", "add", "--detach", dir, full);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    await git(gitDir, "worktree", "prune").catch(() => undefined);
    throw new WorktreeFailed({ repo, commit, detail: (error as Error).message });
  }
  return { dir, gitDir, commit: full };
}

/** Removes the worktree, its administrative entry and its directory; reports what it could not. */
async function release(wt: Worktree, onProblem: (problem: string) => void): Promise<void> {
  await git(wt.gitDir, "worktree", "remove", "--force", "--force", wt.dir).catch((error: Error) =>
    onProblem(`git worktree remove: ${error.message}`),
  );
  await rm(wt.dir, { recursive: true, force: true }).catch((error: Error) =>
    onProblem(`rm ${wt.dir}: ${error.message}`),
  );
  await git(wt.gitDir, "worktree", "prune").catch((error: Error) => onProblem(`git worktree prune: ${error.message}`));
  if (existsSync(wt.dir)) onProblem(`${wt.dir} is still there`);
}

/**
 * A detached worktree of the repository at `repoPath` (for dataset repo `repo`) at `commit`, removed
 * when the scope closes. Fails with `UnknownRepository` (no git repository there), `MissingCommit`
 * (the repository does not have the commit) or `WorktreeFailed`; on failure nothing is left behind.
 */
export function worktree(
  repo: string,
  repoPath: string,
  commit: string,
  options: WorktreeOptions,
): Effect.Effect<Worktree, UnknownRepository | MissingCommit | WorktreeFailed, Scope.Scope> {
  return Effect.acquireRelease(
    Effect.tryPromise({
      try: () => acquire(repo, repoPath, commit, options.tempRoot),
      catch: (error) =>
        error instanceof UnknownRepository || error instanceof MissingCommit || error instanceof WorktreeFailed
          ? error
          : new WorktreeFailed({ repo, commit, detail: error instanceof Error ? error.message : String(error) }),
    }),
    (wt) => Effect.promise(() => release(wt, options.onCleanupProblem ?? (() => undefined))),
  );
}
