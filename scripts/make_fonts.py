#!/usr/bin/python3
"""Subsets Debian's fonts to the glyphs the playground shows, at build time.

    make_fonts.py OUT_DIR TEXT_FILE...

Writes OUT_DIR/ui.ttf, bold.ttf, mono.ttf (DejaVu: Latin, Greek, punctuation, sub- and
superscripts, arrows, maths), cjk.ttf (WenQuanYi Micro Hei: the 3755 characters of GB2312
level 1, the most common in simplified Chinese, plus every CJK character in TEXT_FILEs, which
are the UI's translations and the presets), lang.ttf (the two characters 中文, always
loaded, for the language switch) and id.txt (a hash of the five, which kept font atlases are
checked against). The fonts come from fonts-dejavu-core and fonts-wqy-microhei; nothing is
downloaded and no font file is committed.
"""
import hashlib
import os
import sys

from fontTools import subset
from fontTools.ttLib import TTFont

DEJAVU = "/usr/share/fonts/truetype/dejavu"
WQY = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
LATIN = [(0x20, 0xFF), (0x370, 0x3FF), (0x1D00, 0x1DBF), (0x2000, 0x206F), (0x2070, 0x209F), (0x2190, 0x21FF),
         (0x2200, 0x22FF), (0x25A0, 0x25FF)]


def gb2312_level1():
    chars = []
    for hi in range(0xB0, 0xD8):
        for lo in range(0xA1, 0xFF):
            try:
                chars.append(bytes([hi, lo]).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    return chars


def subset_font(src, dst, unicodes, font_number=0):
    options = subset.Options()
    options.font_number = font_number
    options.layout_features = []
    options.hinting = False
    options.name_IDs = ["*"]
    options.notdef_outline = True
    options.drop_tables += ["FFTM"]
    font = subset.load_font(src, options)
    sub = subset.Subsetter(options)
    sub.populate(unicodes=unicodes)
    sub.subset(font)
    subset.save_font(font, dst, options)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: make_fonts.py OUT_DIR TEXT_FILE...")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    latin = [c for lo, hi in LATIN for c in range(lo, hi + 1)]
    for name, file in (("ui", "DejaVuSans.ttf"), ("bold", "DejaVuSans-Bold.ttf"),
                       ("mono", "DejaVuSansMono.ttf")):
        subset_font(os.path.join(DEJAVU, file), os.path.join(out, name + ".ttf"), latin)
    cjk = set(ord(c) for c in gb2312_level1())
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            cjk.update(ord(c) for c in f.read() if ord(c) >= 0x3000)
    cjk.update(range(0x3000, 0x3040))  # CJK punctuation
    cjk.update(range(0xFF01, 0xFF5F))  # full-width forms
    subset_font(WQY, os.path.join(out, "cjk.ttf"), sorted(cjk))
    # The two characters of the language switch, so that "中文" shows before cjk.ttf loads.
    subset_font(WQY, os.path.join(out, "lang.ttf"), [ord(c) for c in "中文"])
    # Every character the texts use must be drawable: in the UI font or the CJK font (else it
    # would show as "?"). Checked here, at build time.
    have = set(TTFont(os.path.join(out, "ui.ttf")).getBestCmap()) | set(
        TTFont(os.path.join(out, "cjk.ttf")).getBestCmap())
    missing = {}
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            for c in f.read():
                if ord(c) >= 0x20 and not c.isspace() and ord(c) not in have:
                    missing.setdefault(c, os.path.basename(path))
    if missing:
        sys.exit("make_fonts.py: no glyph for " + ", ".join(
            "U+%04X %s (in %s)" % (ord(c), c, where) for c, where in sorted(missing.items())))
    # The fonts' id, which a font atlas the page keeps from an earlier start is checked against
    # (src/app/widgets/font_cache.h): another set of fonts, another id.
    digest = hashlib.sha256()
    for name in ("ui", "bold", "mono", "cjk", "lang"):
        with open(os.path.join(out, name + ".ttf"), "rb") as f:
            digest.update(f.read())
    with open(os.path.join(out, "id.txt"), "w", encoding="ascii") as f:
        f.write(digest.hexdigest()[:16] + "\n")


if __name__ == "__main__":
    main()
