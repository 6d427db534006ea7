/**
 * Each data format's own reader as an oracle for tests: Python's `json`, `tomllib` and PyYAML's
 * `yaml.safe_load` (python3-yaml), many texts per python3 run. Dates and other values JSON has no
 * form for come back as their `str()`.
 */
import { execFileSync } from "node:child_process";

const SCRIPT = `
import json, sys, tomllib
def load(fmt, text):
    if fmt == "json": return json.loads(text)
    if fmt == "toml": return tomllib.loads(text)
    import yaml
    return yaml.safe_load(text)
out = []
for fmt, text in json.load(sys.stdin):
    try:
        out.append({"ok": True, "data": load(fmt, text)})
    except Exception as e:
        out.append({"ok": False, "error": f"{type(e).__name__}: {e}".splitlines()[0]})
print(json.dumps(out, default=str))
`;

export type OracleLoad = { readonly ok: true; readonly data: unknown } | { readonly ok: false; readonly error: string };

/** What Python's reader of each format makes of each text (`json.loads`, `tomllib.loads`, `yaml.safe_load`). */
export function pythonDataLoad(format: "json" | "yaml" | "toml", texts: readonly string[]): OracleLoad[] {
  const output = execFileSync("python3", ["-c", SCRIPT], {
    input: JSON.stringify(texts.map((t) => [format, t])),
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(output) as OracleLoad[];
}
