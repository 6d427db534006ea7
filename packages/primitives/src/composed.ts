/**
 * Built-in composed operators, as DSL expansions. An expansion looks at the current file
 * (through a read-only {@link View}) only to pick the right locators for its language; every
 * edit it makes is a primitive step run by the DSL interpreter.
 */
import type { LanguageId } from "@graphplan/graph";
import type { Locator, ParentLocator } from "@graphplan/locators";
import type { DslStep } from "./plan.js";
import type { LocateOutput, RegionOutput } from "./primitives.js";
import { indentBlock, indentUnit, lineStart } from "./indent.js";
import { PreconditionFailed } from "./errors.js";
import type { z } from "zod";
import type { AddClassAttributeParams, AddImportParams, AddMethodParams } from "./params.js";

/** What an expansion may read of the workspace at the time the step runs. */
export interface View {
  language(file: string): LanguageId;
  source(file: string): string;
  locate(locator: Locator): LocateOutput;
  locateRegion(locator: Locator): RegionOutput;
}

export type Expansion<P> = (params: P, view: View) => DslStep[];

const step = (primitive: string, params: Record<string, unknown>, bind?: string): DslStep =>
  bind ? { primitive, params, bind } : { primitive, params };

/** The locator of the node whose body holds a class's members, per language. */
function classLocator(language: LanguageId, file: string, name: string, op: string): { file: string } & ParentLocator {
  switch (language) {
    case "go":
      return { kind: "struct", name, file };
    case "rust":
      return { kind: "impl", name, file };
    case "c":
      throw new PreconditionFailed(file, op, "C has no classes; use insert_after_node with a locator");
    default:
      return { kind: "class", name, file };
  }
}

/** Steps that put `code` into an empty class body (`{}` or Ruby's bodiless `class A ... end`). */
function intoEmptyBody(
  language: LanguageId,
  cls: { file: string } & ParentLocator,
  code: string,
  view: View,
): DslStep[] {
  const unit = indentUnit(view.source(cls.file), language);
  const inner = indentBlock(code, unit);
  if (language === "ruby") {
    const region = view.locateRegion(cls as Locator);
    const header = region.text.replace(/\s*end\s*$/, "");
    return [step("replace_node", { locator: cls, replacement: `${header}\n${inner}\nend` })];
  }
  if (language === "python") {
    return [step("insert_after_node", { locator: { ...cls, field: "body", nth_child: -1 }, code, separator: "\n\n" })];
  }
  return [step("replace_node", { locator: { ...cls, field: "body" }, replacement: `{\n${inner}\n}` })];
}

export const addMethod: Expansion<z.infer<typeof AddMethodParams>> = (params, view) => {
  const { file, class_name, method_code } = params;
  const language = view.language(file);
  const cls = classLocator(language, file, class_name, "add_method");
  if (language === "go") {
    return [step("insert_after_node", { locator: cls, code: method_code, separator: "\n\n" })];
  }
  const last = { ...cls, field: "body", nth_child: -1 };
  return [
    step("locate", { locator: last }, "last"),
    {
      if: "$last.count > 0",
      then: step("insert_after_node", { locator: last, code: method_code, separator: "\n\n" }),
      else: intoEmptyBody(language, cls, method_code, view),
    },
  ];
};

const isDocstring = (found: LocateOutput): boolean => {
  const node = found.nodes[0];
  return !!node && node.type === "expression_statement" && /^[rRuUbBfF]*("""|'''|"|')/.test(node.text_preview);
};

export const addClassAttribute: Expansion<z.infer<typeof AddClassAttributeParams>> = (params, view) => {
  const { file, class_name, attribute_code } = params;
  const language = view.language(file);
  let cls = classLocator(language, file, class_name, "add_class_attribute");
  let members: Locator;
  if (language === "go" || language === "rust") {
    // Fields live in the struct's field list, not in an impl.
    cls = { kind: "struct", name: class_name, file };
    members = { kind: "field_declaration_list", file, parent: { kind: "struct", name: class_name } };
  } else {
    members = { ...cls, field: "body" };
  }
  const first = { ...members, nth_child: 0 } as Locator;
  const found = view.locate(first);
  if (found.count > 0) {
    if (language === "python" && isDocstring(found)) {
      return [step("insert_after_node", { locator: first, code: attribute_code, separator: "\n" })];
    }
    return [step("insert_before_node", { locator: first, code: attribute_code, separator: "\n" })];
  }
  if (language === "go" || language === "rust") {
    return [
      step("replace_node", {
        locator: members,
        replacement: `{\n${indentBlock(attribute_code, indentUnit(view.source(file), language))}\n}`,
      }),
    ];
  }
  return intoEmptyBody(language, cls, attribute_code, view);
};

/** Where the first import goes in a file without imports. */
function firstImportSteps(language: LanguageId, file: string, code: string, view: View): DslStep[] {
  const after = (locator: Locator, separator = "\n\n") => [step("insert_after_node", { locator, code, separator })];
  const before = (locator: Locator) => [step("insert_before_node", { locator, code, separator: "\n\n" })];
  const has = (locator: Locator) => view.locate(locator).count > 0;
  const first: Locator = { file, nth_child: 0 };
  switch (language) {
    case "python": {
      const head = view.locate(first);
      if (isDocstring(head)) return after(first);
      break;
    }
    case "go":
      return after({ kind: "package_clause", file });
    case "java":
      if (has({ kind: "package_declaration", file })) return after({ kind: "package_declaration", file });
      break;
    case "php": {
      const ns = view.locate({ kind: "namespace_definition", file });
      if (ns.count > 0 && !/\{/.test(ns.nodes[0]!.text_preview))
        return after({ kind: "namespace_definition", file, index: 0 });
      return after({ kind: "php_tag", file, index: 0 });
    }
  }
  if (!has(first)) throw new PreconditionFailed(file, "add_import", "the file has no code to put the import before");
  return before(first);
}

export const addImport: Expansion<z.infer<typeof AddImportParams>> = (params, view) => {
  const { file, import_statement } = params;
  const language = view.language(file);
  const source = view.source(file);
  const wanted = import_statement.trim();
  if (source.split("\n").some((line) => line.trim() === wanted)) return []; // already imported
  const imports = view.locate({ kind: "import", file });
  if (imports.count > 0) {
    // The last import at column 0 (a top-level one), else the last one.
    let index = imports.count - 1;
    for (let i = imports.count - 1; i >= 0; i--) {
      const start = imports.nodes[i]!.start;
      if (lineStart(source, start) === start) {
        index = i;
        break;
      }
    }
    return [
      step("insert_after_node", { locator: { kind: "import", file, index }, code: import_statement, separator: "\n" }),
    ];
  }
  return firstImportSteps(language, file, import_statement, view);
};

export const COMPOSED: Readonly<Record<string, Expansion<never>>> = {
  add_method: addMethod as Expansion<never>,
  add_import: addImport as Expansion<never>,
  add_class_attribute: addClassAttribute as Expansion<never>,
};
