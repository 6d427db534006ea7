/** Tier 1 AST surgery operators, described once. */
import { z } from "zod";
import { LANGUAGE_IDS, type LanguageId } from "@graphplan/graph";
import { defineOperator } from "../operator.js";
import { codeParam, p } from "../params.js";
import { TransformRejected, type FileEdits } from "../workspace.js";
import { copyNode, deletionEdits, moveNode, reorderChildren, swapNodes, type Position } from "./nodes.js";
import { renameGo, renameJava, renameJavaScript, renamePython } from "./rename.js";
import { renameAcrossFiles } from "./rename-across.js";
import { renameGoPackageName } from "./rename-go-package.js";

/** Every language the graph reads: the tree operators need nothing but nodes. */
const ANY: readonly LanguageId[] = LANGUAGE_IDS;

function group(pairs: [string, { start: number; end: number; text: string }][]): FileEdits {
  const out: FileEdits = new Map();
  for (const [file, edit] of pairs) out.set(file, [...(out.get(file) ?? []), edit]);
  return out;
}

export const renameIdentifier = defineOperator({
  name: "rename_identifier",
  tier: 1,
  useCase: "AST Surgery",
  description:
    "Rename a binding and exactly the references that resolve to it (scope-aware; Python, JavaScript/TypeScript, names local to a Go function, Java locals and Java private fields and methods): never strings, comments, other objects' attributes or a shadowing binding in an inner scope. Renaming a Python class member also renames self.<name> / cls.<name> in its methods. A Java private field or method is renamed in its top-level class (this.x, C.x, C.this.x, this::m, C::m, and v.x for a local v declared with the class's type); other qualified uses, overloads and non-private members are refused; pass the class as scope when a local has the same name. Fails if the new name is taken or would capture/shadow another name. One file.",
  params: z.strictObject({
    file: p.string("The file (Python, JavaScript, TypeScript, Go or Java)"),
    name: p.identifier("The current name"),
    new_name: p.identifier("The new name"),
    scope: p
      .locator(
        "The function or class whose local/member is renamed; omit for a module-level name (or a name bound in only one scope)",
      )
      .optional(),
  }),
  languages: ["python", "javascript", "typescript", "tsx", "go", "java"],
  input: ["identifier"],
  output: "identifier",
  example: {
    file: "app/cart.py",
    name: "tmp",
    new_name: "subtotal",
    scope: { kind: "function", name: "total", file: "app/cart.py" },
  },
  run(ws, params) {
    const file = String(params["file"]);
    const language = ws.language(file, "rename_identifier", [
      "python",
      "javascript",
      "typescript",
      "tsx",
      "go",
      "java",
    ]);
    const source = ws.source(file);
    const tree = ws.tree(file);
    const scopeNode =
      params["scope"] === undefined
        ? undefined
        : ws.one({
            ...(params["scope"] as Record<string, unknown>),
            file: (params["scope"] as { file?: string }).file ?? file,
          }).node;
    const rename =
      language === "go"
        ? renameGo
        : language === "java"
          ? renameJava
          : language === "javascript" || language === "typescript" || language === "tsx"
            ? (s: string, t: typeof tree, r: Parameters<typeof renamePython>[2]) => renameJavaScript(s, t, r, language)
            : renamePython;
    const edits = rename(source, tree, {
      file,
      name: codeParam(params["name"], "identifier", language),
      newName: codeParam(params["new_name"], "identifier", language),
      scopeNode,
    });
    return new Map([[file, edits]]);
  },
});

export const renameAcrossFilesOp = defineOperator({
  name: "rename_across_files",
  tier: 1,
  useCase: "AST Surgery",
  description:
    "Rename a module-level name (function, class, variable; Python) in its module and in the files that import it: `from m import name` (the import and that file's uses), `from m import name as a` (the import), `m.name` after `import m`. Go: a package-level name (func, type, var, const) in the files of its package and in other packages' `p.Name`. Scope-aware in each file; fails if the new name is taken in the module or in an importer, or if a listed file does not import it. List every importer (Go: the package's other files too; the verifier names the ones left out).",
  params: z.strictObject({
    file: p.string("The module that defines the name (Python), or the Go file that declares it"),
    name: p.identifier("The current name"),
    new_name: p.identifier("The new name"),
    importers: p.files(
      "The files that import the name or its module, relative to the root (Go: the package's other files that use it, and other packages' files that use p.Name)",
    ),
  }),
  languages: ["python", "go"],
  input: ["identifier"],
  output: "identifier",
  example: {
    file: "shop/pricing.py",
    name: "total",
    new_name: "grand_total",
    importers: ["shop/cart.py", "tests/test_pricing.py"],
  },
  run(ws, params) {
    const file = String(params["file"]);
    const language = ws.language(file, "rename_across_files", ["python", "go"]);
    const sameLanguage = (path: string) => {
      ws.language(path, "rename_across_files", [language]);
      return { path, source: ws.source(path), tree: ws.tree(path) };
    };
    const importers = (params["importers"] as string[]).map(sameLanguage);
    if (language === "go") {
      // The package's files the run has (a verification has them all) must all be listed: each is checked.
      const listed = new Set([file, ...importers.map((f) => f.path)]);
      const unlisted = ws
        .paths()
        .filter(
          (path) =>
            path.endsWith(".go") &&
            !listed.has(path) &&
            path.slice(0, path.lastIndexOf("/") + 1) === file.slice(0, file.lastIndexOf("/") + 1),
        );
      return renameGoPackageName(
        sameLanguage(file),
        importers,
        {
          file,
          name: codeParam(params["name"], "identifier", language),
          newName: codeParam(params["new_name"], "identifier", language),
        },
        unlisted.map(sameLanguage),
      );
    }
    return renameAcrossFiles(sameLanguage(file), importers, {
      file,
      name: codeParam(params["name"], "identifier", language),
      newName: codeParam(params["new_name"], "identifier", language),
    });
  },
});

const position = p.choice(["before", "after"], "Put it before or after the target (default after)").optional();

export const copyNodeOp = defineOperator({
  name: "copy_node",
  tier: 1,
  useCase: "AST Surgery",
  description:
    "Copy a node (a def with its decorators, a statement, a class) to before/after another node, re-indented to its new place. Same language; files may differ.",
  params: z.strictObject({
    source: p.locator("The node to copy"),
    target: p.locator("Where it goes: the node it is put before or after"),
    position,
  }),
  languages: ANY,
  input: ["statement", "function_definition", "class_definition"],
  output: "same as source",
  example: {
    source: { kind: "function", name: "helper", file: "app/a.py" },
    target: { kind: "function", name: "main", file: "app/b.py" },
    position: "before",
  },
  run(ws, params) {
    const pos = (params["position"] ?? "after") as Position;
    return group(copyNode(ws.one(params["source"]), ws.one(params["target"]), pos));
  },
});

export const moveNodeOp = defineOperator({
  name: "move_node",
  tier: 1,
  useCase: "AST Surgery",
  description:
    "Move a node to before/after another node (same or another file), re-indented; an emptied Python block gets `pass`.",
  params: z.strictObject({
    source: p.locator("The node to move"),
    target: p.locator("Where it goes: the node it is put before or after"),
    position,
  }),
  languages: ANY,
  input: ["statement", "function_definition", "class_definition"],
  output: "same as source",
  example: {
    source: {
      kind: "method",
      name: "validate",
      file: "app/models.py",
      parent: { kind: "class", name: "Order", file: "app/models.py" },
    },
    target: {
      kind: "method",
      name: "__init__",
      file: "app/models.py",
      parent: { kind: "class", name: "Order", file: "app/models.py" },
    },
  },
  run(ws, params) {
    const pos = (params["position"] ?? "after") as Position;
    return group(moveNode(ws.one(params["source"]), ws.one(params["target"]), pos));
  },
});

export const swapNodesOp = defineOperator({
  name: "swap_nodes",
  tier: 1,
  useCase: "AST Surgery",
  description:
    "Exchange two non-overlapping nodes (statements, methods, arguments...), each re-indented to the other's place.",
  params: z.strictObject({
    first: p.locator("One node"),
    second: p.locator("The other node"),
  }),
  languages: ANY,
  input: ["any"],
  output: "same as inputs",
  example: {
    first: { kind: "method", name: "load", file: "app/store.py" },
    second: { kind: "method", name: "save", file: "app/store.py" },
  },
  run(ws, params) {
    return group(swapNodes(ws.one(params["first"]), ws.one(params["second"])));
  },
});

export const deleteNodeOp = defineOperator({
  name: "delete_node",
  tier: 1,
  useCase: "AST Surgery",
  description:
    "Delete a node with its decorators and its line(s); an only statement of a Python block becomes `pass`. (Same as the delete_node primitive.)",
  params: z.strictObject({ locator: p.locator("The node to delete") }),
  languages: ANY,
  input: ["any"],
  output: "nothing",
  example: { locator: { kind: "function", name: "deprecated_helper", file: "app/utils.py" } },
  run(ws, params) {
    const t = ws.one(params["locator"]);
    return new Map([[t.file, deletionEdits(t)]]);
  },
});

export const reorderChildrenOp = defineOperator({
  name: "reorder_children",
  tier: 1,
  useCase: "AST Surgery",
  description:
    "Reorder the children of a node: the statements of a block, the members of a class (target the class), the parameters of a list. `order[i]` is the child that goes to position i, by index or by name; list every child once. Comments between children stay where they are.",
  params: z.strictObject({
    parent: p.locator("The node whose children are reordered (a class, a function, a block, a parameter list)"),
    order: p.order('The new order: [2, 0, 1] or ["__init__", "run", "stop"]'),
  }),
  languages: ANY,
  input: ["block", "class_definition", "parameters"],
  output: "same",
  example: {
    parent: { kind: "class", name: "Order", file: "app/models.py" },
    order: ["__init__", "total", "validate"],
  },
  run(ws, params) {
    const t = ws.one(params["parent"]);
    const order = params["order"] as (number | string)[];
    if (!Array.isArray(order)) throw new TransformRejected("reorder_children", t.file, "order must be an array");
    return new Map([[t.file, reorderChildren(t, order)]]);
  },
});

export const SURGERY = [
  renameIdentifier,
  renameAcrossFilesOp,
  copyNodeOp,
  moveNodeOp,
  swapNodesOp,
  deleteNodeOp,
  reorderChildrenOp,
] as const;
