/** Where a Go or Java model looks for the other files of a package: the directories of the workspace. */
import type { ScopeContext } from "./types.js";

/** The directory of a workspace path (`""` at the root). */
export const dirOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf("/")));

/** The files with `extension` directly in `dir` (not below it) that the plan has not deleted. */
export function filesIn(dir: string, extension: string, { sim }: ScopeContext): string[] {
  const prefix = dir ? `${dir}/` : "";
  const out: string[] = [];
  for (const path of sim.paths())
    if (
      path.endsWith(extension) &&
      path.startsWith(prefix) &&
      !path.slice(prefix.length).includes("/") &&
      sim.has(path)
    )
      out.push(path);
  return out;
}
