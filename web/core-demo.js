// Core preview page: loads the WASM core, evaluates a preset and shows its weights.
// Everything reaches the DOM through textContent, never as HTML.
"use strict";

const PRESETS = ["why_so_tall", "padded_batch", "textbook_ones", "textbook_additive",
                 "i_saw_a_saw", "toy_2d", "multi_head", "cross_attention", "causal_decoder"];

const $ = (id) => document.getElementById(id);

function el(tag, text) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  return e;
}

function fmt(v) {
  return typeof v === "number" ? v.toFixed(3) : String(v);
}

function table(matrix, rowLabels, colLabels) {
  const t = el("table");
  const head = el("tr");
  head.appendChild(el("th", ""));
  colLabels.forEach((c) => head.appendChild(el("th", c)));
  t.appendChild(head);
  matrix.forEach((row, i) => {
    const tr = el("tr");
    tr.appendChild(el("th", rowLabels[i]));
    row.forEach((v) => tr.appendChild(el("td", fmt(v))));
    t.appendChild(tr);
  });
  return t;
}

function tokens(list, b, n, prefix) {
  if (!list) return Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);
  return Array.isArray(list[0]) ? list[Math.min(b, list.length - 1)] : list;
}

async function show(core, name) {
  const status = $("status");
  const response = await fetch(`assets/presets/${name}.json`);
  if (!response.ok) throw new Error(`could not load preset ${name} (${response.status})`);
  const text = await response.text();
  const scenario = JSON.parse(text);
  const trace = JSON.parse(core.ccall("ap_eval_json", "string", ["string"], [text]));
  if (trace.error) throw new Error(trace.error);
  $("title").textContent = scenario.title?.en ?? scenario.title ?? name;
  $("description").textContent = scenario.description?.en ?? scenario.description ?? "";
  const out = $("matrices");
  out.replaceChildren();
  trace.heads.forEach((head, h) => {
    head.weights.forEach((w, b) => {
      const qt = tokens(scenario.query_tokens, b, w.length, "q");
      const kt = tokens(scenario.key_tokens ?? scenario.query_tokens, b, w[0].length, "k");
      out.appendChild(el("h3", `Attention weights — head ${h + 1}, batch item ${b + 1}`));
      out.appendChild(table(w, qt, kt));
    });
  });
  const o = trace.output;
  o.forEach((m, b) => {
    out.appendChild(el("h3", `Output — batch item ${b + 1}`));
    out.appendChild(table(m, tokens(scenario.query_tokens, b, m.length, "q"),
                          m[0].map((_, j) => `d${j + 1}`)));
  });
  status.textContent = "Computed by the WebAssembly core.";
}

async function main() {
  const select = $("preset");
  PRESETS.forEach((p) => select.appendChild(new Option(p, p)));
  const status = $("status");
  try {
    if (typeof WebAssembly !== "object") throw new Error("this browser has no WebAssembly");
    const core = await createAttentionCore();
    const run = () => show(core, select.value).catch((e) => {
      status.textContent = `Error: ${e.message}`;
      status.className = "error";
    });
    select.addEventListener("change", run);
    await run();
  } catch (e) {
    status.textContent = `Could not start: ${e.message}`;
    status.className = "error";
  }
}

main();
