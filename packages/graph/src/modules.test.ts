import { describe, expect, it } from "vitest";
import { moduleMayDenote } from "./index.js";

describe("moduleMayDenote", () => {
  it("resolves Python dotted and relative modules and JS/TS relative specifiers, nothing else", () => {
    expect(moduleMayDenote("shop.pricing", "check.py", "src/shop/pricing.py")).toBe(true);
    expect(moduleMayDenote("shop", "check.py", "shop/__init__.py")).toBe(true);
    expect(moduleMayDenote("..pricing", "shop/sub/a.py", "shop/pricing.py")).toBe(true);
    expect(moduleMayDenote(".pricing", "shop/sub/a.py", "shop/pricing.py")).toBe(false);
    expect(moduleMayDenote("pricing", "a.py", "shop/xpricing.py")).toBe(false);
    expect(moduleMayDenote("./lib/index.js", "src/a.ts", "src/lib/index.ts")).toBe(true);
    expect(moduleMayDenote("./lib", "src/a.ts", "src/lib/index.tsx")).toBe(true);
    expect(moduleMayDenote("lib", "src/a.ts", "src/lib.ts")).toBe(false);
    expect(moduleMayDenote("pricing", "main.go", "pricing.go")).toBe(false);
  });
});
