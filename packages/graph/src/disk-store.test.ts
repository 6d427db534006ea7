/**
 * The persistent graph cache: `GraphCache` with a `DiskGraphStore`, as a second process (another
 * agent instance on the same repository) would use it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildGraph, GraphCache, storeKey, type SourceFile } from "./index.js";
import { fromStored } from "./graph.js";
import { DiskGraphStore, defaultGraphCacheDir } from "./disk-store.js";
import { hashSource } from "./graph.js";

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "graph-store-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const files: SourceFile[] = [
  {
    path: "shop/cart.py",
    source:
      "from .models import Item\n\n\nclass Cart:\n    def add(self, item):\n        if item:\n            return 1\n",
  },
  { path: "shop/util.ts", source: 'import { z } from "zod";\nexport const id = (x: string) => x;\n' },
  {
    path: "shop/copy.py",
    source:
      "from .models import Item\n\n\nclass Cart:\n    def add(self, item):\n        if item:\n            return 1\n",
  },
  { path: "shop/broken.py", source: "def f(:\n    pass\n" },
  { path: "include/list.h", source: "namespace ds {\ntemplate <typename T>\nclass List {\n  T head;\n};\n}\n" },
];

/** The files with one entry each. */
const unique = files.filter((f) => f.path !== "shop/copy.py");

/** Every file under `dir`, recursively (relative paths). */
function walk(dir: string, prefix = ""): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(dir, join(prefix, entry.name)) : [join(prefix, entry.name)],
  );
}
const entriesOf = (dir: string) => walk(dir).filter((path) => path.endsWith(".json"));

/** `buildGraph` with a cache on `store`, then waits for the store's writes. */
async function buildStored(sources: readonly SourceFile[], store: DiskGraphStore, cache = new GraphCache({ store })) {
  const graph = await buildGraph(sources, { cache });
  await store.flush();
  return { graph, cache };
}

describe("GraphCache with a DiskGraphStore", () => {
  it("parses every file once, then a new cache on the same directory reads them all back", async () => {
    const dir = tempDir();
    const expected = await buildGraph(files);
    const first = await buildStored(files, new DiskGraphStore(dir));
    expect(first.graph).toEqual(expected);
    // The two files with the same bytes (and language) share one entry: the second is read back
    // (its entry was written by then only because the build waited on nothing: it parsed it too).
    expect([...first.cache.lastParsed, ...first.cache.lastStored].sort()).toEqual(files.map((f) => f.path).sort());
    expect(entriesOf(dir)).toHaveLength(files.length - 1);

    const store = new DiskGraphStore(dir);
    const second = await buildStored(files, store);
    expect(second.graph).toEqual(expected);
    expect(second.cache.lastParsed).toEqual([]);
    expect(second.cache.lastStored).toEqual(files.map((f) => f.path));
    expect(store.stats.hits).toBe(files.length);
    // The syntax error names its own file, and the header was read as C++ (a class, a namespace).
    expect(second.cache.get("shop/broken.py")!.errors).toEqual(
      expected.errors.filter((e) => e.includes("shop/broken.py")),
    );
    expect(second.cache.get("include/list.h")!.symbols.map((s) => s.kind)).toEqual(["namespace", "class"]);
  });

  it("parses a file again when its content changed, and only that file", async () => {
    const dir = tempDir();
    await buildStored(files, new DiskGraphStore(dir));
    const changed = files.map((f) =>
      f.path === "shop/util.ts" ? { ...f, source: f.source + "export function more() {}\n" } : f,
    );
    const { graph, cache } = await buildStored(changed, new DiskGraphStore(dir));
    expect(cache.lastParsed).toEqual(["shop/util.ts"]);
    expect(graph.symbols.filter((s) => s.file === "shop/util.ts").map((s) => s.name)).toEqual(["id", "more"]);
    expect(graph).toEqual(await buildGraph(changed));
  });

  it("parses everything again after the extractor version changes", async () => {
    const dir = tempDir();
    await buildStored(files, new DiskGraphStore(dir));
    const store = new DiskGraphStore(dir);
    const { cache } = await buildStored(files, store, new GraphCache({ store, extractorVersion: "next" }));
    expect(cache.lastStored).toEqual([]);
    expect(entriesOf(dir)).toHaveLength(2 * (files.length - 1));
    expect(storeKey("a.py", "0".repeat(40))).not.toEqual(storeKey("a.py", "0".repeat(40), "next"));
    // The same bytes under another language are another entry.
    expect(storeKey("a.js", "0".repeat(40))).not.toEqual(storeKey("a.ts", "0".repeat(40)));
  });

  it("ignores a corrupt entry, parses the file and writes the entry again", async () => {
    const dir = tempDir();
    const files = unique;
    await buildStored(files, new DiskGraphStore(dir));
    const entries = entriesOf(dir).sort();
    const [truncated, wrongShape, wrongKey] = entries.map((path) => join(dir, path));
    writeFileSync(truncated!, readFileSync(truncated!, "utf8").slice(0, 20));
    const shape = JSON.parse(readFileSync(wrongShape!, "utf8")) as Record<string, unknown>;
    writeFileSync(wrongShape!, JSON.stringify({ ...shape, symbols: [["x", "class", 0, "one"]] }));
    writeFileSync(wrongKey!, readFileSync(join(dir, entries[3]!), "utf8"));

    const store = new DiskGraphStore(dir);
    const { graph, cache } = await buildStored(files, store);
    expect(graph).toEqual(await buildGraph(files));
    expect(cache.lastParsed.length).toBe(3);
    expect(store.stats.corrupt).toBe(2); // the truncated one and the other key's; the bad shape is caught by the cache

    const again = await buildStored(files, new DiskGraphStore(dir));
    expect(again.cache.lastParsed).toEqual([]);
  });

  it("keeps the store under maxBytes, evicting the least recently used entries", async () => {
    const many: SourceFile[] = Array.from({ length: 60 }, (_, i) => ({
      path: `m/f${i}.py`,
      source: `def f${i}():\n    return ${i}\n\n\nclass C${i}:\n    def m(self):\n        if self:\n            return ${i}\n`,
    }));
    const probe = new DiskGraphStore(tempDir());
    await buildStored(many.slice(0, 1), probe);
    const maxBytes = probe.size() * 20;
    const dir = tempDir();
    const store = new DiskGraphStore(dir, { maxBytes });
    await buildStored(many, store);
    expect(store.stats.evicted).toBeGreaterThan(0);
    expect(store.size()).toBeLessThanOrEqual(maxBytes);
  });

  it("evicts the least recently used: a hit refreshes an entry (older than refreshAfterMs), so entries read last survive", async () => {
    const many: SourceFile[] = Array.from({ length: 22 }, (_, i) => ({
      path: `m/f${i + 10}.py`,
      source: `def f${i + 10}():\n    return ${i + 10}\n\n\nclass C${i + 10}:\n    def m(self):\n        if self:\n            return ${i + 10}\n`,
    }));
    const probe = new DiskGraphStore(tempDir());
    await buildStored(many.slice(0, 1), probe);
    const maxBytes = probe.size() * 20; // 20 entries; an eviction goes down to 16
    const dir = tempDir();
    const pause = () => new Promise((resolve) => setTimeout(resolve, 25));
    // Written first, then 10 newer ones: 15 entries, under the bound. Without a refresh the first 5 would be the first evicted.
    const [read, newer, last] = [many.slice(0, 5), many.slice(5, 15), many.slice(15)];
    await buildStored(read, new DiskGraphStore(dir, { maxBytes }));
    await pause();
    await buildStored(newer, new DiskGraphStore(dir, { maxBytes }));
    await pause();
    const reader = await buildStored(read, new DiskGraphStore(dir, { maxBytes, refreshAfterMs: 10 }));
    expect(reader.cache.lastParsed).toEqual([]);
    await pause();
    // 7 more: over the bound, so the store goes down to 16 entries (at least 5 go): the least recently used, of the 10 never read again.
    const writer = new DiskGraphStore(dir, { maxBytes });
    await buildStored(last, writer);
    expect(writer.stats.evicted).toBeGreaterThanOrEqual(5);
    expect(writer.size()).toBeLessThanOrEqual(maxBytes);
    expect((await buildStored(read, new DiskGraphStore(dir))).cache.lastParsed).toEqual([]);
    expect((await buildStored(last, new DiskGraphStore(dir))).cache.lastParsed).toEqual([]);
    expect((await buildStored(newer, new DiskGraphStore(dir))).cache.lastParsed.length).toBe(writer.stats.evicted);
  });

  it("on a directory that did not exist, reads nothing while it builds, then reads what it wrote in the next build", async () => {
    const dir = join(tempDir(), "new-cache");
    const store = new DiskGraphStore(dir);
    const files: SourceFile[] = [
      { path: "a.py", source: "def a():\n    return 1\n" },
      { path: "b.py", source: "def b():\n    return 2\n" },
    ];
    const first = await buildStored(files, store);
    expect(first.cache.lastParsed).toEqual(["a.py", "b.py"]);
    expect(store.stats).toMatchObject({ misses: 2, writes: 2 });
    const again = await buildStored(files, store); // the same store object, a new process-local cache
    expect(again.cache.lastStored).toEqual(["a.py", "b.py"]);
    expect(again.cache.lastParsed).toEqual([]);
  });

  it("touches the disk not at all while a cold build runs: directories, serialisation and writes come after it returns", async () => {
    const dir = join(tempDir(), "cold");
    const store = new DiskGraphStore(dir);
    await buildGraph(files.slice(0, 1), { cache: new GraphCache() }); // loads the grammars
    const cache = new GraphCache({ store });
    cache.build(files); // synchronous: the build itself
    expect(() => statSync(dir)).toThrow(); // nothing made yet, not even the directory
    expect(store.stats.writes).toBe(0);
    await store.flush();
    expect(entriesOf(dir)).toHaveLength(unique.length);
    expect(store.stats).toMatchObject({ writes: unique.length + 1, writeFailures: 0 }); // copy.py's entry is written twice (same bytes)
  });

  it("a store whose directory cannot be made counts every write as failed and still flushes", async () => {
    const blocker = join(tempDir(), "a-file");
    writeFileSync(blocker, "not a directory");
    const store = new DiskGraphStore(join(blocker, "cache")); // mkdir fails: ENOTDIR
    await buildGraph(files.slice(0, 1)); // loads the grammar
    const graph = new GraphCache().fileGraphs(files.slice(0, 1))[0]!;
    // Three entries of one sub-directory: the second and third wait for the first one's mkdir.
    for (const key of ["aa01", "aa02", "aa03"]) store.put(`${key.padEnd(40, "0")}-000000000000-python`, graph);
    const flushed = await Promise.race([
      store.flush().then(() => "flushed"),
      new Promise((resolve) => setTimeout(() => resolve("hung"), 2000)),
    ]);
    expect(flushed).toBe("flushed");
    expect(store.stats).toMatchObject({ writes: 0, writeFailures: 3 });
  });

  it("refreshes a hit entry's mtime only when it is older than refreshAfterMs", async () => {
    const dir = tempDir();
    const files: SourceFile[] = [{ path: "a.py", source: "def a():\n    return 1\n" }];
    await buildStored(files, new DiskGraphStore(dir));
    const entry = readdirSync(join(dir, "v1"), { recursive: true, withFileTypes: true }).find((e) => e.isFile())!;
    const path = join(entry.parentPath, entry.name);
    const mtime = () => statSync(path).mtimeMs;
    const written = mtime();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect((await buildStored(files, new DiskGraphStore(dir))).cache.lastStored).toEqual(["a.py"]);
    expect(mtime()).toBe(written); // read within the default minute: no file-system write
    await buildStored(files, new DiskGraphStore(dir, { refreshAfterMs: 10 }));
    expect(mtime()).toBeGreaterThan(written);
  });

  it("leaves only whole, valid entries when two processes write the same keys at once", async () => {
    const dir = tempDir();
    const script = join(tempDir(), "writer.mts");
    const storeModule = new URL("./disk-store.ts", import.meta.url).href;
    writeFileSync(
      script,
      `import { DiskGraphStore } from ${JSON.stringify(storeModule)};
const [dir, who] = process.argv.slice(2);
const store = new DiskGraphStore(dir, { maxBytes: 1e9 });
const file = "x.py";
const big = Array.from({ length: 400 }, (_, i) => ({ name: "name" + i, kind: "function", file, start_line: i + 1, end_line: i + 2 }));
const graph = { file, hash: "0".repeat(40), symbols: big, imports: [{ file, module: "m", symbol: null, line: 1 }], lineKinds: { "1": "if_statement" }, errors: ["Syntax error in x.py: line 1"] };
const empty = { file, hash: "0".repeat(40), symbols: [], imports: [], lineKinds: {}, errors: [] };
for (let round = 0; round < 20; round++) {
  for (let k = 0; k < 40; k++) {
    const key = k.toString(16).padStart(40, "0") + "-" + "a".repeat(12) + "-python";
    store.put(key, graph);
    const own = (1000 + k).toString(16).padStart(40, "0") + "-" + "b".repeat(12) + "-" + who;
    store.put(own, empty);
    store.get(key);
  }
}
await store.flush();
process.stdout.write(JSON.stringify(store.stats));
`,
    );
    const run = (who: string) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ["--import", "tsx", script, dir, who], {
          cwd: import.meta.dirname,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        let err = "";
        child.stdout.on("data", (d: Buffer) => (out += d.toString()));
        child.stderr.on("data", (d: Buffer) => (err += d.toString()));
        child.on("exit", (code) =>
          code === 0 ? resolve(out) : reject(new Error(`writer ${who} exited ${code}: ${err}`)),
        );
      });
    const stats = (await Promise.all([run("python"), run("ruby")])).map(
      (out) => JSON.parse(out) as DiskGraphStore["stats"],
    );
    for (const s of stats) {
      expect(s.writeFailures).toBe(0);
      expect(s.corrupt).toBe(0);
    }
    const entries = entriesOf(dir);
    expect(entries).toHaveLength(40 + 40 + 40);
    expect(walk(dir).filter((p) => p.endsWith(".tmp"))).toEqual([]);
    const store = new DiskGraphStore(dir);
    for (const path of entries) {
      const key = path
        .split("/")
        .pop()!
        .replace(/\.json$/, "");
      const stored = store.get(key);
      expect(stored?.key).toBe(key);
      const graph = fromStored(stored, key, "y.py", hashSource(""));
      expect(graph).toBeDefined();
      if (key.includes("-aaaaaaaaaaaa-")) expect(graph!.errors).toEqual(["Syntax error in y.py: line 1"]);
    }
    expect(store.stats.corrupt).toBe(0);
  }, 60_000);

  it("lives under the user's cache directory by default", () => {
    expect(defaultGraphCacheDir({ XDG_CACHE_HOME: "/tmp/xdg" })).toBe("/tmp/xdg/graphplan/graph");
    expect(new DiskGraphStore("/tmp/somewhere").dir).toBe("/tmp/somewhere/v1");
    expect(statSync(tmpdir()).isDirectory()).toBe(true);
  });
});
