/**
 * rename_identifier on Java: a local name of a method, constructor or lambda. Exact results, the
 * refusals Java's rules call for, and an oracle: real programs run by the JDK (`java Main.java`)
 * before and after renaming every local in turn print the same, and renaming back gives the
 * original bytes.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadGrammars, withTree, type Node } from "@graphplan/graph";
import { analyzeJava } from "@graphplan/scope";
import { javacParse } from "@graphplan/testkit";
import { executeStep } from "./index.js";

beforeAll(() => loadGrammars(["java"]));

const rename = (source: string, name: string, newName: string, scope?: string): string =>
  executeStep({ op: "rename_identifier", params: { file: "Main.java", name, new_name: newName, ...(scope ? { scope: { kind: "method", name: scope, file: "Main.java" } } : {}) } }, { "Main.java": source }).files.get("Main.java")!;

const MAIN = `import java.util.List;

public class Main {
    private int total = 100;

    int sum(List<Integer> xs) {
        int acc = 0;
        for (int x : xs) {
            acc += x;
        }
        for (int i = 0; i < xs.size(); i++) {
            acc += i;
        }
        return acc + total;
    }

    public static void main(String[] args) {
        Main m = new Main();
        int result = m.sum(List.of(1, 2, 3));
        Runnable show = () -> System.out.println(result);
        show.run();
        try {
            Object o = args.length > 5 ? "many" : Integer.valueOf(args.length);
            if (o instanceof Integer n) {
                System.out.println(n + 1);
            }
            throw new IllegalStateException("done");
        } catch (IllegalStateException e) {
            System.out.println(e.getMessage());
        }
    }
}
`;

describe("rename_identifier on Java", () => {
  test("a local: its declaration and its uses, not the field of another name", () => {
    const out = rename(MAIN, "acc", "sumSoFar", "sum");
    expect(out).toBe(MAIN.replaceAll("acc", "sumSoFar"));
    expect(javacParse([out])).toEqual([null]);
  });

  test("a parameter, a for-each variable and a catch parameter", () => {
    expect(rename(MAIN, "xs", "values", "sum")).toContain("int sum(List<Integer> values) {\n        int acc = 0;\n        for (int x : values) {");
    expect(rename(MAIN, "x", "v", "sum")).toContain("for (int v : xs) {\n            acc += v;\n");
    expect(rename(MAIN, "e", "err", "main")).toContain("catch (IllegalStateException err) {\n            System.out.println(err.getMessage());");
  });

  test.each([
    ["a local of the same method", "acc", "xs", "sum", /xs is already a local of method sum/],
    ["a local declared inside its scope", "acc", "i", "sum", /i is declared as a local in a block, inside the scope of acc/],
    ["a field used unqualified in its scope", "acc", "total", "sum", /the total used here \(a field or another class's member\) would be shadowed by the renamed acc/],
    ["a field", "total", "limit", undefined, /total is not a local in the file/],
  ])("refuses to rename onto %s", (_name, name, newName, scope, message) => {
    expect(() => rename(MAIN, name, newName, scope)).toThrow(message);
  });
});

describe("rename_identifier on Java, judged by the JDK", () => {
  const dir = mkdtempSync(join(tmpdir(), "rename-java-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const output = (source: string): string => {
    writeFileSync(join(dir, "Main.java"), source);
    const java = process.env["JAVA_HOME"] ? join(process.env["JAVA_HOME"], "bin", "java") : "java";
    return execFileSync(java, ["Main.java"], { cwd: dir, encoding: "utf8" });
  };

  test("every local renamed gives the same output, and renaming back the same bytes", () => {
    const before = output(MAIN);
    expect(before).toBe("109\n1\ndone\n");
    const locals = withTree(MAIN, "java", (tree) =>
      analyzeJava(tree).scopes.flatMap((s) => [...s.bindings.values()].map((b) => ({ name: b.name, method: enclosingMethod(b.node) }))),
    );
    expect(locals.map((l) => l.name).sort()).toEqual(["acc", "args", "e", "i", "m", "n", "o", "result", "show", "x", "xs"]);
    for (const { name, method } of locals) {
      const renamed = rename(MAIN, name, `${name}Renamed`, method);
      expect(output(renamed), `${name} in ${method}`).toBe(before);
      expect(rename(renamed, `${name}Renamed`, name, method)).toBe(MAIN);
    }
  }, 180_000);
});

function enclosingMethod(node: Node): string | undefined {
  for (let n: Node | null = node; n; n = n.parent) if (n.type === "method_declaration" || n.type === "constructor_declaration") return n.childForFieldName("name")?.text;
  return undefined;
}
