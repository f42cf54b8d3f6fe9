// The lessons' designed numbers, computed by attention-cli (native, or the WASM build under
// node), not by this script:
//
//   node lessons_check.mjs --cli "<cmd;args>" quiz PRESETS_DIR LESSONS_TXT
//       every lesson asks at least one question, and every answer key in a preset's "quiz"
//       agrees with `attention-cli eval` of that preset;
//   node lessons_check.mjs --cli "<cmd;args>" designed PRESETS_DIR
//       the hand-set weights do what their lessons say;
//   node lessons_check.mjs --cli "<cmd;args>" learned PRESETS_DIR RECIPES_DIR [--other DIR]
//       each learned lesson (assets/recipes/NAME.json) trained again by this CLI is the built
//       PRESETS_DIR/NAME.json, byte for byte; its head puts ≥ 0.9 of every row's weight where
//       its task wants it; and (--other: the native build's presets) the WASM build learned
//       the same weights to 1e-3.
//
// A CLI is given as a ;-separated command line, as CMake lists are written.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const argv = process.argv.slice(2);
const cliAt = argv.indexOf("--cli");
const cli = cliAt >= 0 ? argv[cliAt + 1].split(";") : null;
const otherAt = argv.indexOf("--other");
const other = otherAt >= 0 ? argv[otherAt + 1] : null;
const [mode, dir, lessonsTxt] = argv.filter((_, i) => ![cliAt, cliAt + 1, otherAt, otherAt + 1].includes(i));

function fail(message) {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}
if (!cli || !existsSync(cli[0])) fail(`no attention-cli at ${cli?.[0]}`);

// The trace of a scenario (an object), as the CLI computes it.
function evaluate(scenario, what) {
  const r = spawnSync(cli[0], [...cli.slice(1), "eval", "-"], {
    input: JSON.stringify(scenario), encoding: "utf8", maxBuffer: 1 << 28,
  });
  if (r.error) throw r.error;
  if (r.status !== 0) fail(`${what}: attention-cli eval exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
const preset = (name) => JSON.parse(readFileSync(join(dir, `${name}.json`), "utf8"));
const num = (v) => (typeof v === "number" ? v : v === "-inf" ? -Infinity : v === "inf" ? Infinity : NaN);
const argmax = (row) => row.reduce((best, v, j) => (num(v) > num(row[best]) ? j : best), 0);
const fixed = (v) => num(v).toFixed(3);

if (mode === "quiz") {
  const names = readFileSync(lessonsTxt, "utf8").split("\n").map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  let questions = 0;
  for (const name of names) {
    const s = preset(name);
    if (!Array.isArray(s.quiz) || s.quiz.length === 0) fail(`${name}: the lesson asks no question`);
    const all = evaluate(s, name);
    s.quiz.forEach((q, i) => {
      const where = `${name}: quiz[${i}]`;
      for (const lang of ["en", "zh"]) {
        if (!q.ask?.[lang]) fail(`${where}: no ${lang} question`);
        if (!q.why?.[lang]) fail(`${where}: no ${lang} explanation`);
      }
      const a = q.answer, h = a.head ?? 0, b = a.batch ?? 0;
      // A stack's question reads its layer's trace (its output: what the layer adds).
      const trace = s.layers ? all.layers[a.layer ?? 0] : all;
      if (!trace) fail(`${where}: the CLI's trace has no layer ${a.layer}`);
      if (a.matrix === undefined) {
        const row = trace.heads[h].weights[b][a.row];
        const best = argmax(row);
        if (best !== a.key)
          fail(`${where}: the answer key says key ${a.key}, but the largest weight in row ${a.row} ` +
               `is key ${best} (${fixed(row[best])} against ${fixed(row[a.key])})`);
        const second = Math.max(...row.filter((_, j) => j !== best).map(num));
        if (num(row[best]) - second < 0.05)
          fail(`${where}: key ${best} wins by ${fixed(num(row[best]) - second)} only: too close to ask`);
      } else {
        const m = a.matrix === "output" ? trace.output
          : a.matrix === "head_output" ? trace.heads[h].output : trace.heads[h][a.matrix];
        if (!m) fail(`${where}: no matrix ${a.matrix} in the trace`);
        const [i, j] = a.cell, v = num(m[b][i][j]);
        if (!(Math.abs(v - a.value) <= a.tolerance))
          fail(`${where}: the answer key says ${a.matrix}[${i}][${j}] = ${a.value} ± ${a.tolerance}, ` +
               `the CLI computes ${v}`);
      }
      ++questions;
    });
  }
  console.log(`ok: ${questions} questions in ${names.length} lessons agree with attention-cli eval`);
} else if (mode === "designed") {
  // multi_head: two heads that do different things.
  {
    const t = evaluate(preset("multi_head"), "multi_head");
    if (t.heads.length !== 2) fail(`multi_head: ${t.heads.length} heads, expected 2`);
    const picks = t.heads.map((head, h) => {
      const w = head.weights[0];
      const meanMax = w.reduce((s, row) => s + Math.max(...row.map(num)), 0) / w.length;
      if (meanMax < 0.6) fail(`multi_head: head ${h + 1}'s mean largest weight is ${fixed(meanMax)} < 0.6`);
      console.log(`ok: multi_head head ${h + 1}: mean largest weight ${fixed(meanMax)}`);
      return w.map(argmax);
    });
    const differ = picks[0].filter((j, i) => j !== picks[1][i]).length;
    if (2 * differ < picks[0].length)
      fail(`multi_head: the heads pick different keys in ${differ} of ${picks[0].length} rows only`);
    console.log(`ok: multi_head: the heads pick different keys in ${differ} of ${picks[0].length} rows`);
  }
  // cross_attention: each query word puts ≥ 0.5 on the key it translates; all keys differ.
  {
    const s = preset("cross_attention");
    const translates = { le: "the", chat: "cat", dort: "sleeps" };
    const keyName = (k) => (typeof k === "string" ? k : k.en);
    const keys = s.key_tokens.map(keyName);
    const w = evaluate(s, "cross_attention").heads[0].weights[0];
    const chosen = new Set();
    s.query_tokens.map(keyName).forEach((q, i) => {
      const j = keys.indexOf(translates[q]);
      if (j < 0) fail(`cross_attention: no key token "${translates[q]}" for "${q}"`);
      if (num(w[i][j]) < 0.5) fail(`cross_attention: "${q}" puts ${fixed(w[i][j])} < 0.5 on "${keys[j]}"`);
      if (argmax(w[i]) !== j) fail(`cross_attention: "${q}" attends most to "${keys[argmax(w[i])]}"`);
      chosen.add(j);
      console.log(`ok: cross_attention: "${q}" puts ${fixed(w[i][j])} on "${keys[j]}"`);
    });
    if (chosen.size !== s.query_tokens.length) fail("cross_attention: two query words pick the same key");
  }
  // i_saw_a_saw: positional encoding on in the preset; the saw rows differ by ≥ 0.3 (L1);
  // with it off they are identical.
  {
    const s = preset("i_saw_a_saw");
    if (!s.positional_encoding) fail("i_saw_a_saw: positional encoding is not on in the preset");
    const tokens = s.query_tokens.map((t) => (typeof t === "string" ? t : t.en));
    const saws = tokens.flatMap((t, i) => (t === "saw" ? [i] : []));
    if (saws.length !== 2) fail(`i_saw_a_saw: ${saws.length} "saw" tokens, expected 2`);
    const l1 = (w) => w[saws[0]].reduce((sum, v, j) => sum + Math.abs(num(v) - num(w[saws[1]][j])), 0);
    const on = l1(evaluate(s, "i_saw_a_saw").heads[0].weights[0]);
    const off = l1(evaluate({ ...s, positional_encoding: false }, "i_saw_a_saw without PE").heads[0].weights[0]);
    if (on < 0.3) fail(`i_saw_a_saw: with positional encoding the saw rows differ by ${fixed(on)} < 0.3`);
    if (off !== 0) fail(`i_saw_a_saw: without positional encoding the saw rows differ by ${off}`);
    console.log(`ok: i_saw_a_saw: the saw rows differ by ${fixed(on)} with positional encoding, 0 without`);
  }
} else if (mode === "learned") {
  const recipes = readdirSync(lessonsTxt).filter((f) => f.endsWith(".json")).sort();
  if (recipes.length < 2) fail(`only ${recipes.length} recipes in ${lessonsTxt}`);
  // Where a learned solution of each task puts row i's weight.
  const keyOf = { previous_token: (i) => (i > 0 ? i - 1 : 0), translate: (i) => [0, 2, 1, 3][i] };
  const tmp = mkdtempSync(join(tmpdir(), "ap-learned-"));
  for (const file of recipes) {
    const name = file.replace(/\.json$/, "");
    const recipe = JSON.parse(readFileSync(join(lessonsTxt, file), "utf8"));
    const out = join(tmp, file);
    const r = spawnSync(cli[0], [...cli.slice(1), "lesson", join(lessonsTxt, file), "--out", out], { encoding: "utf8" });
    if (r.status !== 0) fail(`${name}: attention-cli lesson exited ${r.status}: ${r.stderr}`);
    const built = readFileSync(join(dir, file), "utf8");
    if (readFileSync(out, "utf8") !== built) fail(`${name}: trained again, the lesson differs from the built preset`);
    const s = JSON.parse(built);
    if (s.layers) {  // a token model: layer 2 is an induction head on the lesson's own sequences
      const t = evaluate(s, name);
      let share = 0, rows = 0, loss = 0;
      s.tokens.forEach((ids, b) => ids.forEach((id, i) => {
        const want = s.next[b][i];
        if (want < 0) return;
        loss -= Math.log(num(t.probabilities[b][i][want]));
        // The letter after the earlier copy of this one (scenario::stack_task_key).
        for (let j = i - 1; j >= 0; --j) {
          if (ids[j] === id && j + 1 < i && ids[j + 1] === want) {
            share += num(t.layers[1].heads[0].weights[b][i][j + 1]);
            ++rows;
            break;
          }
        }
      }));
      share /= rows;
      loss /= rows;
      if (!(share >= 0.6) || !(loss < 0.6)) fail(`${name}: layer 2 puts ${fixed(share)} on the letter after the copy, cross-entropy ${fixed(loss)}`);
      let gap = 0;
      if (other) {
        const o = JSON.parse(readFileSync(join(other, file), "utf8"));
        const far = (a, b) => a.forEach((row, i) => row.forEach((v, j) => {
          gap = Math.max(gap, Math.abs(num(v) - num(b[i][j])) / Math.max(1, Math.abs(num(b[i][j]))));
        }));
        s.layers.forEach((l, k) => ["W_q", "W_k", "W_v", "W_o"].forEach((m) => far(l[m], o.layers[k][m])));
        far(s.embed, o.embed);
        far(s.unembed, o.unembed);
        if (gap > 1e-3) fail(`${name}: this build learned weights ${gap.toExponential(2)} away from the other build's`);
      }
      console.log(`ok: ${name}: trained again byte for byte; layer 2 puts ${fixed(share)} on the letter after ` +
                  `the copy (${rows} rows), cross-entropy ${fixed(loss)}` + (other ? `; weights within ${gap.toExponential(1)} of the other build's` : ""));
      continue;
    }
    if (s.seq2seq) {  // a GRU encoder–decoder: it translates its sentence, each word aligned
      const t = evaluate(s, name);
      const m = s.seq2seq;
      // The toy grammar: an adjective (the first three source words) follows its noun.
      const src = m.source.map((w) => m.source_words.indexOf(w));
      const want = [], aligned = [];
      for (let i = 0; i < src.length; ++i) {
        if (src[i] < 3 && i + 1 < src.length) {
          want.push(m.target_words[src[i + 1]], m.target_words[src[i]]);
          aligned.push(i + 1, i);
          ++i;
        } else {
          want.push(m.target_words[src[i]]);
          aligned.push(i);
        }
      }
      want.push("<eos>");
      if (JSON.stringify(t.seq2seq.produced) !== JSON.stringify(want))
        fail(`${name}: decoded ${t.seq2seq.produced.join(" ")}, expected ${want.join(" ")}`);
      const w = t.heads[0].weights[0];
      let least = 1;
      aligned.forEach((k, row) => { least = Math.min(least, num(w[row][k])); });
      if (least < 0.5) fail(`${name}: a target word puts only ${fixed(least)} on the source word it translates`);
      // attention-cli train from the random start (the weights left out: the seed's) learns the
      // lesson again, byte for byte: the page's Train on the Decoder tab, the recipe's steps.
      const start = JSON.parse(built);
      delete start.seq2seq.weights;
      const startFile = join(tmp, `${name}.start.json`);
      writeFileSync(startFile, JSON.stringify(start));
      const steps = recipe.train.steps ?? 1500;
      const tr = spawnSync(cli[0], [...cli.slice(1), "train", startFile, "--steps", String(steps)],
                           { encoding: "utf8", maxBuffer: 1 << 26 });
      if (tr.status !== 0) fail(`${name}: attention-cli train exited ${tr.status}: ${tr.stderr}`);
      const lines = tr.stdout.trim().split("\n");
      const norm = spawnSync(cli[0], [...cli.slice(1), "normalize", join(dir, file)], { encoding: "utf8", maxBuffer: 1 << 26 });
      if (lines.length !== steps + 1 || lines[steps] !== norm.stdout.trim())
        fail(`${name}: train --steps ${steps} from the random start is not the lesson's model (${lines.length} lines)`);
      const first = JSON.parse(lines[0]).loss, last = JSON.parse(lines[steps - 1]).loss;
      if (!(first > 10 * last)) fail(`${name}: train's loss went from ${first} to ${last}`);
      let gap = 0;
      if (other) {  // the other build's libm differs in the last bit: compare what it learned
        const o = evaluate(JSON.parse(readFileSync(join(other, file), "utf8")), `${name} (other build)`);
        if (JSON.stringify(o.seq2seq.produced) !== JSON.stringify(want)) fail(`${name}: the other build decodes ${o.seq2seq.produced.join(" ")}`);
        w.forEach((row, i) => row.forEach((v, j) => { gap = Math.max(gap, Math.abs(num(v) - num(o.heads[0].weights[0][i][j]))); }));
        if (gap > 0.05) fail(`${name}: this build's alignment is ${fixed(gap)} away from the other build's`);
      }
      console.log(`ok: ${name}: trained again byte for byte, and by train from its random start (loss ${fixed(first)} → ${last.toExponential(1)}); decodes "${m.source.join(" ")}" as "${want.join(" ")}", ` +
                  `each word ≥ ${fixed(least)} on the word it translates` + (other ? `; alignment within ${gap.toExponential(1)} of the other build's` : ""));
      continue;
    }
    const key = keyOf[recipe.train.task];
    if (!key) fail(`${name}: no check for task ${recipe.train.task} here`);
    const w = evaluate(s, name).heads[0].weights;
    let least = 1;
    w.forEach((m, b) => m.forEach((row, i) => { least = Math.min(least, num(row[key(i)])); }));
    if (least < 0.9) fail(`${name}: a row puts only ${fixed(least)} of its weight where ${recipe.train.task} wants it`);
    let gap = 0;
    if (other) {
      const o = JSON.parse(readFileSync(join(other, file), "utf8"));
      for (const m of ["W_q", "W_k", "W_v", "W_o"])
        s[m].forEach((row, i) => row.forEach((v, j) => {
          gap = Math.max(gap, Math.abs(num(v) - num(o[m][i][j])) / Math.max(1, Math.abs(num(o[m][i][j]))));
        }));
      if (gap > 1e-3) fail(`${name}: this build learned weights ${gap.toExponential(2)} away from the other build's`);
    }
    console.log(`ok: ${name}: trained again byte for byte; every row puts ≥ ${fixed(least)} where ` +
                `${recipe.train.task} wants it` + (other ? `; weights within ${gap.toExponential(1)} of the other build's` : ""));
  }
  rmSync(tmp, { recursive: true });
} else {
  fail(`unknown mode ${mode}`);
}
