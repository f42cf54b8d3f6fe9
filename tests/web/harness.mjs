// Shared by the browser checks (app_test.mjs, embed_test.mjs) and bench/browser.mjs: failures
// that stop a check, "ok" lines, and the site served by scripts/serve.mjs on a free port.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const SERVE = fileURLToPath(new URL("../../scripts/serve.mjs", import.meta.url));

// A failed assertion: the check stops and prints "FAIL: <check>: <message>".
export class CheckFailure extends Error {}

export function fail(message) {
  throw new CheckFailure(message);
}

export function ok(message) {
  console.log(`ok - ${message}`);
}

// Starts scripts/serve.mjs for `root` on a free loopback port; resolves with the child process
// and the site's URL, which ends with "/".
export function startSiteServer(root) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVE, "--root", root, "--port", "0", "--host", "127.0.0.1"],
                        { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    const timer = setTimeout(() => reject(new Error(`serve.mjs did not start: ${out}`)), 10000);
    child.on("exit", (code) => reject(new Error(`serve.mjs exited with ${code}: ${out}`)));
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text) => {
      out += text;
      const m = /Attention Playground: (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1].replace(/\/?$/, "/") });
      }
    });
  });
}
