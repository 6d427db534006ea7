/**
 * One progress display for the whole comparison: every arm's two stages (agent, eval) report into the
 * same live block, their items prefixed with the arm's label and the stage, the total set once (the
 * first stage's instances × arms × 2 stages).
 */
import type { ProgressDisplay } from "../progress.js";
import type { StageDisplay } from "../run-command.js";
import type { ArmSpec } from "@graphplan/viewer";

export function armStages(
  base: ProgressDisplay | undefined,
  arms: number,
): (arm: ArmSpec, index: number) => StageDisplay {
  let totalSet = false;
  return (arm) => (stage) => {
    if (!base) return { progress: undefined, close: () => undefined };
    const key = (id: string) => `${arm.label}/${id}`;
    const progress: ProgressDisplay = {
      setTotal: (n) => {
        if (totalSet) return;
        totalSet = true;
        base.setTotal(n * arms * 2);
      },
      setHeadline: (text) => base.setHeadline(`${arm.label} ${stage}: ${text}`),
      start: (id, detail) => base.start(key(id), `${stage} ${detail}`),
      update: (id, detail) => base.update(key(id), `${stage} ${detail}`),
      finish: (id, line) => base.finish(key(id), `${arm.label} ${stage}: ${line}`),
      print: (line) => base.print(`${arm.label} ${stage}: ${line}`),
      close: () => undefined,
    };
    return { progress, close: () => undefined };
  };
}
