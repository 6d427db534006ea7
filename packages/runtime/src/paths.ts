/**
 * Lexical confinement of workspace paths, shared by every Workspace layer. Symlinks are a property of a
 * real file system, so they are checked by the layer that has one.
 */
import { posix, win32 } from "node:path";

/**
 * The normalised relative form of `path` (forward slashes, no `.` segments), or why it is refused:
 * empty, absolute (POSIX or Windows), containing a NUL byte, or containing a `..` segment.
 * `"."` (the root itself) is allowed; callers that need a file refuse it by failing to read a directory.
 */
export function confine(path: string): { ok: true; path: string } | { ok: false; reason: string } {
  if (path.length === 0) return { ok: false, reason: "the path is empty" };
  if (path.includes("\0")) return { ok: false, reason: "the path contains a NUL byte" };
  if (posix.isAbsolute(path) || win32.isAbsolute(path)) return { ok: false, reason: "the path is absolute" };
  const segments = path.split(/[\\/]/);
  if (segments.includes("..")) return { ok: false, reason: 'the path contains a ".." segment' };
  const kept = segments.filter((s) => s !== "" && s !== ".");
  return { ok: true, path: kept.length === 0 ? "." : kept.join("/") };
}

/** True when `path` (normalised) is `dir` or inside it. */
export function isWithin(path: string, dir: string): boolean {
  return dir === "." || path === dir || path.startsWith(`${dir}/`);
}
