/**
 * `pnpm -s --filter @graphplan/bench-rename-across bench --repos DIR [--names N]`: for each clone in DIR (`<owner>__<name>`, bare or plain), the
 * Python files at HEAD; module-level functions and classes that other files import (`from m import
 * name`, or `import m` and `m.name`), N of them spread over the repository; each renamed with
 * `rename_across_files` over its module and importers. Judged by CPython: every changed file compiles,
 * `symtable` binds the new name (and not the old) in the module and in each importer that imported it
 * by name, and renaming back gives the original bytes. Refusals (a collision, a local import) are
 * counted with their reason.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { buildGraph, loadGrammars, moduleMayDenote } from "@graphplan/graph";
import { parsePlan, runFormalPlan } from "@graphplan/catalog";
import { Command, InvalidArgumentError } from "commander";

/** A path as the user meant it: pnpm runs a package's script in the package's folder and says where it was called from in INIT_CWD. */
const fromCaller = (path: string): string =>
  resolve((process.env.npm_lifecycle_event === "bench" && process.env.INIT_CWD) || process.cwd(), path);

const program = new Command("bench")
  .requiredOption(
    "--repos <dir>",
    "directory of clones named <owner>__<name> (bare or plain), read at HEAD",
    fromCaller,
  )
  .option(
    "--names <n>",
    "names renamed per repository",
    (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("a positive whole number");
      return n;
    },
    40,
  )
  .showHelpAfterError()
  // Usage errors exit 2, as in every GraphPlan command.
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  .parse();
const options = program.opts<{ repos: string; names: number }>();
if (!statSync(options.repos, { throwIfNoEntry: false })?.isDirectory())
  program.error(
    `error: --repos ${options.repos} is not a directory; give the directory of clones named <owner>__<name>`,
  );

const CHECK = `
import ast, json, symtable, sys
out = {}
for path, source in json.load(sys.stdin).items():
    try:
        tree = compile(source, path, "exec", ast.PyCF_ONLY_AST)
        compile(source, path, "exec")
        names = sorted(s.get_name() for s in symtable.symtable(source, path, "exec").get_symbols() if s.is_assigned() or s.is_imported())
        # Names an import binds under their own name (no alias, or \`name as name\`).
        froms = [[n.module or "", n.level, [a.name for a in n.names if a.asname in (None, a.name)], [a.name for a in n.names]] for n in tree.body if isinstance(n, ast.ImportFrom)]
        out[path] = {"names": names, "froms": froms}
    except SyntaxError as e:
        out[path] = "SyntaxError: %s (line %s)" % (e.msg, e.lineno)
print(json.dumps(out))
`;
/** names: symtable's module-level names; froms: each module-level `from m import`: module, level, the names it binds as themselves, every name it imports. */
type Checked = { names: string[]; froms: [string, number, string[], string[]][] } | string;
const cpython = (files: Record<string, string>): Record<string, Checked> =>
  JSON.parse(
    execFileSync("python3", ["-c", CHECK], {
      input: JSON.stringify(files),
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    }),
  );

function pythonFiles(dir: string, root = dir): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry.startsWith(".") ? [] : pythonFiles(path, root);
    return entry.endsWith(".py") ? [relative(root, path)] : [];
  });
}

/** The clone's tree at HEAD in `into` (`git -C` finds the git directory of a bare clone and of a plain one alike). */
function extractHead(clone: string, into: string): void {
  const archive = execFileSync("git", ["-C", clone, "archive", "HEAD"], {
    maxBuffer: 1 << 30,
    stdio: ["ignore", "pipe", "pipe"],
  });
  execFileSync("tar", ["-x", "-C", into], { input: archive });
}

await loadGrammars(["python"]);
const clones = readdirSync(options.repos)
  .filter((name) => name.includes("__") && statSync(join(options.repos, name)).isDirectory())
  .sort();
if (clones.length === 0) program.error(`error: --repos ${options.repos} holds no clone named <owner>__<name>`);
for (const name of clones) {
  const tree = mkdtempSync(join(tmpdir(), "graphplan-rename-"));
  try {
    try {
      extractHead(join(options.repos, name), tree);
    } catch (error) {
      // One line, then the next clone; the finally below removes the temporary tree.
      const stderr = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message)
        .trim()
        .split("\n")[0];
      process.stderr.write(`${name}: skipped, its HEAD cannot be read (${stderr}); give a git clone, bare or plain\n`);
      process.exitCode = 1;
      continue;
    }
    const files = new Map(pythonFiles(tree).map((p) => [p, readFileSync(join(tree, p), "utf8")]));
    const graph = await buildGraph([...files].map(([path, source]) => ({ path, source })));
    // Module-level names other files import, with their importers.
    const candidates: { file: string; name: string; importers: string[] }[] = [];
    for (const symbol of graph.symbols) {
      if (symbol.kind !== "function" && symbol.kind !== "class") continue;
      // Module-level definitions only (the graph lists nested functions as functions too).
      const line = files.get(symbol.file)!.split("\n")[symbol.start_line - 1] ?? "";
      if (!/^(async\s+def|def|class|@)/.test(line)) continue;
      const importers = new Set<string>();
      for (const i of graph.imports) {
        if (i.file === symbol.file) continue;
        if (!moduleMayDenote(i.module, i.file, symbol.file)) continue;
        if (
          i.symbol === symbol.name ||
          (i.symbol === null && files.get(i.file)!.includes(`${i.module}.${symbol.name}`))
        )
          importers.add(i.file);
      }
      if (importers.size) candidates.push({ file: symbol.file, name: symbol.name, importers: [...importers].sort() });
    }
    const unique = [...new Map(candidates.map((c) => [`${c.file}:${c.name}`, c])).values()].sort((a, b) =>
      `${a.file}:${a.name}`.localeCompare(`${b.file}:${b.name}`),
    );
    const step = Math.max(1, Math.floor(unique.length / options.names));
    const chosen = unique.filter((_, i) => i % step === 0).slice(0, options.names);
    const counts = {
      renamed: 0,
      refused: 0,
      compileFailures: 0,
      symtableMismatches: 0,
      roundTripDiffers: 0,
      importers: 0,
    };
    const refusals = new Map<string, number>();
    const problems: string[] = [];
    for (const c of chosen) {
      const newName = `${c.name}_gp`;
      const subset = new Map([c.file, ...c.importers].map((p) => [p, files.get(p)!]));
      // The rename as a model would write it, read through the plan's front door as a model's plan is.
      const plan = (from: string, to: string) => {
        const parsed = parsePlan([
          { op: "rename_across_files", params: { file: c.file, name: from, new_name: to, importers: c.importers } },
        ]);
        if (!parsed.ok) throw new Error(`not a plan: ${parsed.issues.map((i) => i.message).join("; ")}`);
        return parsed.plan;
      };
      const there = runFormalPlan(plan(c.name, newName), subset);
      if (!there.ok) {
        counts.refused++;
        const message = there.error.message;
        const reason = /imports it inside a function/.test(message)
          ? "an importer imports it inside a function"
          : /neither imports/.test(message)
            ? "a candidate importer does not import it"
            : /already bound|Cannot rename/.test(message)
              ? "name collision"
              : /does not bind it at its top level/.test(message)
                ? "not a module-level binding"
                : ((there.error.cause as { _tag?: string } | undefined)?._tag ?? "other");
        refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
        continue;
      }
      counts.renamed++;
      counts.importers += c.importers.length;
      const changed = Object.fromEntries([...there.files].filter(([p, text]) => text !== subset.get(p)));
      const before = cpython(Object.fromEntries([...subset].filter(([p]) => p in changed)));
      const after = cpython(changed);
      for (const [path, checked] of Object.entries(after)) {
        if (typeof checked === "string") {
          counts.compileFailures++;
          problems.push(`${c.file}:${c.name} → ${path}: ${checked}`);
          continue;
        }
        const old = before[path];
        if (typeof old === "string" || !old) continue;
        // symtable: the file's module-level names are the same, or the same with the old name replaced by
        // the new (the module; an importer that imported the name itself) — nothing else moved.
        const replaced = [...old.names.filter((n) => n !== c.name), newName].sort();
        const same = JSON.stringify(checked.names) === JSON.stringify(old.names);
        const renamed = old.names.includes(c.name) && JSON.stringify(checked.names) === JSON.stringify(replaced);
        const mustRename =
          path === c.file ||
          old.froms.some(
            ([m, level, names]) => names.includes(c.name) && moduleMayDenote(".".repeat(level) + m, path, c.file),
          );
        if (!(renamed || (same && !mustRename && path !== c.file))) {
          counts.symtableMismatches++;
          problems.push(`${c.file}:${c.name} → ${path}: symtable names ${same ? "unchanged" : "changed otherwise"}`);
        }
        // ast: no import of the old name from the module is left (aliased or not).
        if (
          checked.froms.some(
            ([m, level, , names]) => names.includes(c.name) && moduleMayDenote(".".repeat(level) + m, path, c.file),
          )
        ) {
          counts.symtableMismatches++;
          problems.push(`${c.file}:${c.name} → ${path}: still imports ${c.name} from the module`);
        }
      }
      const back = runFormalPlan(plan(newName, c.name), there.files);
      if (!back.ok || [...subset].some(([p, text]) => back.files.get(p) !== text)) {
        counts.roundTripDiffers++;
        problems.push(`${c.file}:${c.name}: renaming back ${back.ok ? "differs" : `failed: ${back.error.message}`}`);
      }
    }
    console.log(
      `${name}: ${files.size} Python files, ${unique.length} imported module-level names; ${chosen.length} renamed across files:`,
    );
    console.log(
      `  renamed ${counts.renamed} (${counts.importers} importer files), refused ${counts.refused}${refusals.size ? ` (${[...refusals].map(([k, v]) => `${k} ${v}`).join(", ")})` : ""}`,
    );
    console.log(
      `  CPython: compile failures ${counts.compileFailures}, symtable/ast mismatches ${counts.symtableMismatches}; renaming back differs ${counts.roundTripDiffers}`,
    );
    for (const p of problems.slice(0, 10)) console.log(`  ! ${p}`);
  } catch (error) {
    process.stderr.write(`${name}: stopped: ${(error as Error).message.trim().split("\n")[0]}\n`);
    process.exitCode = 1;
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}
