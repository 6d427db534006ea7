/**
 * Read-only git access without a checkout: one `git cat-file --batch` process per repository
 * answers `<commit>:<path>` and `<commit>^{commit}` requests in order.
 */
import { type ChildProcessByStdio, execFile, spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { promisify } from "node:util";
import * as Data from "effect/Data";

const run = promisify(execFile);

/** The repository directory does not exist or is not a git repository. */
export class UnknownRepository extends Data.TaggedError("UnknownRepository")<{
  readonly repo: string;
  readonly path: string;
}> {
  override get message(): string {
    return (
      `No git repository for ${this.repo} at ${this.path}: clone it there (bare or not), point --repos at its parent ` +
      `directory, or map it with --repo-map '{"${this.repo}": "/path/to/git/dir"}'.`
    );
  }
}

/** The commit is not in the repository (a shallow or stale clone, or a fork without it). */
export class MissingCommit extends Data.TaggedError("MissingCommit")<{
  readonly repo: string;
  readonly commit: string;
}> {
  override get message(): string {
    return `Commit ${this.commit} is not in the repository of ${this.repo}: fetch it (git fetch origin ${this.commit}) or use a clone that has it.`;
  }
}

/** The path does not exist at the commit. */
export class MissingBlob extends Data.TaggedError("MissingBlob")<{ readonly commit: string; readonly path: string }> {
  override get message(): string {
    return `${this.path} does not exist at ${this.commit}.`;
  }
}

/** The blob is not valid UTF-8 text, so the engine (which edits strings) cannot edit it byte for byte. */
export class NotText extends Data.TaggedError("NotText")<{ readonly commit: string; readonly path: string }> {
  override get message(): string {
    return `${this.path} at ${this.commit} is not UTF-8 text.`;
  }
}

/** True when `path` is a git directory or a work tree with one (`.git` dir or file). */
export function isGitRepository(path: string): boolean {
  if (!existsSync(path) || !statSync(path).isDirectory()) return false;
  if (existsSync(join(path, ".git"))) return true;
  return existsSync(join(path, "HEAD")) && existsSync(join(path, "objects"));
}

interface Pending {
  readonly resolve: (value: { type: string; body: Buffer } | undefined) => void;
  readonly reject: (error: Error) => void;
}

/** Reads objects of one repository through a long-lived `git cat-file --batch`. */
export class GitObjectReader {
  private readonly proc: ChildProcessByStdio<Writable, Readable, Readable>;
  private readonly queue: Pending[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  private failure: Error | undefined;
  private readonly decoder = new TextDecoder("utf-8", { fatal: true });

  constructor(
    readonly repo: string,
    readonly path: string,
  ) {
    if (!isGitRepository(path)) throw new UnknownRepository({ repo, path });
    this.proc = spawn("git", ["-C", path, "cat-file", "--batch"], { stdio: ["pipe", "pipe", "pipe"] });
    this.proc.stdout.on("data", (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.drain();
    });
    let stderr = "";
    this.proc.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    this.proc.on("close", (code) => {
      this.failure = new Error(`git cat-file in ${path} exited (${code}): ${stderr.trim()}`);
      for (const pending of this.queue.splice(0)) pending.reject(this.failure);
    });
    this.proc.on("error", (error) => {
      this.failure = error;
      for (const pending of this.queue.splice(0)) pending.reject(error);
    });
  }

  private drain(): void {
    for (;;) {
      const pending = this.queue[0];
      if (!pending) return;
      const eol = this.buffer.indexOf(10);
      if (eol < 0) return;
      const header = this.buffer.subarray(0, eol).toString();
      if (header.endsWith(" missing") || header.endsWith(" ambiguous")) {
        this.buffer = this.buffer.subarray(eol + 1);
        this.queue.shift();
        pending.resolve(undefined);
        continue;
      }
      const [, type, size] = header.split(" ");
      const length = Number(size);
      if (!type || !Number.isFinite(length)) {
        this.queue.shift();
        pending.reject(new Error(`unexpected git cat-file output: ${header}`));
        continue;
      }
      if (this.buffer.length < eol + 1 + length + 1) return;
      const body = Buffer.from(this.buffer.subarray(eol + 1, eol + 1 + length));
      this.buffer = this.buffer.subarray(eol + 1 + length + 1);
      this.queue.shift();
      pending.resolve({ type, body });
    }
  }

  private request(spec: string): Promise<{ type: string; body: Buffer } | undefined> {
    if (this.failure) return Promise.reject(this.failure);
    if (/[\n\r]/.test(spec)) return Promise.reject(new Error(`object name with a line break: ${JSON.stringify(spec)}`));
    return new Promise((resolve, reject) => {
      this.queue.push({ resolve, reject });
      this.proc.stdin.write(`${spec}\n`);
    });
  }

  /** The full id of `commit` if the repository has it, else `undefined`. */
  async commit(commit: string): Promise<string | undefined> {
    const answer = await this.request(`${commit}^{commit}`);
    if (!answer || answer.type !== "commit") return undefined;
    return answer.body.toString().length > 0 ? commit : undefined;
  }

  /** The text of `path` at `commit`; `undefined` when it does not exist there. */
  async file(commit: string, path: string): Promise<string | undefined> {
    const answer = await this.request(`${commit}:${path}`);
    if (!answer) return undefined;
    if (answer.type !== "blob") throw new MissingBlob({ commit, path });
    try {
      return this.decoder.decode(answer.body);
    } catch {
      throw new NotText({ commit, path });
    }
  }

  close(): void {
    this.proc.stdin.end();
  }
}

/** Every file path of `commit`'s tree (`git ls-tree -r`): the repository's listing the verifier takes as `repoPaths`. */
export async function listTree(repoPath: string, commit: string): Promise<string[]> {
  const { stdout } = await run("git", ["-C", repoPath, "ls-tree", "-r", "-z", "--name-only", commit], {
    maxBuffer: 1 << 28,
  });
  return stdout.split("\0").filter(Boolean);
}

/** Where each dataset repo lives: `--repo-map` entries first, then `DIR/<owner>__<name>`. */
export function repositoryPath(
  repo: string,
  reposDir: string | undefined,
  repoMap: Readonly<Record<string, string>>,
): string {
  const mapped = repoMap[repo];
  if (mapped) return mapped;
  return join(reposDir ?? ".", repo.replace("/", "__"));
}

/**
 * `git apply --check` of `patch` against the tree of `commit`, without a work tree: the files the
 * patch touches are entered, as they are at `commit`, into a throw-away index (the blobs are
 * already in the repository) and the patch is checked against that index.
 * Returns `undefined` when the patch applies, else git's message.
 */
export async function gitApplyCheck(repoPath: string, commit: string, patch: string): Promise<string | undefined> {
  const dir = await mkdtemp(join(tmpdir(), "graphplan-bench-apply-"));
  try {
    const env = { ...process.env, GIT_INDEX_FILE: join(dir, "index") };
    const patchFile = join(dir, "model.patch");
    await writeFile(patchFile, patch);
    const paths = [...new Set([...patch.matchAll(/^diff --git a\/(.+?) b\//gm)].map((m) => m[1]!))];
    const { stdout } = await run("git", ["-C", repoPath, "ls-tree", "-z", commit, "--", ...paths], {
      env,
      maxBuffer: 1 << 24,
    });
    await new Promise<void>((resolve, reject) => {
      const child = execFile("git", ["-C", repoPath, "update-index", "-z", "--index-info"], { env }, (error) =>
        error ? reject(error) : resolve(),
      );
      child.stdin?.end(stdout);
    });
    try {
      await run("git", ["-C", repoPath, "apply", "--cached", "--check", patchFile], { env });
      return undefined;
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? String(error);
      return stderr.trim() || "git apply --check failed";
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
