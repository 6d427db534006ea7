/** Code and diffs on the page: highlight.js for colour, diff2html for unified diffs, jsdiff to diff two texts. */
import { createTwoFilesPatch } from "diff";
import type { Diff2HtmlUIConfig } from "diff2html/lib-esm/ui/js/diff2html-ui-base.js";
import { Diff2HtmlUI } from "diff2html/lib-esm/ui/js/diff2html-ui-base.js";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import cpp from "highlight.js/lib/languages/cpp";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import php from "highlight.js/lib/languages/php";
import plaintext from "highlight.js/lib/languages/plaintext";
import python from "highlight.js/lib/languages/python";
import ruby from "highlight.js/lib/languages/ruby";
import rust from "highlight.js/lib/languages/rust";
import typescript from "highlight.js/lib/languages/typescript";
import yaml from "highlight.js/lib/languages/yaml";
import { useEffect, useRef } from "preact/hooks";

// plaintext: diff2html asks for it for files of other languages.
const LANGUAGES = { bash, cpp, go, java, javascript, json, php, plaintext, python, ruby, rust, typescript, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

const BY_EXTENSION: Readonly<Record<string, string>> = {
  py: "python",
  pyi: "python",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  ts: "typescript",
  tsx: "typescript",
  go: "go",
  java: "java",
  c: "cpp",
  h: "cpp",
  cc: "cpp",
  cpp: "cpp",
  hpp: "cpp",
  rs: "rust",
  rb: "ruby",
  php: "php",
  sh: "bash",
  json: "json",
  yaml: "yaml",
  yml: "yaml",
};

export const languageOf = (file: string): string | undefined =>
  BY_EXTENSION[file.split(".").pop()?.toLowerCase() ?? ""];

function highlighted(text: string, language: string | undefined): string {
  if (language && hljs.getLanguage(language)) return hljs.highlight(text, { language, ignoreIllegals: true }).value;
  return text.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
}

/** A block of code with its line numbers, coloured by the file's language. */
export function Code({
  text,
  language,
  firstLine = 1,
  testid,
}: {
  text: string;
  language?: string | undefined;
  firstLine?: number;
  testid?: string;
}) {
  const lines = text.split("\n").length;
  const gutter = Array.from({ length: lines }, (_, i) => String(firstLine + i)).join("\n");
  return (
    <div class="code" data-testid={testid}>
      <pre class="gutter" aria-hidden="true">
        {gutter}
      </pre>
      <pre class="hljs">
        <code dangerouslySetInnerHTML={{ __html: highlighted(text, language) }} />
      </pre>
    </div>
  );
}

/** A unified diff rendered by diff2html, coloured by highlight.js. */
export function Diff({ patch, sideBySide = false, testid }: { patch: string; sideBySide?: boolean; testid?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!ref.current) return;
    const config: Diff2HtmlUIConfig = {
      drawFileList: false,
      matching: "lines",
      outputFormat: sideBySide ? "side-by-side" : "line-by-line",
      highlight: true,
      synchronisedScroll: true,
    };
    const ui = new Diff2HtmlUI(ref.current, patch, config, hljs);
    ui.draw();
    ui.highlightCode();
  }, [patch, sideBySide]);
  return <div class="diff" data-testid={testid} ref={ref} />;
}

/** The unified diff between two versions of one file (empty when they are equal). */
export function diffOf(file: string, oldLabel: string, newLabel: string, before: string, after: string): string {
  if (before === after) return "";
  return createTwoFilesPatch(file, file, before, after, oldLabel, newLabel, { context: 3 });
}
