#!/usr/bin/env python3
# Checks `attention-cli --arrays` against NumPy's own files (run by CTest):
#
#   npz_check.py --cli ATTENTION_CLI            the checks below
#   npz_check.py --seeds DIR                    writes .npy/.npz files as fuzz seeds
#   npz_check.py --bench DIR                    writes the large files of bench/npz_bench.cpp
#
# 1. np.savez and np.savez_compressed (deflate with dynamic codes, several blocks) of
#    float32/float64/float16/int/bool arrays, C and Fortran order, little- and big-endian:
#    `normalize --arrays` gives back each array as float32, exactly.
# 2. A lone .npy is the field its file is named after; --arrays may be repeated.
# 3. `eval --arrays` prints the same trace, byte for byte, as eval of the scenario with the
#    numbers written in; `eval --npz FILE` (no scenario file) is eval of the arrays alone.
# 4. Bad files (truncated, corrupted, a field that does not exist, a wrong shape) exit with 2
#    and one line naming the file, the entry or the field; nothing crashes. A flipped bit in
#    an entry's data is refused by its CRC-32, as NumPy (zipfile) refuses it.
import argparse
import json
import os
import subprocess
import sys
import tempfile
import zipfile

try:
    import numpy as np
except ImportError:
    print("FAIL: NumPy is needed (apt-get install python3-numpy; scripts/setup.sh does)",
          file=sys.stderr)
    sys.exit(1)


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def cli(args, expect=0):
    r = subprocess.run(args, capture_output=True)
    if r.returncode != expect:
        fail(f"{' '.join(args)} exited with {r.returncode}, expected {expect}: "
             f"{r.stderr.decode('utf-8', 'replace').strip()}")
    return r.stdout.decode("utf-8"), r.stderr.decode("utf-8")


BASE = {"version": 1, "queries": [[0.0, 0.0]], "keys": [[0.0, 0.0]], "values": [[0.0, 0.0]]}


def check_equal(got, want, where):
    got = np.asarray(got, dtype=np.float32)
    want = np.asarray(want).astype(np.float32)
    if got.shape != want.shape:
        fail(f"{where}: shape {got.shape}, expected {want.shape}")
    if not np.array_equal(got, want):
        at = np.argwhere(got != want)[0]
        fail(f"{where}: {got[tuple(at)]!r} at {tuple(at)}, expected {want[tuple(at)]!r}")


def arrays(rng, n, d, dv):
    """Q, K, V of several dtypes and orders, all for one valid scenario."""
    q = rng.standard_normal((n, d)).astype(np.float32)
    k = np.asfortranarray(rng.standard_normal((n, d)))  # float64, Fortran order
    v = rng.integers(-100, 100, size=(n, dv)).astype(">i4")  # big-endian int32
    return {"queries": q, "keys": k, "values": v}


def write_bench_files(root, rng):
    """Large and hostile files for bench/npz_bench.cpp (about 400 MB in all; not committed)."""
    def save(sub, name, **named):
        os.makedirs(os.path.join(root, sub), exist_ok=True)
        path = os.path.join(root, sub, name)
        if name.endswith(".npy"):
            np.save(path, next(iter(named.values())))
        else:
            np.savez_compressed(path, **named)
        print(f"{path}: {os.path.getsize(path)} bytes")

    big = rng.standard_normal((4096, 4096), dtype=np.float32)
    # Refused from its shape: 4096 columns, the limit is 1024.
    save("fortran", "keys.npy", keys=np.asfortranarray(big))
    # A 131 KB "bomb": 2^24 float64 zeros, 128 MB inflated; refused from its shape too.
    save("bomb", "bomb.npz", keys=np.zeros((4096, 4096)))
    # Refused by the memory budget: x of 4 × 4096 × 1024 is 4 × 4096 × 4096 scores.
    save("budget", "x.npy", x=np.asfortranarray(big.reshape(4, 4096, 1024)))
    # Refused by the lesson (toy_2d: 4 values, so 4 keys): keys of 4096 rows.
    save("mismatch", "keys.npy", keys=big[:, :1024])
    # Accepted: x of 64 × 256 × 1024 = 2^24 numbers, C and Fortran order, and deflated.
    x = big.reshape(64, 256, 1024)
    save("accepted_c", "x.npy", x=x)
    save("accepted_f", "x.npy", x=np.asfortranarray(x))
    save("accepted_z", "x.npz", x=x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli")
    ap.add_argument("--seeds")
    ap.add_argument("--bench")
    args = ap.parse_args()
    rng = np.random.default_rng(7)

    if args.bench:
        write_bench_files(args.bench, rng)
        return

    if args.seeds:
        os.makedirs(args.seeds, exist_ok=True)
        a = arrays(rng, 3, 2, 2)
        np.savez(os.path.join(args.seeds, "stored.npz"), **a)
        np.savez_compressed(os.path.join(args.seeds, "compressed.npz"), **a)
        np.save(os.path.join(args.seeds, "keys.npy"), a["keys"])
        np.save(os.path.join(args.seeds, "half.npy"), a["queries"].astype(np.float16))
        w = rng.standard_normal((2, 2)).astype(np.float32)
        np.savez(os.path.join(args.seeds, "layers.npz"), x=a["queries"],
                 **{"layers.0.W_q": w, "layers.1.W_o": w, "layers.1.w_v": w[0]})
        return

    with tempfile.TemporaryDirectory() as tmp:
        def path(name):
            return os.path.join(tmp, name)

        base = path("base.json")
        with open(base, "w") as f:
            json.dump(BASE, f)

        # 1. Stored and compressed archives, every dtype the reader knows.
        a = arrays(rng, 300, 24, 8)  # ~60 KB: several deflate blocks
        a["queries"][::7] = 0.0  # runs of zeros for long back-references
        for save in (np.savez, np.savez_compressed):
            npz = path(f"{save.__name__}.npz")
            save(npz, **a)
            out, _ = cli([args.cli, "normalize", base, "--arrays", npz])
            s = json.loads(out)
            for name, want in a.items():
                check_equal(s[name], want, f"{save.__name__}: {name}")
        for dtype in ("<f2", ">f8", "<i8", "|u1", "|b1", "<i2"):
            q = (rng.standard_normal((4, 3)) * 3).astype(dtype)
            npz = path("dtypes.npz")
            np.savez_compressed(npz, queries=q, keys=q, values=q)
            s = json.loads(cli([args.cli, "normalize", base, "--arrays", npz])[0])
            check_equal(s["keys"], q, f"dtype {dtype}")
        # A batch: [batch, rows, cols].
        qb = rng.standard_normal((3, 5, 4)).astype(np.float32)
        npz = path("batch.npz")
        np.savez_compressed(npz, queries=qb, keys=qb, values=qb)
        s = json.loads(cli([args.cli, "normalize", base, "--arrays", npz])[0])
        check_equal(s["queries"], qb, "batch")

        # 2. Lone .npy files, named by their file; repeated --arrays.
        for name in ("queries", "keys", "values"):
            np.save(path(f"{name}.npy"), a[name])
        out, _ = cli([args.cli, "normalize", base, "--arrays", path("queries.npy"), "--arrays",
                      path("keys.npy"), "--arrays", path("values.npy")])
        s = json.loads(out)
        for name in ("queries", "keys", "values"):
            check_equal(s[name], a[name], f"{name}.npy")

        # 3. eval with arrays is eval of the scenario with the numbers written in.
        npz = path("savez_compressed.npz")
        written = path("written.json")
        with open(written, "w") as f:
            f.write(cli([args.cli, "normalize", base, "--arrays", npz])[0])
        with_arrays = cli([args.cli, "eval", base, "--arrays", npz])[0]
        if with_arrays != cli([args.cli, "eval", written])[0]:
            fail("eval --arrays differs from eval of the same numbers written in the JSON")
        # The arrays alone are a scenario: `eval --npz FILE` with no scenario file is eval of
        # {"version": 1} with them, and --npz is --arrays.
        plain = path("plain.json")
        with open(plain, "w") as f:
            json.dump({"version": 1}, f)
        alone = cli([args.cli, "eval", "--npz", npz, "--only", "output"])[0]
        if alone != cli([args.cli, "eval", plain, "--arrays", npz, "--only", "output"])[0]:
            fail("eval --npz FILE differs from eval of {\"version\": 1} --arrays FILE")
        if "output" not in json.loads(alone):
            fail(f"eval --npz FILE printed no output: {alone[:200]}")
        _, err = cli([args.cli, "eval", "--only", "output"], expect=2)
        if "FILE: missing" not in err:
            fail(f"eval with neither a file nor arrays: {err.strip()}")

        # 5. A stack's weights by their state-dict names ("layers.1.W_o"), into the layers the
        # JSON has (two, the first with two heads) or, with none, into layers made for them.
        d = 4
        x = rng.standard_normal((5, d)).astype(np.float32)
        weights = {}
        for layer in range(2):
            for name in ("W_q", "W_k", "W_v", "W_o"):
                weights[f"layers.{layer}.{name}"] = (rng.standard_normal((d, d)) * 0.5).astype(np.float32)
        stack_json = {"version": 1, "x": x.tolist(), "scoring": "scaled_dot", "causal": True,
                      "layers": [{"heads": 2}, {}]}
        stack = path("stack.json")
        with open(stack, "w") as f:
            json.dump(stack_json, f)
        state_dict = path("state_dict.npz")
        np.savez_compressed(state_dict, **weights)
        s = json.loads(cli([args.cli, "normalize", stack, "--arrays", state_dict])[0])
        for key, want in weights.items():
            _, layer, name = key.split(".")
            check_equal(s["layers"][int(layer)][name], want, key)
        if s["layers"][0].get("heads") != 2:
            fail(f"layers.*: the JSON's heads were lost: {s['layers'][0]}")
        written = path("stack_written.json")
        with open(written, "w") as f:
            f.write(json.dumps(s))
        if cli([args.cli, "eval", stack, "--arrays", state_dict])[0] != cli([args.cli, "eval", written])[0]:
            fail("eval --arrays with layer weights differs from eval of them written in the JSON")
        # The arrays alone: x and one layer's weights make a one-layer stack.
        np.savez(path("one_layer.npz"), x=x, **{k: v for k, v in weights.items() if k.startswith("layers.0.")})
        s = json.loads(cli([args.cli, "normalize", "--arrays", path("one_layer.npz")])[0])
        if len(s.get("layers", [])) != 1:
            fail(f"x and layers.0.* alone: {len(s.get('layers', []))} layers")
        check_equal(s["layers"][0]["W_v"], weights["layers.0.W_v"], "layers.0.W_v alone")

        # 4. Bad files: one line, naming what is wrong.
        def refused(extra, needle):
            _, err = cli([args.cli, "validate", base] + extra, expect=2)
            if err.count("\n") != 1 or not err.startswith("error: ") or needle not in err:
                fail(f"{extra}: expected one error line with {needle!r}, got {err!r}")

        data = open(npz, "rb").read()
        cut = path("cut.npz")
        open(cut, "wb").write(data[: len(data) // 2])
        refused(["--arrays", cut], "cut.npz: not a ZIP file")
        # Corrupt the deflate data of the first entry (after its local header and name).
        name_len = int.from_bytes(data[26:28], "little")
        extra_len = int.from_bytes(data[28:30], "little")
        start = 30 + name_len + extra_len
        for offset in range(0, 2000, 97):
            broken = bytearray(data)
            broken[start + offset] ^= 0x5A
            bad = path("broken.npz")
            open(bad, "wb").write(bytes(broken))
            r = subprocess.run([args.cli, "validate", base, "--arrays", bad], capture_output=True)
            if r.returncode != 2:  # the deflate codes, the size or the CRC-32 tell
                fail(f"a corrupted byte at {offset} made the CLI exit with {r.returncode}")
            if b"broken.npz: queries.npy: " not in r.stderr:
                fail(f"a corrupted byte at {offset}: the error names no entry: {r.stderr!r}")
        # One bit of a stored entry's last number: the CRC-32 tells, as it tells NumPy.
        stored = path("savez.npz")
        flipped = bytearray(open(stored, "rb").read())
        compressed = int.from_bytes(flipped[18:22], "little")
        name_len = int.from_bytes(flipped[26:28], "little")
        at = 30 + name_len + int.from_bytes(flipped[28:30], "little")
        flipped[at + compressed - 1] ^= 0x01
        bad = path("flipped.npz")
        open(bad, "wb").write(bytes(flipped))
        refused(["--arrays", bad], "flipped.npz: queries.npy: damaged (CRC-32 does not match)")
        try:
            with np.load(bad) as z:
                z["queries"]
            fail("NumPy read flipped.npz: the test no longer flips a bit of the data")
        except zipfile.BadZipFile:
            pass
        np.savez(path("odd.npz"), W_x=a["queries"])
        refused(["--arrays", path("odd.npz")], "W_x: is not a matrix field")
        np.savez(path("shape.npz"), queries=a["queries"], keys=a["keys"][:5],
                 values=a["values"])
        refused(["--arrays", path("shape.npz")], "values: has 300 rows, expected 5")
        np.savez(path("complex.npz"), keys=a["keys"].astype(np.complex64))
        refused(["--arrays", path("complex.npz")], 'complex.npz: keys.npy: dtype "<c8"')
        refused(["--arrays", path("nothing.npz")], "nothing.npz: cannot open")
        # Layer weights: a layer the scenario does not have, one past the limit, a gap.
        def refused_stack(named, needle, scenario=stack):
            np.savez(path("layers.npz"), **named)
            _, err = cli([args.cli, "validate", scenario, "--arrays", path("layers.npz")], expect=2)
            if err.count("\n") != 1 or needle not in err:
                fail(f"{sorted(named)}: expected one error line with {needle!r}, got {err!r}")
        w = weights["layers.0.W_q"]
        refused_stack({"layers.2.W_q": w}, "layers.2.W_q: the scenario has 2 layers (layers.0 to layers.1)")
        refused_stack({"layers.16.W_q": w}, "layers.16.W_q: names layer 16, past the limit of 16 layers")
        refused_stack({"layers.01.W_q": w}, '"layers.01.W_q": is not a matrix field')
        refused_stack({"layers.0.W_q": w[:3]}, "layers[0].W_q: has 3 rows, expected 4")
        refused_stack({"x": x, "layers.0.W_q": w, "layers.2.W_q": w},
                      "layers.1: no array is named for this layer (layers.2.W_q is)", plain)
    print("ok: NumPy's .npy and .npz files read back exactly")


if __name__ == "__main__":
    main()
