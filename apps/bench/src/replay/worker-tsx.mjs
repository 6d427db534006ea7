// Worker bootstrap when running from TypeScript sources (tsx): worker threads do not inherit the
// main thread's module hooks, so register tsx here, then load the worker.
import { register } from "tsx/esm/api";

register();
await import("./worker.ts");
