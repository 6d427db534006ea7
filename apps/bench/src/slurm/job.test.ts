import { describe, expect, it } from "vitest";
import { batchScript, parseLog, taskArguments, type SlurmJob } from "./job.js";

describe("the job array's task command", () => {
  it("is the submitter's command without its own options (with or without =value) and without -q", () => {
    const args = [
      "--dataset",
      "d.jsonl",
      "--slurm",
      "--shards",
      "3",
      "--slurm-arg",
      "--qos=long",
      "--slurm-arg=--exclusive",
      "--out",
      "/shared/o",
      "-q",
      "--detach",
      "--slurm-partition=gpu",
      "-w",
      "2",
      "--in-image",
    ];
    expect(taskArguments(args)).toEqual(["--dataset", "d.jsonl", "-w", "2", "--in-image"]);
  });

  it("gives each task its shard and out dir, quoting every argument for the shell", () => {
    const job: SlurmJob = {
      format: "graphplan-bench-slurm/1",
      kind: "agent",
      shards: 3,
      argv: ["/usr/bin/node", "cli.js", "agent", "--filter", "it's$HOME"],
      cwd: "/shared",
      jobs: [],
    };
    const script = batchScript(job, "/shared/out");
    expect(script).toContain(
      `'/usr/bin/node' 'cli.js' 'agent' '--filter' 'it'\\''s$HOME' --shard "$i/3" --out "$dir" &`,
    );
    expect(script).toContain(`dir='/shared/out/shards'/"$i"`);
    expect(script).toMatch(/^echo "\$code" > "\$dir\/exit"$/m);
  });
});

describe("a task's log as its progress file", () => {
  it("reads the plain progress lines of the agent and the evaluation, their cost, and skips the rest", () => {
    const log = [
      "bench --slurm: task 0 of job 7 on node1, attempt 1",
      "[1/2] a__b-1 Submitted 4 calls $0.0125 7121 ms · 0 running · 1 submitted · $0.01 · ETA 8s",
      "[2/2] a__b-2 Submitted (done before) 4 calls $0.5000 6000 ms · 0 running · ETA 0s",
      "engines: unix:///tmp/podman.sock",
      "[1/1] a__b-1 resolved 6.3 s · 0 running · resolved 1 · unresolved 0 · error 0 · ETA 0s",
    ].join("\n");
    expect(parseLog(log)).toEqual([
      {
        id: "a__b-1",
        status: "Submitted",
        text: "a__b-1 Submitted 4 calls $0.0125 7121 ms",
        cost: 0.0125,
        phase: "agent",
      },
      {
        id: "a__b-2",
        status: "Submitted",
        text: "a__b-2 Submitted (done before) 4 calls $0.5000 6000 ms",
        cost: 0,
        phase: "agent",
      },
      { id: "a__b-1", status: "resolved", text: "a__b-1 resolved 6.3 s", cost: 0, phase: "eval" },
    ]);
  });
});
