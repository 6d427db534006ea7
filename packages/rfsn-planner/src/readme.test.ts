/** Runs the README's opening example — the block itself, read from README.md — so that it cannot rot. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as api from "./index.js";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";

describe("README example", () => {
  it("is the first code block, at most ten lines of code, importing from the package", () => {
    const code = example.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("//"));
    expect(code.length).toBeLessThanOrEqual(10);
    expect(code[0]).toMatch(/^import \{ [\w, ]+ \} from "@graphplan\/rfsn-planner";$/);
  });

  it("runs and prints the line shown under it", () => {
    const [importLine, ...body] = example.trimEnd().split("\n");
    const names = /\{ ([\w, ]+) \}/.exec(importLine!)![1]!.split(", ");
    const printed: string[] = [];
    const fakeConsole = { log: (...args: unknown[]) => printed.push(args.map(String).join(" ")) };
    const exports: Record<string, unknown> = api;
    const run = new Function(...names, "console", body.join("\n")) as (...args: unknown[]) => void;
    run(...names.map((n) => exports[n]), fakeConsole);
    const shown = body.at(-1)!.replace(/^\/\/ /, "");
    expect(printed).toEqual([shown]);
    expect(shown).toBe("Accepted run_tests → read_file src/auth.py authenticate");
  });
});
