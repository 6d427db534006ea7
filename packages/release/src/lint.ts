/**
 * The two linters of a published package, run on the tarball itself (what users get, after pnpm has
 * applied `publishConfig` and replaced `workspace:*`): publint (package.json against the packed files:
 * exports, files, types, license, repository...) and arethetypeswrong's core (what TypeScript resolves
 * for each entry point). Libraries chosen over hand-written checks: they are the ecosystem's reference.
 */
import { readFileSync } from "node:fs";
import { checkPackage, createPackageFromTarballData } from "@arethetypeswrong/core";
import { problemAffectsResolutionKind, problemKindInfo } from "@arethetypeswrong/core/problems";
import type { ResolutionKind } from "@arethetypeswrong/core/types";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

/**
 * GraphPlan's packages are ESM only (`"type": "module"`, no `require` condition): the resolutions of
 * `require()` and of TypeScript's pre-exports `node10` mode are not theirs, as attw's `esm-only` profile says.
 */
const ESM_ONLY_IGNORES: readonly ResolutionKind[] = ["node10", "node16-cjs"];
const CHECKED: readonly ResolutionKind[] = ["node16-esm", "bundler"];

/** Every problem publint (warnings and errors; suggestions too) and arethetypeswrong find in a tarball, one line each. */
export async function lintTarball(tarball: string): Promise<string[]> {
  const data = readFileSync(tarball);
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const problems: string[] = [];

  const { messages, pkg } = await publint({
    pack: { tarball: bytes.slice().buffer },
    level: "suggestion",
    strict: true,
  });
  for (const message of messages)
    problems.push(`publint ${message.type}: ${formatMessage(message, pkg, { color: false }) ?? message.code}`);

  const result = await checkPackage(createPackageFromTarballData(bytes));
  if (result.types === false) problems.push("arethetypeswrong: the package has no types");
  else {
    for (const problem of result.problems) {
      const affected = CHECKED.filter((kind) => problemAffectsResolutionKind(problem, kind, result));
      const ignoredOnly =
        affected.length === 0 && ESM_ONLY_IGNORES.some((kind) => problemAffectsResolutionKind(problem, kind, result));
      if (ignoredOnly) continue;
      const where =
        "entrypoint" in problem
          ? ` (${String(problem.entrypoint)}, ${affected.join(", ")})`
          : "fileName" in problem
            ? ` (${String(problem.fileName)})`
            : "";
      problems.push(
        `arethetypeswrong: ${problemKindInfo[problem.kind].title}${where}: ${problemKindInfo[problem.kind].shortDescription}`,
      );
    }
  }
  return problems;
}
