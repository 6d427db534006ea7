// Worker threads do not inherit tsx's loader on node 20: register it here, then load the
// TypeScript worker (with the "source" condition, so @graphplan/graph resolves to its src/).
import { register } from "tsx/esm/api";

register();
await import("./worker.ts");
