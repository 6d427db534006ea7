/** Locators: how a plan step names an AST node without line numbers. Described once, here. */
import { z } from "zod";

const int = z.number().int();

/** The type of `ParentLocatorSchema`, declared because the schema is recursive. */
export interface ParentLocator {
  kind?: string | undefined;
  name?: string | undefined;
  file?: string | undefined;
  parent?: ParentLocator | undefined;
  field?: string | undefined;
  nth_child?: number | undefined;
  index?: number | undefined;
}

const structuredFields = {
  kind: z
    .string()
    .describe(
      "Normalized kind (function, class, method, import, statement, interface, enum, struct, trait, impl, module, namespace, typedef, type_alias, constructor, call, assignment, decorator, parameter, identifier, string, comment, if, for, while, return, try, with, raise) or a raw tree-sitter node type such as if_statement",
    )
    .optional(),
  name: z.string().describe("Name of the symbol (for named nodes)").optional(),
  field: z
    .string()
    .describe("Named tree-sitter field of the matched node: body, parameters, condition, name, ...")
    .optional(),
  nth_child: int.describe("Select the Nth named child of the matched node (-1 for the last)").optional(),
  index: int.describe("Which match to take when several match (0-based, -1 for the last)").optional(),
};

/** A structured locator nested as `parent`: its file is the outer locator's. */
export const ParentLocatorSchema: z.ZodType<ParentLocator> = z.lazy(() =>
  z.strictObject({
    ...structuredFields,
    file: z.string().optional(),
    parent: ParentLocatorSchema.optional(),
  }),
);

export const StructuredLocatorSchema = z
  .strictObject({
    ...structuredFields,
    file: z.string().min(1).describe("Path of the file, relative to the workspace root"),
    parent: ParentLocatorSchema.describe("Locator of an enclosing node that constrains the search").optional(),
  })
  .describe("Structured locator: finds nodes by kind and name, optionally inside a parent");

export const SexpLocatorSchema = z
  .strictObject({
    type: z.literal("sexp"),
    file: z.string().min(1),
    query: z.string().min(1).describe("A tree-sitter S-expression query"),
    capture: z.string().default("target").describe("Capture name whose nodes are the targets (without @)"),
    index: int.optional(),
  })
  .describe("S-expression locator: a tree-sitter query; the nodes of one capture are the targets");

export const LocatorSchema = z.union([SexpLocatorSchema, StructuredLocatorSchema]);

export type StructuredLocator = z.infer<typeof StructuredLocatorSchema>;
export type SexpLocator = z.infer<typeof SexpLocatorSchema>;
export type Locator = z.infer<typeof LocatorSchema>;
