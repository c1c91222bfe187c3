#!/usr/bin/env python3
"""Draws the app's install icons (web/icons/icon-192.png, icon-512.png): a 윷판 — the 29 spots
of the board, its square and two diagonals — on the app's red, with nothing but the standard
library (zlib for PNG). Run from anywhere: `python3 web/icons/make-icons.py`; the output is
committed, so the build needs no Python."""
import math
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
BG = (194, 69, 45)  # --primary
BOARD = (246, 241, 231)  # --bg
LINE = (140, 106, 58)
SPOT = (255, 248, 232)
BIG = (255, 231, 184)
SS = 4  # samples per pixel along each axis


def spots():
    """The 29 spots on a unit square (0..1), the corners and 방 marked big."""
    out = []
    corners = [(1, 1), (1, 0), (0, 0), (0, 1)]  # 참먹이, 모, 뒷모, 찌모
    for side in range(4):
        (x0, y0), (x1, y1) = corners[side], corners[(side + 1) % 4]
        for i in range(5):
            t = i / 5
            out.append((x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, i == 0))
    for (x0, y0), (x1, y1) in [((1, 0), (0, 1)), ((0, 0), (1, 1))]:
        for t in (1 / 6, 2 / 6, 4 / 6, 5 / 6):
            out.append((x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, False))
    out.append((0.5, 0.5, True))
    return out


def draw(size):
    img = [[list(BG) for _ in range(size)] for _ in range(size)]
    n = size * SS
    # Coverage layers painted in order: board square, lines, spots.
    pad = 0.2 * n
    span = n - 2 * pad
    board_pad = 0.12 * n

    def to_px(u):
        return pad + u * span

    shapes = []  # (inside(x, y) -> bool, bbox, colour)

    def rect(x0, y0, x1, y1, colour, radius=0.0):
        def inside(x, y):
            cx = min(max(x, x0 + radius), x1 - radius)
            cy = min(max(y, y0 + radius), y1 - radius)
            return (x - cx) ** 2 + (y - cy) ** 2 <= radius * radius
        shapes.append((inside, (x0, y0, x1, y1), colour))

    def segment(ax, ay, bx, by, width, colour):
        def inside(x, y):
            dx, dy = bx - ax, by - ay
            t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)))
            px, py = ax + t * dx, ay + t * dy
            return (x - px) ** 2 + (y - py) ** 2 <= (width / 2) ** 2
        r = width / 2
        shapes.append((inside, (min(ax, bx) - r, min(ay, by) - r, max(ax, bx) + r, max(ay, by) + r), colour))

    def circle(cx, cy, r, colour):
        shapes.append((lambda x, y: (x - cx) ** 2 + (y - cy) ** 2 <= r * r, (cx - r, cy - r, cx + r, cy + r), colour))

    rect(board_pad, board_pad, n - board_pad, n - board_pad, BOARD, radius=0.08 * n)
    w = 0.018 * n
    for a, b in [((0, 0), (1, 0)), ((1, 0), (1, 1)), ((1, 1), (0, 1)), ((0, 1), (0, 0)), ((0, 0), (1, 1)), ((1, 0), (0, 1))]:
        segment(to_px(a[0]), to_px(a[1]), to_px(b[0]), to_px(b[1]), w, LINE)
    for x, y, big in spots():
        r = (0.062 if big else 0.04) * n
        circle(to_px(x), to_px(y), r + w * 0.6, LINE)
        circle(to_px(x), to_px(y), r, BIG if big else SPOT)

    for inside, (x0, y0, x1, y1), colour in shapes:
        px0, py0 = max(0, int(x0 // SS)), max(0, int(y0 // SS))
        px1, py1 = min(size - 1, int(math.ceil(x1 / SS))), min(size - 1, int(math.ceil(y1 / SS)))
        for py in range(py0, py1 + 1):
            row = img[py]
            for px in range(px0, px1 + 1):
                hits = 0
                for sy in range(SS):
                    y = py * SS + sy + 0.5
                    for sx in range(SS):
                        if inside(px * SS + sx + 0.5, y):
                            hits += 1
                if hits:
                    a = hits / (SS * SS)
                    p = row[px]
                    for c in range(3):
                        p[c] = p[c] * (1 - a) + colour[c] * a
    return img


def png(img, path):
    size = len(img)
    raw = b"".join(b"\x00" + bytes(int(round(v)) for p in row for v in p) for row in img)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
        f.write(chunk(b"IEND", b""))


for size in (192, 512):
    png(draw(size), os.path.join(HERE, f"icon-{size}.png"))
