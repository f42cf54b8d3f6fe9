#!/usr/bin/env python3
"""Draws the street picture of the lesson `where_the_eye_goes` (assets/presets/where_the_eye_goes.json):
sky, a building with windows, a red sign with white writing, a tree, a red car, a road with
lane marks. 64 x 40 pixels, cut into 8 x 8 patches. Prints the preset's "image" object.

Usage: scripts/street_picture.py [--features]   (--features: each patch's numbers, as the
playground computes them in src/scenario/image.cpp, to write the lesson's notes from)
"""
import json
import sys

W, H, P = 64, 40, 8
SKY, CLOUD = (135, 196, 235), (245, 248, 252)
WALL, WINDOW, FRAME = (168, 160, 150), (60, 80, 110), (230, 230, 225)
SIGN, INK = (205, 35, 30), (255, 240, 200)
LEAF, TRUNK = (50, 140, 60), (110, 75, 40)
CAR, GLASS, WHEEL = (200, 40, 35), (170, 200, 220), (30, 30, 30)
ROAD, MARK = (85, 85, 90), (240, 240, 240)

px = [[SKY] * W for _ in range(H)]


def rect(x0, y0, x1, y1, colour):
    for y in range(y0, y1):
        for x in range(x0, x1):
            px[y][x] = colour


# A cloud in the sky (soft: few edges inside it).
rect(42, 3, 58, 7, CLOUD)
rect(45, 1, 55, 3, CLOUD)
# The building: rows 8..31, columns 16..39 (patches r2-r4, c3-c5), with windows on r2 and r4.
rect(16, 8, 40, 32, WALL)
for wx in (18, 26, 34):
    rect(wx, 10, wx + 4, 14, WINDOW)
    rect(wx, 26, wx + 4, 30, WINDOW)
# The sign on the building: patches r3 c3-c4 (x 16..31, y 16..23), red, with its writing (two
# small characters) on the left patch and a plain red panel on the right one.
rect(16, 16, 32, 24, SIGN)
for x0 in (17, 20):
    rect(x0, 17, x0 + 3, 18, INK)       # top stroke
    rect(x0 + 1, 17, x0 + 2, 23, INK)   # down stroke
    rect(x0, 20, x0 + 3, 21, INK)       # middle stroke
rect(17, 22, 18, 23, INK)
rect(22, 22, 23, 23, INK)
# The tree: canopy on patches r2-r3 c1-c2, trunk below.
rect(1, 9, 15, 23, LEAF)
rect(6, 23, 10, 32, TRUNK)
# The car: patches r4 c6-c7 (x 40..55, y 24..31): a red body, a window, wheels below.
rect(40, 26, 56, 32, CAR)
rect(43, 24, 53, 26, CAR)
rect(45, 24, 51, 26, GLASS)
# The road: the bottom row of patches, with lane marks; the wheels sit on it.
rect(0, 32, W, H, ROAD)
for mx in (2, 18, 34, 50):
    rect(mx, 36, mx + 8, 37, MARK)
rect(42, 32, 46, 34, WHEEL)
rect(50, 32, 54, 34, WHEEL)


def features():
    def bright(c):
        return (0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]) / 255.0

    out = []
    for pr in range(H // P):
        for pc in range(W // P):
            s = [0, 0, 0]
            change, pairs = 0.0, 0
            for y in range(pr * P, (pr + 1) * P):
                for x in range(pc * P, (pc + 1) * P):
                    c = px[y][x]
                    for k in range(3):
                        s[k] += c[k]
                    if x + 1 < (pc + 1) * P:
                        change += abs(bright(px[y][x + 1]) - bright(c))
                        pairs += 1
                    if y + 1 < (pr + 1) * P:
                        change += abs(bright(px[y + 1][x]) - bright(c))
                        pairs += 1
            f = [round(v / (P * P * 255.0), 2) for v in s]
            f.append(round(min(1.0, 2.0 * change / pairs), 2))
            out.append(("r%dc%d" % (pr + 1, pc + 1), f))
    return out


if "--features" in sys.argv:
    for name, f in features():
        print(name, f)
else:
    rows = ["".join("%02x%02x%02x" % c for c in row) for row in px]
    print(json.dumps({"width": W, "height": H, "patch": P, "pixels": rows}))
