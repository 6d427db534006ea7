/** javac as an oracle for tests: does this Java source parse? Many sources per JVM run (javac's own parser, through its compiler API). */
import { execFileSync } from "node:child_process";
import { join } from "node:path";

const CHECKER = join(import.meta.dirname, "java", "ParseCheck.java");

/** For each source, `null` when javac's parser accepts it, else its first error (`line N: message`). Needs a JDK (`bash .ci/jdk-setup.sh`). */
export function javacParse(sources: readonly string[]): (string | null)[] {
  const java = process.env["JAVA_HOME"] ? join(process.env["JAVA_HOME"], "bin", "java") : "java";
  let output: string;
  try {
    output = execFileSync(java, [CHECKER], {
      input: JSON.stringify(sources),
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      throw new Error("no JDK: run `bash .ci/jdk-setup.sh` (Debian's default-jdk-headless), or set JAVA_HOME");
    throw error;
  }
  return JSON.parse(output) as (string | null)[];
}
