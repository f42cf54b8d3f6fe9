// What the CLI checks share: their options, failing with one line, and running a command
// ("<cmd;args>", split at ';') with a scenario on standard input.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const args = process.argv.slice(2);

// The value of --name as a command split at ';', or null.
export function option(name) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1].split(";") : null;
}
export const lastArgument = () => args.at(-1);

export function fail(message) {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}

// Runs command with argv, the scenario (an object) as JSON on standard input.
export function run(command, argv, scenario) {
  if (!existsSync(command[0])) fail(`${command[0]} is missing (build it first)`);
  const r = spawnSync(command[0], [...command.slice(1), ...argv], {
    input: scenario === undefined ? undefined : JSON.stringify(scenario),
    encoding: "utf8", maxBuffer: 1 << 28,
  });
  if (r.error) throw r.error;
  return r;
}

// Standard output when it exited 0, else a failure naming `what`.
export function ok(r, what) {
  if (r.status !== 0) fail(`${what}: exit ${r.status}: ${r.stderr}`);
  return r.stdout;
}
