/**
 * Key locators: `{"kind": "key", "name": "tool.pytest.ini_options.addopts", "file": "pyproject.toml"}`
 * names a value of a data file (JSON, YAML, TOML) by its key path, resolved against the file's
 * model (`parseData` of @graphplan/graph).
 *
 * The key path: segments separated by `.`; a segment is a bare key (any characters but `.`,
 * `[`, `]` and quotes: `line-length`, `@types/node`), or a quoted key for keys that hold those
 * (`tool."setuptools.packages"`, `'a.b'`; double quotes take JSON escapes); each segment may be
 * followed by item indices, `jobs.test.steps[2]`, `matrix.include[-1]` (negative: from the end).
 * A path may start with an index when the file's top level is a list (`[0].name`).
 */
import { distance } from "fastest-levenshtein";
import {
  TaggedError,
  type DataEntry,
  type DataItem,
  type DataMapping,
  type DataNode,
  type DataSequence,
} from "@graphplan/graph";
import { z } from "zod";

export type KeySegment = { readonly key: string } | { readonly index: number };

/** A key locator: a data file's value by key path. */
export const KeyLocatorSchema = z
  .strictObject({
    kind: z.literal("key"),
    name: z
      .string()
      .min(1)
      .describe(
        'Key path: dotted keys, quoted where a key holds a dot (tool."setuptools.packages"), list items by index (jobs.test.steps[2])',
      ),
    file: z.string().min(1).describe("Path of the JSON, YAML or TOML file, relative to the workspace root"),
  })
  .describe("Key locator: a value of a JSON, YAML or TOML file by its key path");
export type KeyLocator = z.infer<typeof KeyLocatorSchema>;

/** The key path is not written as one (an unclosed quote, an index that is not a number...). */
export class KeyPathInvalid extends TaggedError("KeyPathInvalid") {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(
      `The key path ${JSON.stringify(path)} is not valid: ${reason}. Write keys separated by dots, quote a key that holds a dot (tool."setuptools.packages"), and index list items as steps[2].`,
    );
  }
}

/** A segment of the key path names nothing. */
export class KeyNotFound extends TaggedError("KeyNotFound") {
  constructor(
    readonly file: string,
    readonly path: string,
    /** The part of the path that exists (`""` for the top level). */
    readonly found: string,
    /** What is missing there: a key, or why an index or key cannot be read. */
    readonly missing: string,
    /** The nearest keys of the mapping where the path stopped (closest first). */
    readonly nearest: readonly string[],
  ) {
    const where = found ? `under ${found}` : "at the top level";
    const hint = nearest.length ? ` Nearest keys ${where}: ${nearest.join(", ")}.` : "";
    super(`No key ${JSON.stringify(path)} in ${file}: ${missing} ${where}.${hint}`);
  }
}

const BARE = /^[^.[\]"']+/;

/** The segments of a key path (see the module comment); throws {@link KeyPathInvalid}. */
export function parseKeyPath(path: string): KeySegment[] {
  const out: KeySegment[] = [];
  let i = 0;
  let expectKey = !path.startsWith("[");
  while (i < path.length) {
    if (expectKey) {
      const quote = path[i];
      if (quote === '"' || quote === "'") {
        const close = findClose(path, i, quote);
        if (close < 0) throw new KeyPathInvalid(path, `the quote at ${i + 1} is not closed`);
        const body = path.slice(i + 1, close);
        out.push({ key: quote === '"' ? unquote(path, body) : body });
        i = close + 1;
      } else {
        const bare = BARE.exec(path.slice(i));
        if (!bare) throw new KeyPathInvalid(path, i === 0 ? "it starts with no key" : `a key is missing at ${i + 1}`);
        out.push({ key: bare[0] });
        i += bare[0].length;
      }
    }
    while (path[i] === "[") {
      const close = path.indexOf("]", i);
      const text = close < 0 ? "" : path.slice(i + 1, close).trim();
      if (!/^-?\d+$/.test(text))
        throw new KeyPathInvalid(
          path,
          `an index is a whole number between brackets, as in steps[2]; got ${JSON.stringify(path.slice(i, close < 0 ? undefined : close + 1))}`,
        );
      out.push({ index: Number(text) });
      i = close + 1;
    }
    if (i >= path.length) break;
    if (path[i] !== ".")
      throw new KeyPathInvalid(path, `expected "." or "[" at ${i + 1}, got ${JSON.stringify(path[i])}`);
    i++;
    if (i >= path.length) throw new KeyPathInvalid(path, "it ends with a dot");
    expectKey = true;
  }
  if (out.length === 0) throw new KeyPathInvalid(path, "it is empty");
  return out;
}

function findClose(path: string, open: number, quote: string): number {
  for (let j = open + 1; j < path.length; j++) {
    if (quote === '"' && path[j] === "\\") j++;
    else if (path[j] === quote) return j;
  }
  return -1;
}

function unquote(path: string, body: string): string {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    throw new KeyPathInvalid(path, `the quoted key "${body}" has an escape JSON does not know`);
  }
}

/** A key path written back: bare keys where they can be, quoted otherwise. */
export function formatKeyPath(segments: readonly KeySegment[]): string {
  let out = "";
  for (const segment of segments) {
    if ("index" in segment) out += `[${segment.index}]`;
    else out += `${out ? "." : ""}${/^[^.[\]"']+$/.test(segment.key) ? segment.key : JSON.stringify(segment.key)}`;
  }
  return out;
}

/** One segment of a path, resolved: the container it was read in and what it found there. */
export interface KeyStep {
  readonly segment: KeySegment;
  readonly parent: DataMapping | DataSequence;
  /** The mapping entry, for a key. */
  readonly entry?: DataEntry;
  /** The list item and its index (from the start), for an index. */
  readonly item?: DataItem;
  readonly index?: number;
  readonly node: DataNode;
}

/** How far a path goes into a file: the steps that exist, and the segments after them. */
export interface KeyWalk {
  readonly steps: readonly KeyStep[];
  readonly rest: readonly KeySegment[];
  /** Where the rest would start: the value of the last step, or the top level. */
  readonly container: DataNode | undefined;
}

/** Follows `segments` from `root` as far as they exist. */
export function walkKeyPath(root: DataNode | undefined, segments: readonly KeySegment[]): KeyWalk {
  const steps: KeyStep[] = [];
  let node = root;
  for (const [i, segment] of segments.entries()) {
    const step = node ? stepInto(node, segment) : undefined;
    if (!step) return { steps, rest: segments.slice(i), container: node };
    steps.push(step);
    node = step.node;
  }
  return { steps, rest: [], container: node };
}

function stepInto(node: DataNode, segment: KeySegment): KeyStep | undefined {
  if ("key" in segment) {
    if (node.type !== "mapping") return undefined;
    const entry = node.entries.find((e) => e.key === segment.key);
    return entry ? { segment, parent: node, entry, node: entry.value } : undefined;
  }
  if (node.type !== "sequence") return undefined;
  const index = segment.index < 0 ? node.items.length + segment.index : segment.index;
  const item = node.items[index];
  return item ? { segment, parent: node, item, index, node: item.value } : undefined;
}

/** The value a key path names; throws {@link KeyNotFound} naming the nearest keys where it stopped. */
export function resolveKeyPath(
  root: DataNode | undefined,
  file: string,
  path: string,
): KeyWalk & { readonly node: DataNode; readonly last: KeyStep } {
  const segments = parseKeyPath(path);
  const walk = walkKeyPath(root, segments);
  if (walk.rest.length > 0) throw keyNotFound(walk, file, path, segments);
  return { ...walk, node: walk.container!, last: walk.steps[walk.steps.length - 1]! };
}

/** The {@link KeyNotFound} of a walk that stopped before the end of its path. */
export function keyNotFound(walk: KeyWalk, file: string, path: string, segments: readonly KeySegment[]): KeyNotFound {
  const found = formatKeyPath(segments.slice(0, walk.steps.length));
  const segment = walk.rest[0]!;
  const node = walk.container;
  const nearest =
    node?.type === "mapping"
      ? nearestKeys(
          "key" in segment ? segment.key : "",
          node.entries.map((e) => e.key),
        )
      : [];
  let missing: string;
  if (!node) missing = "the file is empty";
  else if ("key" in segment)
    missing =
      node.type === "mapping"
        ? `there is no key ${JSON.stringify(segment.key)}`
        : `${describe(node)} has no keys (${JSON.stringify(segment.key)} asked)`;
  else
    missing =
      node.type === "sequence"
        ? `index ${segment.index} is out of range (the list has ${node.items.length} item${node.items.length === 1 ? "" : "s"})`
        : `${describe(node)} is not a list (index ${segment.index} asked)`;
  return new KeyNotFound(file, path, found, missing, nearest);
}

function describe(node: DataNode): string {
  if (node.type === "mapping") return "a mapping";
  if (node.type === "sequence") return "a list";
  return `the ${node.value === null ? "null" : typeof node.value} ${JSON.stringify(node.value)}`;
}

/** Up to 5 of `keys`, nearest to `key` first (edit distance; keys that contain it or start alike first). */
export function nearestKeys(key: string, keys: readonly string[], limit = 5): string[] {
  const lower = key.toLowerCase();
  const score = (k: string): number => {
    const kl = k.toLowerCase();
    if (kl === lower) return -2;
    if (lower && (kl.includes(lower) || lower.includes(kl))) return -1;
    return distance(lower, kl);
  };
  return [...new Set(keys)]
    .map((k) => [k, score(k)] as const)
    .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([k]) => k);
}
