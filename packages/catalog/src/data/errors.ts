/** Tagged errors of the data steps (set_key, delete_key, append_item). Each says what to do instead. */
import { errorGuard, TaggedError, type DataFormat, type DataSyntaxError } from "@graphplan/graph";

const where = (errors: readonly DataSyntaxError[]): string =>
  errors
    .slice(0, 3)
    .map((e) => `line ${e.line}:${e.column} ${e.message}`)
    .join("; ");

/** The step's file is not a JSON, YAML or TOML file. */
export class NotADataFile extends TaggedError("NotADataFile") {
  constructor(
    readonly file: string,
    readonly op: string,
  ) {
    super(
      `${op} edits JSON, YAML and TOML files (.json, .yaml, .yml, .toml); ${file} is none of them. Edit it with the text steps or the code operators.`,
    );
  }
}

/** The file does not read as its format before the step: the step cannot know its keys. */
export class DataFileUnparsable extends TaggedError("DataFileUnparsable") {
  constructor(
    readonly file: string,
    readonly format: DataFormat,
    readonly errors: readonly DataSyntaxError[],
  ) {
    super(
      `${file} is not valid ${format.toUpperCase()} before this step (${where(errors)}); nothing was changed. Fix or rewrite the file with a text step first.`,
    );
  }
}

/** The value cannot be written in the file's format (null in TOML, a list item where a key is needed...). */
export class ValueNotWritable extends TaggedError("ValueNotWritable") {
  constructor(
    readonly file: string,
    readonly format: DataFormat,
    readonly path: string,
    readonly reason: string,
  ) {
    super(`Cannot write ${path} in ${file} (${format.toUpperCase()}): ${reason}.`);
  }
}

/** The edited file would not read as its format, or would not hold the intended value; nothing was written. */
export class DataEditBrokeFile extends TaggedError("DataEditBrokeFile") {
  constructor(
    readonly op: string,
    readonly file: string,
    readonly path: string,
    readonly detail: string,
  ) {
    super(
      `${op} of ${path} would leave ${file} ${detail}; the file is unchanged. Write the value differently, or rewrite the section with a text step.`,
    );
  }
}

export type DataStepError = NotADataFile | DataFileUnparsable | ValueNotWritable | DataEditBrokeFile;
export const isDataStepError = errorGuard(NotADataFile, DataFileUnparsable, ValueNotWritable, DataEditBrokeFile);

export { where as syntaxSummary };
