/**
 * What the compiler's suggesters see of one change and what they return: the one interface between
 * the search in `compile.ts` and the higher-tier candidates of `suggest.ts` (kept apart so that
 * neither imports the other).
 */
import type { LanguageId } from "@graphplan/graph";
import type { Edit, Step } from "@graphplan/primitives";
import type { Node, Tree } from "web-tree-sitter";
import type { locatorsFor } from "./locate.js";
import type { Change } from "./treediff.js";

/** What a suggester sees of one change. */
export interface ChangeView {
  readonly file: string;
  readonly language: LanguageId;
  /** Text before the change (after the earlier steps), its tree, and the text the change must produce. */
  readonly source: string;
  readonly tree: Tree;
  readonly expected: string;
  readonly change: Change;
  /** The changed node (replace) or the splice's parent, in `tree`. */
  readonly node: Node | undefined;
  readonly prev: Node | undefined;
  readonly next: Node | undefined;
  readonly removed: readonly Node[];
  /** Post-image texts of the added siblings (splice) or the node's new text (replace). */
  readonly added: readonly string[];
  readonly post: string;
  readonly postTree: Tree;
  /** The change's range in `source` and the text that replaces it (`expected` = source with it replaced). */
  readonly range: { readonly start: number; readonly end: number };
  readonly text: string;
  readonly locate: (node: Node) => ReturnType<typeof locatorsFor>;
}

/** Candidate steps (each one alone must produce `expected`), best first. */
export type Suggester = (view: ChangeView) => Candidate[];

/** A candidate step, with the edits the engine is expected to make (a cheap filter before running it). */
export interface Candidate {
  readonly step: Step;
  readonly form: string;
  readonly variant?: string;
  readonly predicted?: readonly Edit[];
}
