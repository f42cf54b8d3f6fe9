#!/usr/bin/env python3
# Checks the exports of one scenario against `attention-cli eval` (run by CTest).
#
#   export_check.py --tool EXPORT_TOOL --cli ATTENTION_CLI SCENARIO.json
#
# 1. The NumPy program runs and prints a trace equal to the CLI's: the same heads, steps and
#    shapes (a stack: every layer's, and a token model's logits and probabilities),
#    |a - b| <= 1e-5 * max(1, |b|) everywhere, NaN and ±inf exactly where the CLI has them.
# 2. The PyTorch program compiles and mirrors the NumPy one: the same sections, functions and
#    scenario constants. It is run and compared like the NumPy one: with torch when it can be
#    imported, else against torch_standin/ (NumPy behind torch's names; torch is not installed
#    on the project's machines, so this checks the program's logic, not torch itself).
# 3. The CSV of head 1's weights (batch item 1; a stack: of layer 1) reads back with Python's
#    csv module to exactly the CLI's numbers.
# 4. Both programs run with --grad print what `attention-cli grad` prints: the same loss and
#    gradient names, in the same order and shapes, |a - b| <= 1e-5 * max(1, |b|) everywhere
#    (the same TOLERANCE: the programs' backward() runs in float64 from float64 steps, the
#    CLI's in float64 from the float32 trace, so they differ by float32 rounding, relative
#    ~1e-7 of the terms summed: measured at most 6.2e-7 scaled, on dot_large, whose large
#    scores make the softmax sensitive; 5e-8 or less on the other fixtures and presets).
#    Where the CLI refuses (no target, hard attention, a row fully masked under -inf), both
#    programs refuse with the same message on standard error.
import argparse
import csv
import io
import json
import math
import os
import py_compile
import re
import subprocess
import sys
import tempfile

TOLERANCE = 1e-5  # float64 programs against the float32 core, relative above 1
STEPS = ("scores", "scaled", "masked", "weights", "output")


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def run(args, **kwargs):
    """Standard output as text, exactly as written (no newline translation)."""
    r = subprocess.run(args, capture_output=True, **kwargs)
    if r.returncode != 0:
        stderr = r.stderr.decode("utf-8", "replace").strip()
        fail(f"{' '.join(args)} exited with {r.returncode}: {stderr}")
    return r.stdout.decode("utf-8")


def number(v, where):
    if isinstance(v, str):
        if v not in ("nan", "inf", "-inf"):
            fail(f"{where} is the string {v!r}")
        return float(v)
    return float(v)


def compare_tensor(got, want, where, by_matrix=False):
    """Both [batch][rows][cols]; returns the largest scaled difference. by_matrix: relative to
    the largest magnitude in the batch item's matrix (at least 1), not the cell's own: a layer
    above the first reads a stream the float32 core rounded, and its scores are dot products of
    rows far larger than the scores themselves (learned_induction's layer 2: a score of 1.48 from
    terms of ~30, 1.6e-5 apart), so a cell's own size is not the scale of its rounding."""
    if len(got) != len(want):
        fail(f"{where} has batch {len(got)}, expected {len(want)}")
    worst = 0.0
    for b, (gm, wm) in enumerate(zip(got, want)):
        if len(gm) != len(wm):
            fail(f"{where}[{b}] has {len(gm)} rows, expected {len(wm)}")
        big = 1.0
        if by_matrix:
            for wr in wm:
                for w in wr:
                    w = number(w, f"{where}[{b}]")
                    if math.isfinite(w):
                        big = max(big, abs(w))
        for i, (gr, wr) in enumerate(zip(gm, wm)):
            if len(gr) != len(wr):
                fail(f"{where}[{b}][{i}] has {len(gr)} columns, expected {len(wr)}")
            for j, (g, w) in enumerate(zip(gr, wr)):
                at = f"{where}[{b}][{i}][{j}]"
                g, w = number(g, at), number(w, at)
                if math.isnan(w) or math.isnan(g):
                    if not (math.isnan(w) and math.isnan(g)):
                        fail(f"{at} is {g}, expected {w}")
                    continue
                if math.isinf(w) or math.isinf(g):
                    if g != w:
                        fail(f"{at} is {g}, expected {w}")
                    continue
                scaled = abs(g - w) / max(1.0, big, abs(w))
                if scaled > TOLERANCE:
                    fail(f"{at} is {g!r}, expected {w!r} (difference {abs(g - w):.3g})")
                worst = max(worst, scaled)
    return worst


def compare_array(got, want, where):
    """Nested lists of numbers of any depth (w_v is 1-D, weights 2-D, batches 3-D), or objects of
    them (a stack's "layers": each layer's {name: gradient}); returns the largest scaled
    difference."""
    if isinstance(want, dict):
        if not isinstance(got, dict) or list(got) != list(want):
            fail(f"{where} has {list(got) if isinstance(got, dict) else got!r}, "
                 f"expected {list(want)}")
        return max([compare_array(got[k], w, f"{where}.{k}") for k, w in want.items()],
                   default=0.0)
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            size = len(got) if isinstance(got, list) else "a number"
            fail(f"{where} has {size} entries, expected {len(want)}")
        return max([compare_array(g, w, f"{where}[{i}]")
                    for i, (g, w) in enumerate(zip(got, want))], default=0.0)
    if isinstance(got, list):
        fail(f"{where} is a list, expected a number")
    g, w = number(got, where), number(want, where)
    if not (math.isfinite(g) and math.isfinite(w)):
        fail(f"{where} is {g}, expected {w} (gradients are finite)")
    scaled = abs(g - w) / max(1.0, abs(w))
    if scaled > TOLERANCE:
        fail(f"{where} is {g!r}, expected {w!r} (difference {abs(g - w):.3g})")
    return scaled


def check_grad(program_args, scenario, cli, label, env=None, cwd=None):
    """The program's --grad against `attention-cli grad`: the same gradients, or the same refusal.
    Returns a line saying which."""
    want = subprocess.run([cli, "grad", scenario], capture_output=True, text=True)
    got = subprocess.run(program_args + ["--grad"], capture_output=True, text=True, env=env,
                         cwd=cwd)
    if want.returncode != 0:
        reason = want.stderr.strip()
        if got.returncode == 0 or got.stderr.strip() != reason:
            fail(f"{label}: the CLI refuses with {reason!r}, the program exits with "
                 f"{got.returncode} saying {got.stderr.strip()!r}")
        return f"refuses as the CLI does: {reason}"
    if got.returncode != 0:
        fail(f"{label}: --grad exited with {got.returncode}: {got.stderr.strip()}")
    if "\r" in got.stdout or got.stdout.count("\n") != 1 or " " in got.stdout:
        fail(f"{label}: --grad does not print one compact JSON line as the CLI does")
    got, want = json.loads(got.stdout), json.loads(want.stdout)
    if got.get("version") != 1 or list(got) != ["version", "loss", "grads"]:
        fail(f"{label}: --grad prints the keys {list(got)}, expected {list(want)}")
    if list(got["grads"]) != list(want["grads"]):
        fail(f"{label}: gradients {list(got['grads'])}, expected {list(want['grads'])}")
    worst = compare_array(got["loss"], want["loss"], f"{label}: loss")
    for name, w in want["grads"].items():
        worst = max(worst, compare_array(got["grads"][name], w, f"{label}: grads.{name}"))
    return f"gradients of {', '.join(want['grads'])} agree, largest scaled difference {worst:.2g}"


def compare_heads(got, want, label, by_matrix=False):
    if len(got["heads"]) != len(want["heads"]):
        fail(f"{label}: {len(got['heads'])} heads, expected {len(want['heads'])}")
    worst = 0.0
    for h, (gh, wh) in enumerate(zip(got["heads"], want["heads"])):
        for step in STEPS:
            worst = max(worst, compare_tensor(gh[step], wh[step], f"{label}: heads[{h}].{step}",
                                              by_matrix))
    return worst


def compare_trace(got, want, label):
    """One layer's trace ({"heads", "output"}) or a stack's ({"layers": [{"heads", "output"}],
    "output"}, a token model's with "logits" and "probabilities")."""
    if got.get("version") != 1:
        fail(f"{label}: trace version is {got.get('version')!r}")
    if list(got) != list(want):
        fail(f"{label}: the trace has the keys {list(got)}, expected {list(want)}")
    if "layers" in want:
        if len(got["layers"]) != len(want["layers"]):
            fail(f"{label}: {len(got['layers'])} layers, expected {len(want['layers'])}")
        worst = 0.0
        for l, (gl, wl) in enumerate(zip(got["layers"], want["layers"])):
            at = f"{label}: layers[{l}]"
            worst = max(worst, compare_heads(gl, wl, at, by_matrix=l > 0),
                        compare_tensor(gl["output"], wl["output"], f"{at}.output"))
    else:
        worst = compare_heads(got, want, label)
    for name in ("output", "logits", "probabilities"):
        if name in want:
            worst = max(worst, compare_tensor(got[name], want[name], f"{label}: {name}",
                                              by_matrix="layers" in want))
    return worst


def outline(program):
    """What the two programs must share: section headers, function names and the scenario."""
    sections = re.findall(r"^# \[SECTION\] (.*)$", program, re.M)
    functions = re.findall(r"^def (\w+)", program, re.M)
    start = program.index("# [SECTION] The scenario\n# ---")
    end = program.index("# [SECTION] The steps\n# ---")
    return sections, functions, program[start:end]


def check_csv(text, weights, label):
    if "\r\n" not in text:
        fail(f"{label}: CSV lines do not end with CRLF")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if rows[0][0] != "" or len(rows[0]) != len(weights[0]) + 1:
        fail(f"{label}: CSV header is {rows[0]!r}")
    if len(rows) != len(weights) + 1:
        fail(f"{label}: CSV has {len(rows) - 1} rows, expected {len(weights)}")
    for i, (row, want) in enumerate(zip(rows[1:], weights)):
        got = [float(v) for v in row[1:]]
        want = [number(v, f"{label}: weights[{i}]") for v in want]
        same = all((math.isnan(g) and math.isnan(w)) or g == w for g, w in zip(got, want))
        if len(got) != len(want) or not same:
            fail(f"{label}: CSV row {i + 1} is {row[1:]}, expected {want}")


def main():
    try:
        import numpy  # noqa: F401  (the exported program needs it)
    except ImportError:
        fail(f"{sys.executable} cannot import numpy: install python3-numpy (scripts/setup.sh does)")
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("scenario")
    args = ap.parse_args()
    label = os.path.basename(args.scenario)

    want = json.loads(run([args.cli, "eval", args.scenario]))
    # A GRU encoder-decoder's program is its decoder's attention, from the inputs the model
    # derived: the sentence and the decoded words ("seq2seq") are the CLI's alone.
    want.pop("seq2seq", None)
    want.pop("hierarchy", None)  # attention over attention: the word level is the CLI's alone
    with tempfile.TemporaryDirectory() as tmp:
        programs = {}
        for kind in ("numpy", "pytorch"):
            path = os.path.join(tmp, f"exported_{kind}.py")
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(run([args.tool, kind, args.scenario]))
            programs[kind] = path
            try:
                py_compile.compile(path, doraise=True)
            except py_compile.PyCompileError as e:
                fail(f"{label}: the {kind} program does not compile: {e.msg}")

        got = json.loads(run([sys.executable, programs["numpy"]], cwd=tmp))
        worst = compare_trace(got, want, f"{label} (NumPy)")
        print(f"{label}: NumPy agrees with the CLI, largest scaled difference {worst:.2g}")

        texts = {k: open(p, encoding="utf-8").read() for k, p in programs.items()}
        if outline(texts["numpy"]) != outline(texts["pytorch"]):
            fail(f"{label}: the PyTorch program does not mirror the NumPy one")
        # Real torch when it is installed; else a NumPy stand-in for the torch functions the
        # program uses (torch_standin/torch.py), which checks the program's logic, not torch.
        try:
            import torch  # noqa: F401
            env, which = None, "PyTorch"
        except ImportError:
            standin = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_standin")
            env, which = dict(os.environ, PYTHONPATH=standin), "PyTorch (NumPy stand-in for torch)"
        got = json.loads(run([sys.executable, programs["pytorch"]], cwd=tmp, env=env))
        worst = compare_trace(got, want, f"{label} ({which})")
        print(f"{label}: {which} agrees with the CLI, largest scaled difference {worst:.2g}")

        for kind, name, kind_env in (("numpy", "NumPy", None), ("pytorch", which, env)):
            said = check_grad([sys.executable, programs[kind]], args.scenario, args.cli,
                              f"{label} ({name} --grad)", env=kind_env, cwd=tmp)
            print(f"{label}: {name} --grad {said}")

    first = want["layers"][0] if "layers" in want else want  # a stack: its first layer's
    check_csv(run([args.tool, "csv", args.scenario]), first["heads"][0]["weights"][0], label)
    print(f"{label}: CSV reads back exactly")


if __name__ == "__main__":
    main()
