import { expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { serialize, validateFragment, type Fragment } from "./index.js";

test("README example", async () => {
  await loadGrammars(["python"]);
  const guard: Fragment = {
    kind: "if_statement",
    properties: { condition: "path is None" },
    children: [{ kind: "raise_statement", properties: { exception: 'ValueError("path is required")' } }],
  };
  expect(validateFragment(guard)).toEqual([]);
  expect(serialize(guard, 1)).toBe('    if path is None:\n        raise ValueError("path is required")');
  const [issue] = validateFragment({ kind: "return_statement", properties: { value: "x =" } });
  expect(issue?.path).toBe("properties.value");
});
