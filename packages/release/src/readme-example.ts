/**
 * A package README's first example, made into a script that checks what the README says about it:
 *
 * - the first fenced `ts`/`js` block is the code, run as an ES module (it imports the installed packages);
 * - a fenced block right after it, introduced by "prints", is what its standard output must begin with;
 * - a line `expression; // VALUE` or `console.log(expression); // VALUE` claims the expression equals VALUE
 *   (compared as JSON), and `const name = ...; // CLAIM` claims CLAIM is true when CLAIM is a comparison,
 *   else that `name` equals it. A comment that is not a JavaScript expression (prose, `...`) claims nothing.
 */

export interface Example {
  readonly code: string;
  /** The text of the "prints" block after the code, if the README shows one. */
  readonly prints: string | undefined;
}

const FENCE = /^```([A-Za-z]*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;

/** The first `ts`/`typescript`/`js`/`javascript` block of `readme`, and the "prints" block after it. */
export function firstExample(readme: string): Example | undefined {
  const blocks = [...readme.matchAll(FENCE)].map((m) => ({
    lang: m[1]!.toLowerCase(),
    body: m[2]!,
    start: m.index,
    end: m.index + m[0].length,
  }));
  const index = blocks.findIndex((b) => ["ts", "typescript", "js", "javascript", "mjs"].includes(b.lang));
  if (index < 0) return undefined;
  const code = blocks[index]!;
  const next = blocks[index + 1];
  const between = next ? readme.slice(code.end, next.start) : "";
  const prints = next && /^\s*prints:?\s*$/i.test(between) ? next.body : undefined;
  return { code: code.body, prints };
}

/** Whether `text` parses as one JavaScript expression (parsed only: nothing runs). */
function isExpression(text: string): boolean {
  try {
    new Function(`return (\n${text}\n);`);
    return true;
  } catch {
    return false;
  }
}

const HELPERS = `
import { isDeepStrictEqual as __same } from "node:util";
const __json = (value) => JSON.parse(JSON.stringify(value, (_k, v) => (v instanceof Map ? Object.fromEntries(v) : v instanceof Set ? [...v] : v)) ?? "null");
let __claims = 0;
function __equal(line, actual, expected, text) {
  if (!__same(__json(actual), __json(expected))) throw new Error(\`README claim at line \${line} does not hold: \${text}; got \${JSON.stringify(__json(actual))}\`);
  __claims++;
}
function __true(line, value, text) {
  if (value !== true) throw new Error(\`README claim at line \${line} does not hold: \${text}\`);
  __claims++;
}
process.on("exit", (code) => { if (code === 0) process.stderr.write(\`README example: \${__claims} claim(s) hold\\n\`); });
`;

const COMPARISON = /(===|!==|==|!=|<=|>=|<|>)/;

/** The example's code with a check after each claim, and how many claims it checks. */
export function checkedScript(code: string): { readonly script: string; readonly claims: number } {
  let claims = 0;
  const lines = code.split("\n").map((line, i) => {
    const n = i + 1;
    const match = /^(\s*)(.*;)\s*\/\/\s*(.+?)\s*$/.exec(line);
    if (!match) return line;
    const [, indent = "", statement = "", comment = ""] = match;
    if (!isExpression(comment)) return line;
    const text = JSON.stringify(`${statement} // ${comment}`);
    const declared = /^(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=/.exec(statement);
    if (declared) {
      claims++;
      const check = COMPARISON.test(comment)
        ? `__true(${n}, (${comment}), ${text});`
        : `__equal(${n}, ${declared[1]}, (${comment}), ${text});`;
      return `${line}\n${indent}${check}`;
    }
    const logged = /^console\.log\(([\s\S]*)\);$/.exec(statement);
    const expression = logged ? logged[1]! : statement.slice(0, -1);
    if (!isExpression(expression)) return line;
    claims++;
    const value = `(${expression})`;
    return logged
      ? `${indent}{ const __v = ${value}; console.log(__v); __equal(${n}, __v, (${comment}), ${text}); }`
      : `${indent}__equal(${n}, ${value}, (${comment}), ${text});`;
  });
  return { script: `${HELPERS}\n${lines.join("\n")}\n`, claims };
}
