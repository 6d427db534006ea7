/** hostStream: a host process streamed into a consumer (how a repository bundle reaches a build container). */
import type { Readable } from "node:stream";
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { hostStream } from "./build.js";

/** A consumer that reads the stream to its end and is done then, as putArchive is when the engine answers. */
const drain = (sink: string[]) => (stdout: Readable) =>
  Effect.promise(
    () =>
      new Promise<void>((resolve) => {
        stdout.on("data", (chunk: Buffer) => sink.push(chunk.toString("utf8")));
        stdout.on("end", () => resolve());
      }),
  );

describe("hostStream", () => {
  it("succeeds when the process exits 0 after its output has ended (it is waited for, not killed)", async () => {
    const sink: string[] = [];
    // The output ends (stdout closed) well before the process exits: the race a loaded machine hits with tar.
    const argv = ["sh", "-c", "printf bundle; exec >&-; sleep 0.3; exit 0"];
    await Effect.runPromise(hostStream(argv, "img", "copy", drain(sink)));
    expect(sink.join("")).toBe("bundle");
  });

  it("fails with the exit code and stderr when the process fails, and kills it when the consumer fails", async () => {
    const failed = await Effect.runPromise(
      Effect.flip(hostStream(["sh", "-c", "echo oops >&2; exit 3"], "img", "copy", drain([]))),
    );
    expect(failed.message).toMatch(/exited 3: oops/);
    const started = Date.now();
    const consumerFailed = await Effect.runPromise(
      Effect.flip(hostStream(["sleep", "30"], "img", "copy", () => Effect.fail(new Error("engine gone")))),
    );
    expect(consumerFailed).toMatchObject({ message: "engine gone" });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
