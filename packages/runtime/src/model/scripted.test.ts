import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { type ChatMessage, LanguageModel, ScriptedModel } from "./model.js";

const conversation = (model: ScriptedModel | readonly string[], turns: readonly ChatMessage[][]) =>
  Effect.gen(function* () {
    const lm = yield* LanguageModel;
    const replies: string[] = [];
    for (const messages of turns) replies.push((yield* lm.complete(messages)).content);
    return { name: lm.name, replies };
  }).pipe(Effect.provide(LanguageModel.layerScripted(model)));

const user = (content: string): ChatMessage[] => [{ role: "user", content }];

describe("ScriptedModel", () => {
  it("answers with the script's replies in order, and a function reply sees the conversation", async () => {
    const model = new ScriptedModel(["first", (messages) => `you said ${messages.at(-1)?.content}`, "third"]);
    const result = await Effect.runPromise(conversation(model, [user("a"), user("b"), user("c")]));
    expect(result).toEqual({ name: "scripted:model", replies: ["first", "you said b", "third"] });
    expect(model.used).toBe(3);
  });

  it("records a copy of every conversation it was sent", async () => {
    const model = new ScriptedModel(["one", "two"]);
    const first: ChatMessage[] = [
      { role: "system", content: "be brief" },
      { role: "user", content: "hi" },
    ];
    await Effect.runPromise(
      conversation(model, [
        first,
        [...first, { role: "assistant", content: "one" }, { role: "user", content: "again" }],
      ]),
    );
    first[1] = { role: "user", content: "changed afterwards" };
    expect(model.requests).toEqual([
      [
        { role: "system", content: "be brief" },
        { role: "user", content: "hi" },
      ],
      [
        { role: "system", content: "be brief" },
        { role: "user", content: "hi" },
        { role: "assistant", content: "one" },
        { role: "user", content: "again" },
      ],
    ]);
  });

  it("fails with ModelScriptExhausted when asked past the end, naming the count and the last message, and still records it", async () => {
    const model = new ScriptedModel(["only"]);
    const error = await Effect.runPromise(
      Effect.flip(conversation(model, [user("a"), user("the unanswered question")])),
    );
    expect(error._tag).toBe("ModelScriptExhausted");
    if (error._tag !== "ModelScriptExhausted") return;
    expect(error.calls).toBe(1);
    expect(error.lastMessage).toBe("the unanswered question");
    expect(error.message).toContain("add replies to the script");
    expect(model.requests).toHaveLength(2);
    expect(model.used).toBe(1);
  });

  it("can be given as a plain list of replies", async () => {
    const result = await Effect.runPromise(conversation(["x", "y"], [user("1"), user("2")]));
    expect(result.replies).toEqual(["x", "y"]);
  });
});
