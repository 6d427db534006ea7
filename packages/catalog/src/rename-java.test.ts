/**
 * rename_identifier on Java: a local name of a method, constructor or lambda, and a private field or
 * method. Exact results, the refusals Java's rules call for, and an oracle: real programs run by the
 * JDK (`java Main.java`) before and after renaming every local, and every private member, in turn
 * print the same, and renaming back gives the original bytes.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadGrammars, withTree, type Node } from "@graphplan/graph";
import { analyzeJava } from "@graphplan/scope";
import { javacParse } from "@graphplan/testkit";
import { executeStep } from "./execute.js";

beforeAll(() => loadGrammars(["java"]));

const rename = (
  source: string,
  name: string,
  newName: string,
  scope?: string | { kind: string; name: string },
): string =>
  executeStep(
    {
      op: "rename_identifier",
      params: {
        file: "Main.java",
        name,
        new_name: newName,
        ...(scope
          ? {
              scope:
                typeof scope === "string"
                  ? { kind: "method", name: scope, file: "Main.java" }
                  : { ...scope, file: "Main.java" },
            }
          : {}),
      },
    },
    { "Main.java": source },
  ).files.get("Main.java")!;

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
    expect(rename(MAIN, "xs", "values", "sum")).toContain(
      "int sum(List<Integer> values) {\n        int acc = 0;\n        for (int x : values) {",
    );
    expect(rename(MAIN, "x", "v", "sum")).toContain("for (int v : xs) {\n            acc += v;\n");
    expect(rename(MAIN, "e", "err", "main")).toContain(
      "catch (IllegalStateException err) {\n            System.out.println(err.getMessage());",
    );
  });

  test.each([
    ["a local of the same method", "acc", "xs", "sum", /xs is already a local of method sum/],
    [
      "a local declared inside its scope",
      "acc",
      "i",
      "sum",
      /i is declared as a local in a block, inside the scope of acc/,
    ],
    [
      "a field used unqualified in its scope",
      "acc",
      "total",
      "sum",
      /the total used here \(a field or another class's member\) would be shadowed by the renamed acc/,
    ],
    [
      "a type",
      "Main",
      "App",
      undefined,
      /Main is a type \(rename_identifier renames Java locals and private fields and methods; types and non-private members are refused, since other files may use them\)/,
    ],
  ])("refuses to rename onto %s", (_name, name, newName, scope, message) => {
    expect(() => rename(MAIN, name, newName, scope)).toThrow(message);
  });
});

/** Runs a Main.java with the JDK in a temporary directory (removed after the describe block) and answers its output. */
function jdkRunner(): (source: string) => string {
  const dir = mkdtempSync(join(tmpdir(), "rename-java-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return (source) => {
    writeFileSync(join(dir, "Main.java"), source);
    const java = process.env["JAVA_HOME"] ? join(process.env["JAVA_HOME"], "bin", "java") : "java";
    return execFileSync(java, ["Main.java"], { cwd: dir, encoding: "utf8" });
  };
}

describe("rename_identifier on Java, judged by the JDK", () => {
  const output = jdkRunner();

  test("every local renamed gives the same output, and renaming back the same bytes", () => {
    const before = output(MAIN);
    expect(before).toBe("109\n1\ndone\n");
    const locals = withTree(MAIN, "java", (tree) =>
      analyzeJava(tree).scopes.flatMap((s) =>
        [...s.bindings.values()].map((b) => ({ name: b.name, method: enclosingMethod(b.node) })),
      ),
    );
    expect(locals.map((l) => l.name).sort()).toEqual([
      "acc",
      "args",
      "e",
      "i",
      "m",
      "n",
      "o",
      "result",
      "show",
      "x",
      "xs",
    ]);
    for (const { name, method } of locals) {
      const renamed = rename(MAIN, name, `${name}Renamed`, method);
      expect(output(renamed), `${name} in ${method}`).toBe(before);
      expect(rename(renamed, `${name}Renamed`, name, method)).toBe(MAIN);
    }
  }, 180_000);
});

function enclosingMethod(node: Node): string | undefined {
  for (let n: Node | null = node; n; n = n.parent)
    if (n.type === "method_declaration" || n.type === "constructor_declaration")
      return n.childForFieldName("name")?.text;
  return undefined;
}

const POINT = `import java.util.function.IntSupplier;

public class Point {
    private int x;
    private final int y;

    Point(int x, int y) {
        this.x = x;
        this.y = y;
    }

    private int norm() {
        return x * x + y * y;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Point)) return false;
        Point that = (Point) o;
        return that.x == x && this.y == that.y;
    }

    int sum() {
        IntSupplier s = this::norm;
        Runnable r = () -> x++;
        r.run();
        return norm() + this.norm() + s.getAsInt();
    }

    class Shifted {
        int shifted() { return x + 1 + Point.this.y; }
    }
}
`;
const POINT_CLASS = { kind: "class", name: "Point" };

describe("rename_identifier on a Java private field or method", () => {
  test("a private field: its declaration, unqualified uses, this.x, a local of the class's type (that.x), an inner class and a lambda", () => {
    const out = rename(POINT, "x", "left", POINT_CLASS);
    expect(out).toBe(
      POINT.replace("private int x;", "private int left;")
        .replace("this.x = x;", "this.left = x;")
        .replace("return x * x + y * y;", "return left * left + y * y;")
        .replace("return that.x == x &&", "return that.left == left &&")
        .replace("() -> x++;", "() -> left++;")
        .replace("return x + 1 + Point.this.y;", "return left + 1 + Point.this.y;"),
    );
    expect(javacParse([out])).toEqual([null]);
    expect(rename(out, "left", "x", POINT_CLASS)).toBe(POINT);
  });

  test("a private field named by no local needs no scope; C.this.y and that.y are renamed", () => {
    const out = rename(POINT, "y", "top", POINT_CLASS);
    expect(out).toBe(
      POINT.replace("private final int y;", "private final int top;")
        .replace("this.y = y;", "this.top = y;")
        .replace("return x * x + y * y;", "return x * x + top * top;")
        .replace("this.y == that.y;", "this.top == that.top;")
        .replace("Point.this.y;", "Point.this.top;"),
    );
  });

  test("x with no scope is the constructor's parameter (a local, as before); with the class as scope, the private field", () => {
    expect(rename(POINT, "x", "x0")).toContain(
      "private int x;\n    private final int y;\n\n    Point(int x0, int y) {\n        this.x = x0;",
    );
    expect(rename(POINT, "x", "x0", POINT_CLASS)).toContain(
      "private int x0;\n    private final int y;\n\n    Point(int x, int y) {\n        this.x0 = x;",
    );
  });

  test("a private method: its declaration, unqualified calls, this.norm() and the method reference this::norm", () => {
    const expected = POINT.replace("private int norm() {", "private int length() {")
      .replace("this::norm;", "this::length;")
      .replace("return norm() + this.norm() +", "return length() + this.length() +");
    expect(rename(POINT, "norm", "length")).toBe(expected);
    expect(rename(POINT, "norm", "length", "norm")).toBe(expected);
    expect(rename(expected, "length", "norm")).toBe(POINT);
  });

  test("a private static method called as C.m() and referenced as C::m", () => {
    const source =
      "class C {\n    private static int one() { return 1; }\n    int f() {\n        java.util.function.IntSupplier s = C::one;\n        return C.one() + s.getAsInt();\n    }\n}\n";
    expect(rename(source, "one", "unit")).toBe(source.replaceAll("one", "unit"));
    const generic =
      "class C {\n    private static <T> T id(T t) { return t; }\n    java.util.function.UnaryOperator<String> f = C::<String>id;\n}\n";
    expect(rename(generic, "id", "same")).toBe(
      generic.replace("T id(", "T same(").replace("::<String>id", "::<String>same"),
    );
  });

  test("the restricted identifiers are names: a private method record is renamed, a field may be renamed to record; yield may not name a method", () => {
    const source =
      'class A {\n    private int n;\n    private String record(String k) { return k + n; }\n    String f() { return record("a") + this.record("b"); }\n}\n';
    expect(rename(source, "record", "note")).toBe(source.replaceAll("record(", "note("));
    expect(rename(source, "n", "var")).toBe(source.replace("int n;", "int var;").replace("k + n;", "k + var;"));
    expect(() => rename(source, "record", "yield")).toThrow(
      /a method named yield cannot be called unqualified \(JLS §3\.9\)/,
    );
  });

  test.each([
    [
      "a public field",
      "class A {\n    public int count;\n    int f() { return count; }\n}\n",
      "count",
      "n",
      /count is not private: other classes and files may use it .*; rename it by hand with its users \(line 2\)/,
    ],
    [
      "an overloaded private method",
      "class A {\n    private int f(int a) { return a; }\n    private int f(String s) { return 0; }\n    int g() { return f(1); }\n}\n",
      "f",
      "h",
      /f is overloaded \(2 methods, lines 2, 3\): which one a call resolves to could change; rename them by hand \(line 3\)/,
    ],
    [
      "a field of an object of unknown type",
      "class A {\n    private int n;\n    A next() { return this; }\n    int f() { return next().n + n; }\n}\n",
      "n",
      "m",
      /`next\(\)\.n` may not name this field: the type of next\(\) is not known without a type checker; rename that use by hand \(line 4\)/,
    ],
    [
      "a field of a local of another type",
      "class A {\n    private int n;\n    int f(B b) { return b.n + n; }\n}\nclass B { int n; }\n",
      "n",
      "m",
      /2 classes of the file declare a member n/,
    ],
    [
      "a method of a local of another type",
      "class A {\n    private int n() { return 1; }\n    int f(Object o) { return o.n() + n(); }\n}\n",
      "n",
      "m",
      /`o\.n\(…\)` may not name this method: o is declared as Object, not A; rename that use by hand \(line 3\)/,
    ],
    [
      "a new name already a member",
      "class A {\n    private int n;\n    private int m() { return n; }\n}\n",
      "n",
      "m",
      /m is already declared as a method in the file \(line 3\)/,
    ],
    [
      "a new name used unqualified in the class",
      "import static java.lang.Math.PI;\n\nclass A {\n    private double r = 1;\n    double area() { return PI * r * r; }\n}\n",
      "r",
      "PI",
      /PI is already used here, naming another \(maybe inherited\) member, which the renamed r could capture \(line 5\)/,
    ],
    [
      "a new name that is a local where a use is",
      "class A {\n    private int n;\n    int f() {\n        int m = 2;\n        return n + m;\n    }\n}\n",
      "n",
      "m",
      /the local m declared at line 4 is in scope here and would capture this use of n; rename that local first or choose another name \(line 5\)/,
    ],
    [
      "a new name that is a local where a call is",
      "class A {\n    private int one() { return 1; }\n    int f(int unit) { return one() + unit; }\n}\n",
      "one",
      "unit",
      /the local unit declared at line 3 is in scope here and would capture this use of one/,
    ],
    [
      "a class with a supertype of another file",
      "class A extends java.util.ArrayList<String> {\n    private int n;\n    int f() { return n; }\n}\n",
      "n",
      "m",
      /the declaring class extends or implements java\.util\.ArrayList, declared in another file, which may have a member m/,
    ],
    [
      "an unqualified use in an anonymous class",
      "class A {\n    private int n;\n    Runnable f() { return new Runnable() { public void run() { n++; } }; }\n}\n",
      "n",
      "m",
      /this use of n is inside a class that extends or implements Runnable, declared in another file, which may have a member n or m; write A\.this\.n or rename it by hand \(line 3\)/,
    ],
    [
      "this.x in an inner class",
      "class A {\n    private int n;\n    class B { int f() { return this.n; } }\n}\n",
      "n",
      "m",
      /`this\.n` may not name this field: `this` there is an instance of another class/,
    ],
    [
      "a member of an enum constant's body qualified by the constant",
      "enum E {\n    A {\n        private int n = 1;\n        int f() { return A.n + n; }\n    };\n}\n",
      "n",
      "m",
      /`A\.n` may not name this field: the type of A is not known/,
    ],
    [
      "a method named like Object's",
      "class A {\n    private int n() { return 1; }\n}\n",
      "n",
      "hashCode",
      /hashCode is the name of a method every class inherits/,
    ],
  ])("refuses %s", (_name, source, name, newName, message) => {
    expect(() => rename(source, name, newName)).toThrow(message);
  });
});

const MEMBERS = `import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;

public class Main {
    private int count;
    private final List<String> log = new ArrayList<>();
    private static int created = 0;

    Main(int count) {
        this.count = count;
        created++;
    }

    private int twice(int v) {
        return v * 2;
    }

    private static String label(int v) {
        return "#" + v;
    }

    private void note(String s) {
        log.add(s);
    }

    int run() {
        IntUnaryOperator op = this::twice;
        int total = 0;
        for (int i = 0; i < count; i++) {
            total += op.applyAsInt(i) + twice(1);
            note(Main.label(i));
        }
        Runnable bump = () -> count += 10;
        bump.run();
        Main other = new Main(2);
        other.count = count - 1;
        this.note("other " + other.count);
        return total + other.count + this.count;
    }

    boolean same(Object o) {
        if (!(o instanceof Main)) return false;
        Main that = (Main) o;
        return that.count == count && that.log.size() >= 0;
    }

    class Reporter {
        String report() {
            StringBuilder sb = new StringBuilder();
            for (String s : log) sb.append(s).append(',');
            return sb + " count=" + count + " created=" + Main.created + " " + label(Main.this.count) + " " + Main.this.twice(count);
        }
    }

    public static void main(String[] args) {
        Main m = new Main(3);
        System.out.println(m.run());
        System.out.println(m.new Reporter().report());
        System.out.println(m.same(new Main(13)));
        IntFunction<String> f = Main::label;
        System.out.println(f.apply(created));
    }
}
`;

describe("rename_identifier on Java private members, judged by the JDK", () => {
  const output = jdkRunner();

  test("every private field and method renamed gives the same output, and renaming back the same bytes", () => {
    const before = output(MEMBERS);
    expect(before).toBe("37\n#0,#1,#2,other 12, count=13 created=2 #13 26\ntrue\n#3\n");
    const members = withTree(MEMBERS, "java", (tree) =>
      tree.rootNode
        .descendantsOfType(["field_declaration", "method_declaration"])
        .filter((d) => d?.namedChildren.some((c) => c?.type === "modifiers" && c.text.split(/\s+/).includes("private")))
        .map(
          (d) =>
            (d!.type === "method_declaration"
              ? d!.childForFieldName("name")!
              : d!.childForFieldName("declarator")!.childForFieldName("name")!
            ).text,
        ),
    );
    expect(members.sort()).toEqual(["count", "created", "label", "log", "note", "twice"]);
    for (const name of members) {
      // The class as scope: `count` is also the constructor's parameter.
      const renamed = rename(MEMBERS, name, `${name}Renamed`, { kind: "class", name: "Main" });
      expect(renamed, name).not.toBe(MEMBERS);
      expect(output(renamed), name).toBe(before);
      expect(rename(renamed, `${name}Renamed`, name, { kind: "class", name: "Main" })).toBe(MEMBERS);
    }
  }, 180_000);
});
