#!/usr/bin/env python3
# png_check.py - what a screenshot shows, for t-html.sh: reads an 8-bit
# RGB or RGBA PNG (what Chromium writes) with zlib alone and prints, for
# each range of rows TOP..BOTTOM, a line: the share of pixels that are not
# white, the number of distinct colours, how many pixels are within 12 of
# each #rrggbb given, and how many are warm (red to yellow: a flame
# graph's frames).  The image is decoded once, down to the lowest row asked.
# Usage: png_check.py FILE TOP:BOTTOM[:#rrggbb...]...
import struct
import sys
import zlib


def rows(path, upto):
    """The image's width, bytes a pixel and its first `upto` rows, unfiltered
    (each row's filter reads the one above, so the rest need not be)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(path + ": not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        sys.exit(path + ": only 8-bit RGB(A), not interlaced, is read here")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    out = []
    for y in range(min(h, upto)):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        out.append(bytes(line))
        prev = line
    return w, bpp, out


def measure(w, bpp, lines, want):
    total = nonwhite = warm = 0
    colours = set()
    near = {c: 0 for c, _ in want}
    for line in lines:
        for x in range(0, w * bpp, bpp):
            px = line[x:x + 3]
            total += 1
            colours.add(px)
            if px != b"\xff\xff\xff":
                nonwhite += 1
            if px[0] >= 200 and px[2] <= 140 and px[1] < px[0]:
                warm += 1
            for c, rgb in want:
                if all(abs(px[k] - rgb[k]) <= 12 for k in range(3)):
                    near[c] += 1
    print("nonwhite=%.4f distinct=%d warm=%d %s" % (nonwhite / max(total, 1), len(colours), warm,
          " ".join("%s=%d" % (c, n) for c, n in near.items())))


def main():
    ranges = []
    for arg in sys.argv[2:]:
        top, bottom, *colours = arg.split(":")
        want = [(c, tuple(int(c[i:i + 2], 16) for i in (1, 3, 5))) for c in colours]
        ranges.append((int(top), int(bottom), want))
    if not ranges:
        sys.exit("usage: png_check.py FILE TOP:BOTTOM[:#rrggbb...]...")
    w, bpp, lines = rows(sys.argv[1], max(r[1] for r in ranges))
    for top, bottom, want in ranges:
        measure(w, bpp, lines[top:bottom], want)


main()
