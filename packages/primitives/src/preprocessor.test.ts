/**
 * C and C++ edits judged as a compiler sees the file (`preprocessorExplains`): code that a conditional
 * splits, or that is written through the file's macros, is accepted; a real syntax error in any branch
 * is still refused.
 */
import { loadGrammars } from "@graphplan/graph";
import { beforeAll, describe, expect, it } from "vitest";
import { planOf } from "./fixtures/plan.js";
import { PostconditionFailed, preprocessorExplains, runPlan, StepFailed } from "./index.js";

beforeAll(() => loadGrammars(["c", "cpp", "python"]));

const GZ = [
  "#include <fcntl.h>",
  "#define local static",
  "",
  "local int opened(void) { return 1; }",
  "",
  "local void gz_open(const char *path, int fd, int flags) {",
  "    state_fd = fd > -1 ? fd : open(path, flags, 0666);",
  "}",
  "",
].join("\n");

/** The change zlib made in 985a62d: an `else if` behind `#ifdef WIDECHAR` between an `if` and its `else`. */
const SPLIT = [
  "    if (fd == -1)",
  "        state_fd = open(path, flags, 0666);",
  "#ifdef WIDECHAR",
  "    else if (fd == -2)",
  "        _wsopen_s(&state_fd, path, flags);",
  "#endif",
  "    else",
  "        state_fd = fd;",
].join("\n");

const OLD_LINE = "    state_fd = fd > -1 ? fd : open(path, flags, 0666);";

function apply(steps: unknown, file = "gzlib.c", source = GZ) {
  const given = new Map([[file, source]]);
  const result = runPlan(planOf(steps), given);
  if (result.ok) return { text: result.files.get(file)!, error: undefined };
  expect(result.files).toBe(given); // nothing written
  return { text: undefined, error: result.error instanceof StepFailed ? result.error.cause : result.error };
}

const replace = (find: string, replace: string, file = "gzlib.c") => [
  { op: "replace_text", params: { file, find, replace } },
];

describe("C edits across preprocessor conditionals", () => {
  it("accepts an if/else chain split by #ifdef, which tree-sitter-c reads as errors as written", () => {
    const { text, error } = apply(replace(OLD_LINE, SPLIT));
    expect(error).toBeUndefined();
    expect(text).toBe(GZ.replace(OLD_LINE, SPLIT));
  });

  it("still refuses a real syntax error inside the #ifdef branch", () => {
    const { error } = apply(
      replace(OLD_LINE, SPLIT.replace("_wsopen_s(&state_fd, path, flags);", "_wsopen_s(&state_fd, path flags;")),
    );
    expect(error).toBeInstanceOf(PostconditionFailed);
  });

  it("still refuses a real syntax error in the code after the conditional", () => {
    const { error } = apply(replace(OLD_LINE, SPLIT.replace("state_fd = fd;", "state_fd = = fd;")));
    expect(error).toBeInstanceOf(PostconditionFailed);
  });

  it("still refuses a conditional left open", () => {
    const { error } = apply(replace(OLD_LINE, SPLIT.replace("#endif\n", "")));
    expect(error).toBeInstanceOf(PostconditionFailed);
  });

  it("accepts a new function in the file's macro dialect (`local char *f(void)` beside `local int`) and through a linkage macro", () => {
    const added = "local char *closed(void) { return 0; }\n\nextern int ZEXPORT gzflags(int fd);\n\n";
    const { text, error } = apply([
      { op: "insert_text", params: { file: "gzlib.c", anchor: "local void gz_open", position: "before", text: added } },
    ]);
    expect(error).toBeUndefined();
    expect(text).toBe(GZ.replace("local void gz_open", `${added}local void gz_open`));
  });

  it("creates a header whose code only a branch reading parses", () => {
    const header = [
      "#ifdef __cplusplus",
      'extern "C" {',
      "#endif",
      "int skip(int n);",
      "#ifdef __cplusplus",
      "}",
      "#endif",
      "",
    ].join("\n");
    const result = runPlan(planOf([{ op: "create_file", params: { path: "skip.h", content: header } }]), new Map());
    expect(result.ok).toBe(true);
  });

  it("is a C and C++ rule only", () => {
    const edits = [{ start: 0, end: 0, text: "def f(:\n" }];
    expect(preprocessorExplains("python", "", "def f(:\n", edits)).toBe(false);
    expect(preprocessorExplains("c", "", "int f(;\n", [{ start: 0, end: 0, text: "int f(;\n" }])).toBe(false);
    expect(
      preprocessorExplains("c", "", "#if A\nint f(void);\n#endif\n", [
        { start: 0, end: 0, text: "#if A\nint f(void);\n#endif\n" },
      ]),
    ).toBe(true);
  });
});

describe("a header a step creates", () => {
  it("is read as C++ when it holds C++ (a class template in a .h file)", () => {
    const header = [
      "#ifndef NO_DESTRUCTOR_H_",
      "#define NO_DESTRUCTOR_H_",
      "",
      "namespace leveldb {",
      "template <typename InstanceType>",
      "class NoDestructor {",
      " public:",
      "  InstanceType* get() { return &instance_; }",
      "",
      " private:",
      "  InstanceType instance_;",
      "};",
      "}  // namespace leveldb",
      "",
      "#endif",
      "",
    ].join("\n");
    const result = runPlan(
      planOf([{ op: "create_file", params: { path: "util/no_destructor.h", content: header } }]),
      new Map(),
    );
    expect(result.ok ? result.files.get("util/no_destructor.h") : result.error).toBe(header);
  });
});

describe("a renamed file", () => {
  it("keeps the syntax errors it had: renaming moves the file, it adds no error", () => {
    // tree-sitter-c does not read `__has_include` in a condition: the file reads with an error as it is.
    const header = '#if __has_include("port/port_config.h")\n#include "port/port_config.h"\n#endif\nint lock(void);\n';
    const given = new Map([["port/port_posix.h", header]]);
    const plan = planOf([
      { op: "rename_file", params: { from: "port/port_posix.h", to: "port/port_stdcxx.h" } },
      {
        op: "replace_text",
        params: { file: "port/port_stdcxx.h", find: "int lock(void);", replace: "int lock(void);\nint unlock(void);" },
      },
    ]);
    const result = runPlan(plan, given);
    expect(result.ok ? result.files.get("port/port_stdcxx.h") : result.error).toBe(
      header.replace("int lock(void);", "int lock(void);\nint unlock(void);"),
    );
  });
});
