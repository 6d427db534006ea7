/**
 * The local server of the page: the page itself (bundled from `client/` by esbuild when first asked
 * for, so it works offline and needs no build step), the run's rows (`/api/run`) and one instance at
 * a time (`/api/instance/<id>`): the page never loads every trajectory at once.
 */
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Data } from "effect";
import { build } from "esbuild";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { CompareReportSchema, type CompareReport } from "./compare-format.js";
import { RunReader } from "./run.js";

/** The port is taken (or not ours to take). */
export class PortUnavailable extends Data.TaggedError("PortUnavailable")<{
  readonly host: string;
  readonly port: number;
  readonly detail: string;
}> {
  override get message(): string {
    return `cannot listen on ${this.host}:${this.port} (${this.detail}); give another port with --port N, or --port 0 for any free one`;
  }
}

export interface ServeOptions {
  /** A run directory or a trajectory file (see {@link RunReader.open}). */
  readonly path: string;
  /** 0: any free port. */
  readonly port: number;
  /** Loopback unless told otherwise: the page shows the run's code and prompts. */
  readonly host?: string;
}

export interface RunningViewer {
  readonly url: string;
  readonly reader: RunReader;
  readonly close: () => Promise<void>;
}

/** The directory of the page's sources: `src/client` next to this file, or, from `dist`, in `../src`. */
function clientDir(): string {
  const candidates = [new URL("./client/", import.meta.url), new URL("../src/client/", import.meta.url)];
  const found = candidates.find((dir) => existsSync(new URL("main.tsx", dir)));
  if (!found)
    throw new Error(
      "@graphplan/viewer: the page's sources (src/client/main.tsx) are missing from the installed package",
    );
  return fileURLToPath(found);
}

interface Bundle {
  readonly js: string;
  readonly css: string;
}

let bundled: Promise<Bundle> | undefined;

/** The page's script and style sheet, built once per process (~0.3 s) and kept in memory. */
export function pageBundle(): Promise<Bundle> {
  bundled ??= (async () => {
    const dir = clientDir();
    const result = await build({
      entryPoints: [`${dir}main.tsx`, `${dir}style.css`],
      bundle: true,
      write: false,
      minify: true,
      format: "esm",
      target: "es2022",
      jsx: "automatic",
      jsxImportSource: "preact",
      outdir: "/page",
      logLevel: "silent",
    });
    const text = (ext: string) => result.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? "";
    return { js: text(".js"), css: text(".css") };
  })();
  bundled.catch(() => {
    bundled = undefined;
  });
  return bundled;
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphPlan run</title>
<link rel="stylesheet" href="/app.css">
</head>
<body>
<div id="app"></div>
<script type="module" src="/app.js"></script>
</body>
</html>
`;

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": `${type}; charset=utf-8`, "cache-control": "no-store" });
  res.end(body);
}

/**
 * A `bench compare` directory: its `compare.json` (read again on every request: a running comparison
 * grows) and a reader per arm (`DIR/<label>/`), for the arms the report names only.
 */
class Comparison {
  readonly #arms = new Map<string, Promise<RunReader>>();
  constructor(private readonly dir: string) {}

  async report(): Promise<CompareReport | undefined> {
    const text = await readFile(join(this.dir, "compare.json"), "utf8").catch(() => undefined);
    if (text === undefined) return undefined;
    try {
      const parsed = CompareReportSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  async arm(label: string): Promise<RunReader | undefined> {
    const report = await this.report();
    if (!report?.spec.arms.some((a) => a.label === label)) return undefined;
    let reader = this.#arms.get(label);
    if (!reader) {
      reader = RunReader.open(join(this.dir, label));
      this.#arms.set(label, reader);
      reader.catch(() => this.#arms.delete(label));
    }
    return reader.catch(() => undefined);
  }
}

const json = (res: ServerResponse, value: unknown) => send(res, 200, "application/json", JSON.stringify(value));
const missing = (res: ServerResponse, error: string) => send(res, 404, "application/json", JSON.stringify({ error }));

async function handle(
  reader: RunReader,
  comparison: Comparison | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? "/", "http://viewer");
  if (req.method !== "GET") return send(res, 405, "text/plain", "GET only\n");
  if (url.pathname === "/") return send(res, 200, "text/html", PAGE);
  if (url.pathname === "/favicon.ico") return void res.writeHead(204).end();
  if (url.pathname === "/app.js") return send(res, 200, "text/javascript", (await pageBundle()).js);
  if (url.pathname === "/app.css") return send(res, 200, "text/css", (await pageBundle()).css);
  if (url.pathname === "/api/run") return send(res, 200, "application/json", JSON.stringify(await reader.index()));
  if (url.pathname === "/api/compare") {
    const report = await comparison?.report();
    return report ? json(res, report) : missing(res, "this directory holds no bench compare report");
  }
  const armInstance = /^\/api\/arm\/([^/]+)\/instance\/([^/]+)$/.exec(url.pathname);
  if (armInstance) {
    const arm = await comparison?.arm(decodeURIComponent(armInstance[1]!));
    const detail = await arm?.instance(decodeURIComponent(armInstance[2]!));
    return detail ? json(res, detail) : missing(res, "no such arm or instance in this comparison");
  }
  const instance = /^\/api\/instance\/([^/]+)$/.exec(url.pathname);
  if (instance) {
    const detail = await reader.instance(decodeURIComponent(instance[1]!));
    return detail
      ? send(res, 200, "application/json", JSON.stringify(detail))
      : send(res, 404, "application/json", JSON.stringify({ error: "no such instance in this run" }));
  }
  send(res, 404, "text/plain", "not found\n");
}

/**
 * Opens the run and serves the page on `host:port`. Fails with `RunNotFound` / `NotARun` for a bad
 * path and `PortUnavailable` when it cannot listen; the page's bundle is built before it resolves, so
 * the first request is answered at once.
 */
export async function serveRun(options: ServeOptions): Promise<RunningViewer> {
  const host = options.host ?? "127.0.0.1";
  const reader = await RunReader.open(options.path);
  const comparison = reader.isFile ? undefined : new Comparison(reader.path);
  await pageBundle();
  const server = createServer((req, res) => {
    handle(reader, comparison, req, res).catch((error: unknown) =>
      send(res, 500, "text/plain", `${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(new PortUnavailable({ host, port: options.port, detail: error.code ?? error.message })),
    );
    server.listen(options.port, host, () => resolveListen());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/`,
    reader,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
