/**
 * What a tier 1/2/3 step sees: the plan's files as text with their trees, and locators
 * resolved against them. Inside `runPlan` the trees are the run's (HandlerContext); standalone,
 * the workspace parses and frees them. Edits of one step refer to the texts the step started
 * from. Pure: no fs.
 */
import {
  dataFormatOf,
  detectFileLanguage,
  parse,
  syntaxErrors,
  withTree,
  type LanguageId,
  type Node,
  type Tree,
  TaggedError,
} from "@graphplan/graph";
import { resolveOne } from "@graphplan/locators";
import {
  applyEdits,
  errorSpans,
  newSyntaxErrors,
  FileNotInPlan,
  type Edit,
  type HandlerContext,
  type ParsedDoc,
} from "@graphplan/primitives";

/** File path → text; a Map or a plain object. */
export type Files = ReadonlyMap<string, string> | Readonly<Record<string, string>>;

export function fileMap(files: Files): Map<string, string> {
  return files instanceof Map ? new Map(files) : new Map(Object.entries(files as Record<string, string>));
}

/** The file is not a language the operator supports. */
export class LanguageNotSupported extends TaggedError("LanguageNotSupported") {
  constructor(
    readonly file: string,
    readonly op: string,
    readonly language: LanguageId | undefined,
    readonly supported: readonly LanguageId[],
  ) {
    super(`${op} does not support ${language ?? "this kind of file"} (${file}); it supports ${supported.join(", ")}.`);
  }
}

/** The operator's own precondition failed (not a locator or parameter problem); says what to do instead. */
export class TransformRejected extends TaggedError("TransformRejected") {
  constructor(
    readonly op: string,
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${op} on ${file}: ${reason}`);
  }
}

/** The transform's result does not parse; nothing was changed. */
export class TransformBrokeSyntax extends TaggedError("TransformBrokeSyntax") {
  constructor(
    readonly op: string,
    readonly file: string,
    readonly errors: readonly { line: number; column: number; kind: string; text: string }[],
  ) {
    super(
      `${op} would leave ${file} with syntax errors (${errors
        .slice(0, 3)
        .map(
          (e) =>
            `line ${e.line}:${e.column + 1} ${e.kind === "MISSING" ? `missing ${e.text}` : `unexpected ${JSON.stringify(e.text)}`}`,
        )
        .join("; ")}); the file is unchanged. Check the code parameters.`,
    );
  }
}

export interface Target {
  readonly file: string;
  readonly source: string;
  readonly language: LanguageId;
  readonly tree: Tree;
  readonly node: Node;
}

/** Where documents come from: a runPlan HandlerContext, or plain files. */
interface Docs {
  /** Every file there is: the run's files (a verification sees the whole workspace, an execution the plan's files). */
  paths(): readonly string[];
  source(file: string): string;
  language(file: string): LanguageId;
  parsed(file: string): ParsedDoc;
  dispose(): void;
}

function contextDocs(ctx: HandlerContext): Docs {
  return {
    paths: () => ctx.files,
    source: (f) => ctx.source(f),
    language: (f) => ctx.language(f),
    parsed: (f) => ctx.parsed(f),
    dispose: () => undefined,
  };
}

function fileDocs(files: Map<string, string>): Docs {
  const trees = new Map<string, Tree>();
  const source = (file: string): string => {
    const text = files.get(file);
    if (text === undefined) throw new FileNotInPlan(file, [...files.keys()]);
    return text;
  };
  // By extension; a `.h` header by its text (C or C++), decided on first use.
  const languages = new Map<string, LanguageId | undefined>();
  const language = (file: string): LanguageId => {
    if (!languages.has(file)) languages.set(file, detectFileLanguage(file, source(file)));
    const id = languages.get(file);
    if (!id) throw new LanguageNotSupported(file, "this step", undefined, []);
    return id;
  };
  return {
    paths: () => [...files.keys()],
    source,
    language,
    parsed(file) {
      let tree = trees.get(file);
      if (!tree) {
        tree = parse(source(file), language(file));
        trees.set(file, tree);
      }
      return { path: file, source: source(file), language: language(file), tree };
    },
    dispose() {
      for (const tree of trees.values()) tree.delete();
      trees.clear();
    },
  };
}

/** The documents of one step. Call {@link Workspace.dispose} when done. */
export class Workspace {
  private readonly docs: Docs;

  constructor(from: Files | HandlerContext) {
    this.docs = isContext(from) ? contextDocs(from) : fileDocs(fileMap(from));
  }

  /** Every file of the run: the whole workspace when verifying, the plan's files when executing. */
  paths(): readonly string[] {
    return this.docs.paths();
  }

  source(file: string): string {
    return this.docs.source(file);
  }

  /** The file's language; with `supported`, throws {@link LanguageNotSupported} for any other. */
  language(file: string, op = "this operator", supported?: readonly LanguageId[]): LanguageId {
    const language = this.docs.language(file);
    if (supported && !supported.includes(language)) throw new LanguageNotSupported(file, op, language, supported);
    return language;
  }

  tree(file: string): Tree {
    return this.docs.parsed(file).tree;
  }

  doc(file: string): ParsedDoc {
    return this.docs.parsed(file);
  }

  /** The one node a locator names (LocatorNotFound / LocatorAmbiguous otherwise). */
  one(locator: unknown): Target {
    const doc = this.docs.parsed(fileOf(locator));
    return {
      file: doc.path,
      source: doc.source,
      language: doc.language,
      tree: doc.tree,
      node: resolveOne(doc.tree, doc.source, doc.language, locator),
    };
  }

  dispose(): void {
    this.docs.dispose();
  }
}

const isContext = (value: unknown): value is HandlerContext =>
  !!value &&
  typeof value === "object" &&
  typeof (value as HandlerContext).parsed === "function" &&
  typeof (value as HandlerContext).run === "function";

function fileOf(locator: unknown): string {
  const file = locator && typeof locator === "object" ? (locator as { file?: unknown }).file : undefined;
  if (typeof file !== "string" || file === "") {
    // resolveOne would say the same; say it before parsing anything.
    throw new TransformRejected("locator", "(no file)", `the locator ${JSON.stringify(locator)} has no "file"`);
  }
  return file;
}

/** Edits grouped by file. */
export type FileEdits = Map<string, Edit[]>;

export function addEdit(edits: FileEdits, file: string, ...more: Edit[]): void {
  const list = edits.get(file) ?? [];
  list.push(...more);
  edits.set(file, list);
}

/**
 * Applies a step's edits to the workspace texts (outside runPlan) and checks each result adds
 * no syntax error. Returns the changed files' new texts; throws {@link TransformBrokeSyntax}.
 */
export function commitEdits(ws: Workspace, edits: FileEdits, op: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [file, list] of edits) {
    if (list.length === 0) continue;
    if (dataFormatOf(file)) {
      // A data step read its result back with the format's own reader (data/edit.ts): no tree to check here.
      const after = applyEdits(ws.source(file), list);
      if (after !== ws.source(file)) out.set(file, after);
      continue;
    }
    const doc = ws.doc(file);
    const after = applyEdits(doc.source, list);
    withTree(after, doc.language, (tree) => {
      if (tree.rootNode.hasError) {
        const introduced = newSyntaxErrors(errorSpans(doc.tree), errorSpans(tree), list);
        if (introduced.length > 0)
          throw new TransformBrokeSyntax(op, file, introduced.length ? introduced : syntaxErrors(tree));
      }
    });
    if (after !== doc.source) out.set(file, after);
  }
  return out;
}
