/** What the summaries of every `bench` command are made of: a quantile of figures, and rows as a text table. */

/** The value at quantile `q` (nearest rank) of an ascending list. */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}

/** Rows of `key  value`, the keys padded to one width: the summaries the CLI prints. */
export function table(rows: ReadonlyArray<readonly [string, string]>): string {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join("\n");
}

/** Instances grouped by cause as rows of {@link table}, the largest group first: its size and its first five ids. */
export function causeRows(groups: Readonly<Record<string, readonly string[]>>): Array<readonly [string, string]> {
  return Object.entries(groups)
    .sort((a, b) => b[1].length - a[1].length)
    .map(([cause, ids]) => [
      `  ${cause}`,
      `${ids.length}  ${ids.slice(0, 5).join(", ")}${ids.length > 5 ? ", ..." : ""}`,
    ]);
}
