/** The Docker API's multiplexed exec stream, split into stdout and stderr frames however the bytes arrive. */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { demultiplex } from "./docker.js";

const frame = (kind: number, text: string | Buffer): Buffer => {
  const payload = typeof text === "string" ? Buffer.from(text) : text;
  const header = Buffer.alloc(8);
  header.writeUInt8(kind, 0);
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
};

/** Feeds `bytes` to demultiplex in chunks of `size` and answers what it wrote, in order. */
function split(bytes: Buffer, size: number): Array<[number, string]> {
  const stream = new PassThrough();
  const out: Array<[number, string]> = [];
  demultiplex(stream, (kind, payload) => out.push([kind, payload.toString("latin1")]));
  for (let at = 0; at < bytes.length; at += size) stream.write(bytes.subarray(at, at + size));
  return out;
}

describe("demultiplex", () => {
  const big = Buffer.alloc(300_000, 7);
  const bytes = Buffer.concat([
    frame(1, "out one\n"),
    frame(2, "err\n"),
    frame(0, "stdin echo"),
    frame(1, ""),
    frame(1, big),
    frame(2, "last"),
  ]);
  const expected: Array<[number, string]> = [
    [1, "out one\n"],
    [2, "err\n"],
    [1, ""],
    [1, big.toString("latin1")],
    [2, "last"],
  ];

  it("gives every stdout and stderr frame whole and in order, whatever the chunks (stdin frames dropped)", () => {
    for (const size of [1, 3, 7, 8, 9, 64, 1000, 65_536, bytes.length]) expect(split(bytes, size)).toEqual(expected);
  });

  it("passes a stream that is not multiplexed (a TTY) through as stdout", () => {
    const text = Buffer.from("plain output, no frame headers\n".repeat(3));
    const out = split(text, 10);
    expect(out.every(([kind]) => kind === 1)).toBe(true);
    expect(out.map(([, t]) => t).join("")).toBe(text.toString("latin1"));
  });
});
