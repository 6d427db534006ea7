/**
 * `graphplan view PATH`: serves a local page to look at a run — a `bench agent` / `bench run`
 * output directory, a `bench eval` run, a `graphplan run --output` directory or one trajectory
 * file — until Ctrl-C. Prints the address; opens nothing by itself. See @graphplan/viewer.
 */
import { InvalidArgumentError, type Command } from "commander";
import { NotARun, PortUnavailable, RunNotFound, serveRun, type RunningViewer } from "@graphplan/viewer";

/** The port tried when none is given; when it is taken, any free one. */
export const DEFAULT_VIEW_PORT = 4777;

interface ViewOptions {
  port?: number;
  host: string;
}

function portNumber(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new InvalidArgumentError("a port is a whole number from 0 to 65535 (0: any free port)");
  return port;
}

/** The viewer's errors that are bad input (exit code 2, one line): no run at the path, a port that cannot be had. */
const isViewInputError = (error: unknown): error is RunNotFound | NotARun | PortUnavailable =>
  error instanceof RunNotFound || error instanceof NotARun || error instanceof PortUnavailable;

export function viewCommand(program: Command): void {
  const command = program
    .command("view")
    .description(
      "serve a local page to look at a run: its instances, and each one's phases, messages, plan versions with the verifier's issues, diff and tests",
    )
    .argument(
      "<path>",
      "a bench agent / bench run / bench eval output directory, a graphplan run --output directory, or a trajectory.json",
    )
    .option(
      "--port <n>",
      `the port (default ${DEFAULT_VIEW_PORT}, or any free one when it is taken; 0: any free one)`,
      portNumber,
    )
    .option(
      "--host <address>",
      "the address to listen on (the page shows the run's code and prompts: keep it local unless you mean to share it)",
      "127.0.0.1",
    );
  command.action(async (path: string, options: ViewOptions) => {
    let viewer: RunningViewer;
    try {
      viewer = await serveRun({ path, port: options.port ?? DEFAULT_VIEW_PORT, host: options.host }).catch(
        (error: unknown) =>
          // The default port is only a preference: when it is taken, take any.
          options.port === undefined && error instanceof PortUnavailable
            ? serveRun({ path, port: 0, host: options.host })
            : Promise.reject(error),
      );
    } catch (error) {
      if (isViewInputError(error)) command.error(`graphplan view: ${error.message}`, { exitCode: 2 });
      throw error;
    }
    const rows = (await viewer.reader.index()).rows.length;
    process.stdout.write(
      `graphplan view: ${rows} instance(s) of ${viewer.reader.path} at ${viewer.url} (Ctrl-C to stop)\n`,
    );
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        void viewer.close().then(resolve);
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
  });
}
