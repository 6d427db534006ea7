/**
 * The JSON Schema of a tool's arguments as clients see it, and the arguments as clients send them. Clients
 * get standard JSON Schema only (the catalog's `x-param`/`x-code` keywords and zod's safe-integer bounds
 * left out, `$defs` nothing refers to dropped), and every property has a top-level `type`: a client such as
 * the MCP Inspector sends an argument without one as a JSON string. Such a string, for an object or an
 * array, is parsed here, and the answer says so.
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);

/** Keywords whose value maps names to subschemas (the names are not keywords). */
const NAME_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);
/** Keywords whose value is data, not schema: kept as they are. */
const DATA = new Set(["default", "const", "enum", "examples"]);

/** `schema` without nonstandard `x-*` keywords and without the ±2^53−1 bounds zod gives every integer. */
export function standardKeywords(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(standardKeywords);
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith("x-")) continue;
    if (key === "minimum" && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
    out[key] = DATA.has(key)
      ? value
      : NAME_MAPS.has(key) && isObject(value)
        ? Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, standardKeywords(sub)]))
        : standardKeywords(value);
  }
  return out;
}

/** Every `#/$defs/NAME` that `value` refers to. */
function refsIn(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const v of value) refsIn(v, into);
  else if (isObject(value))
    for (const [key, v] of Object.entries(value)) {
      if (key === "$ref" && typeof v === "string" && v.startsWith("#/$defs/")) into.add(v.slice("#/$defs/".length));
      else refsIn(v, into);
    }
  return into;
}

/** `schema` with only the `$defs` its properties reach (none: no `$defs`). */
export function reachableDefs(schema: Json): Json {
  const { $defs, ...rest } = schema as { $defs?: Json };
  if (!$defs) return rest;
  const reached = refsIn(rest, new Set());
  for (let size = -1; size !== reached.size; ) {
    size = reached.size;
    for (const name of [...reached]) refsIn($defs[name], reached);
  }
  const kept = Object.fromEntries(Object.entries($defs).filter(([name]) => reached.has(name)));
  return Object.keys(kept).length > 0 ? { ...rest, $defs: kept } : rest;
}

/**
 * `args` with each JSON string given for an object or array property (`types`: the listed schema's
 * property types) parsed, and a note per parsed property. A string that is not JSON stays as it came: the
 * arguments' schema then says what was expected.
 */
export function parseJsonStrings(
  args: Json,
  types: Readonly<Record<string, unknown>>,
): { args: Json; parsed: string[] } {
  const out: Json = { ...args };
  const parsed: string[] = [];
  for (const [name, value] of Object.entries(args)) {
    if (typeof value !== "string" || (types[name] !== "object" && types[name] !== "array")) continue;
    let json: unknown;
    try {
      json = JSON.parse(value);
    } catch {
      continue;
    }
    if (json === null || typeof json !== "object") continue;
    out[name] = json;
    parsed.push(name);
  }
  return { args: out, parsed };
}
