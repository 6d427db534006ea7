/**
 * The baseline: @ast-grep/napi (native tree-sitter) parsing Python files and finding function
 * and class definitions, with their names and lines, as our graph does.
 * The Python grammar comes from @ast-grep/lang-python, a prebuilt dynamic library that
 * `registerDynamicLanguage` loads (once per process).
 */
import { parse, parseAsync, registerDynamicLanguage, type NapiConfig } from "@ast-grep/napi";
import python from "@ast-grep/lang-python";
import type { SourceFile } from "@graphplan/graph";

let registered = false;
function register(): void {
  if (registered) return;
  registerDynamicLanguage({ python });
  registered = true;
}

const DEFINITIONS: NapiConfig = { rule: { any: [{ kind: "function_definition" }, { kind: "class_definition" }] } };

export interface AstGrepDefinition {
  readonly name: string;
  readonly kind: "class" | "function";
  readonly start_line: number;
  readonly end_line: number;
}

function definitions(root: ReturnType<typeof parse>): AstGrepDefinition[] {
  return root
    .root()
    .findAll(DEFINITIONS)
    .map((node) => {
      const range = node.range();
      return {
        name: node.field("name")?.text() ?? "",
        kind: node.kind() === "class_definition" ? "class" : "function",
        start_line: range.start.line + 1,
        end_line: range.end.line + 1,
      };
    });
}

/** Parses every file on the calling thread and returns the definitions found. */
export function astGrepDefinitions(files: readonly SourceFile[]): AstGrepDefinition[][] {
  register();
  return files.map((file) => definitions(parse("python", file.source)));
}

/**
 * The same, with `parseAsync` (parsing on libuv's thread pool), `concurrency` files at a time
 * (all at once would hold every tree in memory).
 */
export async function astGrepDefinitionsAsync(
  files: readonly SourceFile[],
  concurrency = 4,
): Promise<AstGrepDefinition[][]> {
  register();
  const out: AstGrepDefinition[][] = new Array(files.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < files.length) {
      const i = next++;
      out[i] = definitions(await parseAsync("python", files[i]!.source));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return out;
}
