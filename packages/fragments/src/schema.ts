/**
 * Tier 3 fragments, described once: each kind's properties (with the code kind each string holds)
 * and the kinds its children may have. Validation, serialization, the JSON Schema and the catalog
 * text all read this one description.
 */
import { z } from "zod";
import type { CodeKind } from "./code.js";

/** The metadata key that says which {@link CodeKind} a string holds. */
export const CODE_META = "x-code";

/** A string that holds code of `kind`; the kind is kept as zod metadata so validators and the JSON Schema see it. */
export function codeString(kind: CodeKind, description: string): z.ZodString {
  return z.string().meta({ description, [CODE_META]: kind });
}

/** The code kind a zod schema was tagged with by {@link codeString}, looking through optional/default wrappers. */
export function codeKindOf(schema: z.ZodType): CodeKind | undefined {
  let current: z.ZodType | undefined = schema;
  for (let depth = 0; current && depth < 5; depth++) {
    const meta = current.meta() as Record<string, unknown> | undefined;
    const kind = meta?.[CODE_META];
    if (typeof kind === "string") return kind as CodeKind;
    const def: { innerType?: z.ZodType } = (current as unknown as { _zod: { def: { innerType?: z.ZodType } } })._zod
      .def;
    current = def.innerType;
  }
  return undefined;
}

export const STATEMENT_KINDS = [
  "function_definition",
  "class_definition",
  "if_statement",
  "for_statement",
  "while_statement",
  "with_statement",
  "try_statement",
  "return_statement",
  "raise_statement",
  "assignment",
  "expression_statement",
  "pass_statement",
  "break_statement",
  "continue_statement",
] as const;
export const CLAUSE_KINDS = ["elif_clause", "else_clause", "except_clause", "finally_clause"] as const;
export const FRAGMENT_KINDS = [...STATEMENT_KINDS, ...CLAUSE_KINDS] as const;

export type StatementKind = (typeof STATEMENT_KINDS)[number];
export type ClauseKind = (typeof CLAUSE_KINDS)[number];
export type FragmentKind = (typeof FRAGMENT_KINDS)[number];

/** A fragment as the LLM writes it. */
export interface Fragment {
  kind: FragmentKind;
  properties?: Record<string, unknown> | undefined;
  children?: Fragment[] | undefined;
}

const decorators = z
  .array(codeString("decorator", "A decorator expression without the @"))
  .describe('Decorators, outermost first, without the @: ["staticmethod", "functools.lru_cache(maxsize=None)"]')
  .optional();
const isAsync = z.boolean().describe("true for async def / async for / async with").optional();
const docstring = z.string().describe("Docstring text, without quotes").optional();
const modifiers = z.string().describe('Java only: modifiers, "public static final"').optional();

/** Each kind: what it is, its properties, and which clause kinds may follow its body statements. */
export interface KindSpec {
  readonly description: string;
  readonly properties: z.ZodObject;
  /** Whether the kind has a body of statement children (compound statements and clauses). */
  readonly body: boolean;
  /** Clause kinds that may follow the body statements, in the order they must appear. */
  readonly clauses: readonly ClauseKind[];
  readonly example: Fragment;
}

const props = (shape: z.ZodRawShape) => z.strictObject(shape);

export const KIND_SPECS: Readonly<Record<FragmentKind, KindSpec>> = {
  function_definition: {
    description: "A function or method: children are the body statements (empty body → pass)",
    properties: props({
      name: codeString("identifier", "Function name"),
      parameters: codeString(
        "parameters",
        'Parameter list without parentheses: "self, path, *, strict=False"',
      ).optional(),
      return_type: codeString("type", 'Return annotation: "Optional[str]"').optional(),
      decorators,
      is_async: isAsync,
      docstring,
      modifiers,
      receiver: codeString("parameters", 'Go only: the receiver of a method, "c *Cart"').optional(),
    }),
    body: true,
    clauses: [],
    example: {
      kind: "function_definition",
      properties: { name: "area", parameters: "self" },
      children: [{ kind: "return_statement", properties: { value: "self.w * self.h" } }],
    },
  },
  class_definition: {
    description: "A class: children are the class body statements",
    properties: props({
      name: codeString("identifier", "Class name"),
      bases: codeString("arguments", 'Bases without parentheses: "Base, metaclass=ABCMeta"').optional(),
      decorators,
      docstring,
      modifiers,
    }),
    body: true,
    clauses: [],
    example: {
      kind: "class_definition",
      properties: { name: "Point", decorators: ["dataclass"] },
      children: [{ kind: "assignment", properties: { target: "x", type: "int", value: "0" } }],
    },
  },
  if_statement: {
    description: "if: children are the body statements, then elif_clause*, then else_clause?",
    properties: props({ condition: codeString("condition", 'The condition: "x is None"') }),
    body: true,
    clauses: ["elif_clause", "else_clause"],
    example: {
      kind: "if_statement",
      properties: { condition: "x is None" },
      children: [{ kind: "return_statement", properties: { value: "None" } }],
    },
  },
  elif_clause: {
    description: "elif branch (only inside an if_statement): children are its body",
    properties: props({ condition: codeString("condition", "The condition") }),
    body: true,
    clauses: [],
    example: {
      kind: "elif_clause",
      properties: { condition: "x < 0" },
      children: [{ kind: "raise_statement", properties: { exception: "ValueError(x)" } }],
    },
  },
  else_clause: {
    description:
      "else branch (inside if_statement, for_statement, while_statement or try_statement): children are its body",
    properties: props({}),
    body: true,
    clauses: [],
    example: { kind: "else_clause", children: [{ kind: "pass_statement" }] },
  },
  for_statement: {
    description: "for loop: children are the body statements, then else_clause?",
    properties: props({
      target: codeString("target", 'Loop variable(s): "key, value"'),
      iterable: codeString("expression", 'What to iterate: "items.items()"'),
      is_async: isAsync,
    }),
    body: true,
    clauses: ["else_clause"],
    example: {
      kind: "for_statement",
      properties: { target: "item", iterable: "items" },
      children: [{ kind: "expression_statement", properties: { expression: "print(item)" } }],
    },
  },
  while_statement: {
    description: "while loop: children are the body statements, then else_clause?",
    properties: props({ condition: codeString("condition", 'The condition: "queue"') }),
    body: true,
    clauses: ["else_clause"],
    example: {
      kind: "while_statement",
      properties: { condition: "queue" },
      children: [{ kind: "expression_statement", properties: { expression: "queue.pop()" } }],
    },
  },
  with_statement: {
    description: "with block: children are the body statements",
    properties: props({
      items: codeString("with_items", 'Context managers: "open(path) as f" or "lock, open(p) as f"'),
      is_async: isAsync,
    }),
    body: true,
    clauses: [],
    example: {
      kind: "with_statement",
      properties: { items: "open(path) as f" },
      children: [{ kind: "return_statement", properties: { value: "f.read()" } }],
    },
  },
  try_statement: {
    description:
      "try block: children are the body statements, then except_clause*, else_clause?, finally_clause? (at least one except or finally)",
    properties: props({}),
    body: true,
    clauses: ["except_clause", "else_clause", "finally_clause"],
    example: {
      kind: "try_statement",
      children: [
        { kind: "return_statement", properties: { value: "int(text)" } },
        {
          kind: "except_clause",
          properties: { exception: "ValueError" },
          children: [{ kind: "return_statement", properties: { value: "None" } }],
        },
      ],
    },
  },
  except_clause: {
    description: "except handler (only inside a try_statement): children are its body",
    properties: props({
      exception: codeString(
        "exception",
        'What to catch: "ValueError" or "(KeyError, IndexError)"; omit for a bare except',
      ).optional(),
      alias: codeString("identifier", 'Name bound to the exception: "err" (needs exception)').optional(),
    }),
    body: true,
    clauses: [],
    example: {
      kind: "except_clause",
      properties: { exception: "KeyError", alias: "err" },
      children: [{ kind: "raise_statement", properties: { exception: "LookupError(str(err))", cause: "err" } }],
    },
  },
  finally_clause: {
    description: "finally block (only inside a try_statement): children are its body",
    properties: props({}),
    body: true,
    clauses: [],
    example: {
      kind: "finally_clause",
      children: [{ kind: "expression_statement", properties: { expression: "handle.close()" } }],
    },
  },
  return_statement: {
    description: "return (no children)",
    properties: props({
      value: codeString("expression", 'Returned value; omit for a bare return: "result"').optional(),
    }),
    body: false,
    clauses: [],
    example: { kind: "return_statement", properties: { value: "result" } },
  },
  raise_statement: {
    description: "raise (no children)",
    properties: props({
      exception: codeString("expression", 'The exception: "ValueError(f\\"bad {x}\\")"; omit to re-raise').optional(),
      cause: codeString("expression", 'raise ... from cause: "err" (needs exception)').optional(),
    }),
    body: false,
    clauses: [],
    example: { kind: "raise_statement", properties: { exception: 'TypeError("expected str")' } },
  },
  assignment: {
    description: "assignment, annotated or augmented (no children)",
    properties: props({
      target: codeString("target", 'Left side: "self.count" or "a, b"'),
      value: codeString("expression", 'Right side: "0" (may be omitted only with type)').optional(),
      type: codeString("type", 'Annotation: "int"').optional(),
      operator: z
        .enum([
          "=",
          "+=",
          "-=",
          "*=",
          "/=",
          "//=",
          "%=",
          "**=",
          "|=",
          "&=",
          "^=",
          ">>=",
          "<<=",
          "@=",
          "??=",
          "||=",
          "&&=",
          ">>>=",
        ])
        .describe("Assignment operator, default = (//= and @= are Python's; ??=, ||=, &&= and >>>= JavaScript's)")
        .optional(),
      declaration: z
        .enum(["const", "let", "var"])
        .describe("JavaScript/TypeScript/Java: declare a new variable (const x = 1; in Java const is final)")
        .optional(),
      modifiers,
    }),
    body: false,
    clauses: [],
    example: { kind: "assignment", properties: { target: "self.count", operator: "+=", value: "1" } },
  },
  expression_statement: {
    description: "an expression used as a statement, usually a call (no children)",
    properties: props({ expression: codeString("expression", 'The expression: "logger.info(\\"done\\")"') }),
    body: false,
    clauses: [],
    example: { kind: "expression_statement", properties: { expression: "self.items.clear()" } },
  },
  pass_statement: {
    description: "pass (no properties, no children)",
    properties: props({}),
    body: false,
    clauses: [],
    example: { kind: "pass_statement" },
  },
  break_statement: {
    description: "break (no properties, no children)",
    properties: props({}),
    body: false,
    clauses: [],
    example: { kind: "break_statement" },
  },
  continue_statement: {
    description: "continue (no properties, no children)",
    properties: props({}),
    body: false,
    clauses: [],
    example: { kind: "continue_statement" },
  },
};

/** The kinds a child of `kind` may have. */
export function allowedChildren(kind: FragmentKind): readonly FragmentKind[] {
  const spec = KIND_SPECS[kind];
  return spec.body ? [...STATEMENT_KINDS, ...spec.clauses] : [];
}

const kindSchemas = new Map<FragmentKind, z.ZodType>();

function kindSchema(kind: FragmentKind): z.ZodType {
  let schema = kindSchemas.get(kind);
  if (schema) return schema;
  const spec = KIND_SPECS[kind];
  const allowed = allowedChildren(kind);
  const hasRequired = Object.values(spec.properties.shape).some((p) => !(p as z.ZodType).safeParse(undefined).success);
  const children =
    allowed.length === 0
      ? z.array(z.never()).max(0).describe(`${kind} has no children`).optional()
      : z
          .array(z.lazy(() => z.union(allowed.map(kindSchema) as [z.ZodType, z.ZodType, ...z.ZodType[]])))
          .describe(
            `Children: ${spec.clauses.length ? `body statements, then ${spec.clauses.join(", ")}` : "body statements"}`,
          )
          .optional();
  schema = z
    .strictObject({
      kind: z.literal(kind),
      properties: hasRequired ? spec.properties : spec.properties.optional(),
      children,
    })
    .describe(spec.description);
  kindSchemas.set(kind, schema);
  return schema;
}

/** The zod schema of a fragment (any kind, recursively). Used for the JSON Schema of the plan. */
export const FragmentSchema: z.ZodType<Fragment> = z.lazy(() =>
  z.discriminatedUnion(
    "kind",
    FRAGMENT_KINDS.map((k) => kindSchema(k)) as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]],
  ),
) as unknown as z.ZodType<Fragment>;
