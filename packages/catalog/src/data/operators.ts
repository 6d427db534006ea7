/**
 * The data steps as catalog operators: `{"op": "set_key" | "delete_key" | "append_item", "params":
 * {"locator": {"kind": "key", "name": KEY_PATH, "file": ...}, "value": ...}}` on JSON, YAML and
 * TOML files. Described once here (zod params); run by `stepEdits` (execute.ts) inside `runPlan`.
 */
import { z } from "zod";
import { dataFormatOf } from "@graphplan/graph";
import { KeyLocatorSchema, parseKeyPath } from "@graphplan/locators";
import type { Edit } from "@graphplan/primitives";
import { dataStepEdits, DATA_OPS, type DataOp } from "./edit.js";

const value = z
  .json()
  .describe(
    "Any JSON value: string, number, boolean, null (not in TOML), list or object; written in the file's own style",
  );
const locator = KeyLocatorSchema.describe(
  'The key: {"kind": "key", "name": "tool.pytest.ini_options.addopts", "file": "pyproject.toml"}',
);

export interface DataOperator {
  readonly name: DataOp;
  readonly description: string;
  readonly params: z.ZodObject;
  readonly example: Record<string, unknown>;
}

export const DATA_OPERATORS: readonly DataOperator[] = [
  {
    name: "set_key",
    description:
      'Set a key of a JSON, YAML or TOML file to a value: replaces it if it exists, else adds it (and the missing tables/mappings on its path). Written in the file\'s style (indentation, quotes, inline or block, [sections]); comments and other keys keep their bytes. Key path: dotted keys, quoted where a key holds a dot (tool."setuptools.packages"), list items by index (jobs.test.steps[2]).',
    params: z.strictObject({ locator, value }),
    example: {
      locator: { kind: "key", name: "tool.pytest.ini_options.addopts", file: "pyproject.toml" },
      value: "-ra --strict-markers",
    },
  },
  {
    name: "delete_key",
    description:
      "Delete a key (or a list item by index) of a JSON, YAML or TOML file, with its line and comment when it has a line of its own. A missing key fails, naming the nearest keys.",
    params: z.strictObject({ locator }),
    example: { locator: { kind: "key", name: "scripts.prepublish", file: "package.json" } },
  },
  {
    name: "append_item",
    description:
      "Append a value to a list of a JSON, YAML or TOML file (a TOML array of tables gets a new [[section]]); a missing key becomes a one-item list.",
    params: z.strictObject({ locator, value }),
    example: {
      locator: { kind: "key", name: "jobs.test.steps", file: ".github/workflows/ci.yml" },
      value: { run: "pytest -q" },
    },
  },
];

export const DATA_OPERATOR_BY_NAME: ReadonlyMap<string, DataOperator> = new Map(DATA_OPERATORS.map((o) => [o.name, o]));
export const isDataOp = (name: unknown): name is DataOp =>
  typeof name === "string" && (DATA_OPS as readonly string[]).includes(name);

/** Problems of a data step's params (shape, a file that is not data, a key path that cannot be read), each with its place. */
export function dataParamIssues(op: DataOperator, params: unknown): { path: string; message: string; code: string }[] {
  const parsed = op.params.safeParse(params ?? {});
  if (!parsed.success) {
    return parsed.error.issues.map((i) => ({
      path: `params${i.path.length ? `.${i.path.join(".")}` : ""}`,
      code: i.code === "unrecognized_keys" ? "unknown" : "type",
      message: i.message,
    }));
  }
  const { file, name } = (parsed.data as { locator: { file: string; name: string } }).locator;
  const issues: { path: string; message: string; code: string }[] = [];
  if (!dataFormatOf(file))
    issues.push({
      path: "params.locator.file",
      code: "language",
      message: `${op.name} edits .json, .yaml, .yml and .toml files; ${file} is none of them`,
    });
  try {
    parseKeyPath(name);
  } catch (error) {
    issues.push({ path: "params.locator.name", code: "value", message: (error as Error).message });
  }
  return issues;
}

/** The edits of a valid data step, given the current text of its file. */
export function dataEdits(
  op: DataOperator,
  params: Record<string, unknown>,
  source: (file: string) => string,
): Map<string, Edit[]> {
  const { locator: target, value: v } = op.params.parse(params) as {
    locator: { file: string; name: string };
    value?: unknown;
  };
  return new Map([[target.file, dataStepEdits(op.name, target.file, source(target.file), target.name, v)]]);
}
