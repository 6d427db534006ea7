/** The kinds of file `bench replay` reports the structural share for. */
import { describe, expect, it } from "vitest";
import { FILE_KINDS } from "./report.js";
import { fileKind } from "./instance.js";

describe("fileKind", () => {
  it("counts shell scripts, CSS and HTML apart from code, data and other text", () => {
    const paths = [
      "src/app.py",
      "deploy.sh",
      "build.bash",
      "site.css",
      "index.html",
      "pyproject.toml",
      ".github/ci.yml",
      "CHANGES.rst",
      "Makefile",
    ];
    expect(paths.map(fileKind)).toEqual(["code", "shell", "shell", "css", "html", "data", "data", "text", "text"]);
    expect(new Set(paths.map(fileKind))).toEqual(new Set(FILE_KINDS));
  });
});
