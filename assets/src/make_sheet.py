#!/usr/bin/env python3
"""Generates the example art assets in assets/ (standard library only).

Run from the repository root:

    python3 assets/src/make_sheet.py

Writes, deterministically:
  assets/critters.png + assets/critters.json  spritesheet, TexturePacker "JSON Hash" format
  assets/grass_tile.png                        64x64 opaque seamless tile
  assets/panel.png                             48x48 nine-slice panel (12 px border)
  assets/critters-LICENSE.txt                  CC0 1.0 dedication

Sheet conventions (as PixiJS's Spritesheet reads them): frames are trimmed to their
opaque bounds (spriteSourceSize = offset/size inside the 48x48 source); a frame with
"rotated": true is stored turned 90 degrees clockwise, and its frame.w/frame.h give the
size before rotation (the region in the image is frame.h wide and frame.w tall).
All PNGs are RGBA 8-bit, straight (not premultiplied) alpha, non-interlaced.
"""

import json
import math
import os
import random
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ASSETS = os.path.dirname(HERE)

SRC = 48          # source frame size
SS = 4            # supersampling per axis
OUTLINE = 1.4     # outline width in pixels
FRAMES = 6


# --------------------------------------------------------------------------- PNG I/O

def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def encode_png(width, height, rgba):
    """rgba: bytes/bytearray of width*height*4 straight-alpha RGBA8. Adaptive row filters."""
    stride = width * 4
    out = bytearray()
    prev = bytearray(stride)
    for y in range(height):
        row = rgba[y * stride:(y + 1) * stride]
        cands = []
        # 0 None
        cands.append((0, bytes(row)))
        # 1 Sub
        f = bytearray(stride)
        for i in range(stride):
            f[i] = (row[i] - (row[i - 4] if i >= 4 else 0)) & 255
        cands.append((1, bytes(f)))
        # 2 Up
        f = bytearray(stride)
        for i in range(stride):
            f[i] = (row[i] - prev[i]) & 255
        cands.append((2, bytes(f)))
        # 4 Paeth
        f = bytearray(stride)
        for i in range(stride):
            a = row[i - 4] if i >= 4 else 0
            c = prev[i - 4] if i >= 4 else 0
            f[i] = (row[i] - _paeth(a, prev[i], c)) & 255
        cands.append((4, bytes(f)))
        best = min(cands, key=lambda t: sum(v if v < 128 else 256 - v for v in t[1]))
        out.append(best[0])
        out += best[1]
        prev = bytearray(row)

    def chunk(tag, data):
        c = struct.pack(">I", len(data)) + tag + data
        return c + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(bytes(out), 9)) + chunk(b"IEND", b""))


def decode_png(data):
    """Decodes an 8-bit RGBA non-interlaced PNG (what encode_png writes). Returns (w, h, bytearray)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w, h = 8, bytearray(), None, None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        tag = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if tag == b"IHDR":
            w, h, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", body)
            assert (depth, ctype, inter) == (8, 6, 0)
        elif tag == b"IDAT":
            idat += body
    raw = zlib.decompress(bytes(idat))
    stride = w * 4
    pix = bytearray(w * h * 4)
    prev = bytearray(stride)
    for y in range(h):
        ft = raw[y * (stride + 1)]
        f = raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        row = bytearray(stride)
        for i in range(stride):
            a = row[i - 4] if i >= 4 else 0
            b = prev[i]
            c = prev[i - 4] if i >= 4 else 0
            if ft == 0:
                p = 0
            elif ft == 1:
                p = a
            elif ft == 2:
                p = b
            elif ft == 3:
                p = (a + b) >> 1
            else:
                p = _paeth(a, b, c)
            row[i] = (f[i] + p) & 255
        pix[y * stride:(y + 1) * stride] = row
        prev = row
    return w, h, pix


# --------------------------------------------------------------------------- image helper

class Image:
    def __init__(self, w, h):
        self.w, self.h = w, h
        self.px = bytearray(w * h * 4)

    def get(self, x, y):
        i = (y * self.w + x) * 4
        return tuple(self.px[i:i + 4])

    def set(self, x, y, c):
        i = (y * self.w + x) * 4
        self.px[i:i + 4] = bytes(c)

    def crop(self, x0, y0, w, h):
        out = Image(w, h)
        for y in range(h):
            s = ((y0 + y) * self.w + x0) * 4
            out.px[y * w * 4:(y + 1) * w * 4] = self.px[s:s + w * 4]
        return out

    def rotated_cw(self):
        """90 degrees clockwise: new(x', y') = old(x = y', y = h - 1 - x')."""
        out = Image(self.h, self.w)
        for yn in range(out.h):
            for xn in range(out.w):
                out.set(xn, yn, self.get(yn, self.h - 1 - xn))
        return out

    def rotated_ccw(self):
        """Inverse of rotated_cw: new(x', y') = old(x = w - 1 - y', y = x')."""
        out = Image(self.h, self.w)
        for yn in range(out.h):
            for xn in range(out.w):
                out.set(xn, yn, self.get(self.w - 1 - yn, xn))
        return out

    def blit(self, src, x0, y0):
        for y in range(src.h):
            d = ((y0 + y) * self.w + x0) * 4
            self.px[d:d + src.w * 4] = src.px[y * src.w * 4:(y + 1) * src.w * 4]

    def opaque_bounds(self):
        xs, ys = [], []
        for y in range(self.h):
            for x in range(self.w):
                if self.px[(y * self.w + x) * 4 + 3]:
                    xs.append(x)
                    ys.append(y)
        return min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1


def resolve(acc, n):
    """acc = premultiplied (r, g, b, a) sums over n samples, a in 0..1 -> straight RGBA8."""
    r, g, b, a = acc
    if a <= 0:
        return (0, 0, 0, 0)
    return (min(255, int(r / a + 0.5)), min(255, int(g / a + 0.5)),
            min(255, int(b / a + 0.5)), min(255, int(255 * a / n + 0.5)))


# --------------------------------------------------------------------------- SDF shapes

def sd_circle(cx, cy, r):
    return (lambda x, y: math.hypot(x - cx, y - cy) - r), (cx - r, cy - r, cx + r, cy + r)


def sd_ellipse(cx, cy, rx, ry, ang=0.0):
    ca, sa = math.cos(ang), math.sin(ang)
    m = min(rx, ry)

    def f(x, y):
        dx, dy = x - cx, y - cy
        u, v = dx * ca + dy * sa, -dx * sa + dy * ca
        return (math.hypot(u / rx, v / ry) - 1.0) * m
    e = max(rx, ry)
    return f, (cx - e, cy - e, cx + e, cy + e)


def sd_capsule(ax, ay, bx, by, r):
    vx, vy = bx - ax, by - ay
    ll = vx * vx + vy * vy or 1e-9

    def f(x, y):
        t = max(0.0, min(1.0, ((x - ax) * vx + (y - ay) * vy) / ll))
        return math.hypot(x - ax - vx * t, y - ay - vy * t) - r
    return f, (min(ax, bx) - r, min(ay, by) - r, max(ax, bx) + r, max(ay, by) + r)


def sd_poly(pts):
    n = len(pts)

    def f(x, y):
        d = float("inf")
        inside = False
        for i in range(n):
            ax, ay = pts[i]
            bx, by = pts[(i + 1) % n]
            ex, ey = bx - ax, by - ay
            wx, wy = x - ax, y - ay
            t = max(0.0, min(1.0, (wx * ex + wy * ey) / (ex * ex + ey * ey)))
            d = min(d, math.hypot(wx - ex * t, wy - ey * t))
            if (ay > y) != (by > y) and x < ax + (y - ay) * ex / ey:
                inside = not inside
        return -d if inside else d
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    return f, (min(xs), min(ys), max(xs), max(ys))


class Drawing:
    """Layers painted in order; each shape optionally gets a dark outline beneath its fill."""

    def __init__(self, outline_colour):
        self.layers = []
        self.ink = outline_colour

    def add(self, shape, colour, outline=True):
        f, (x0, y0, x1, y1) = shape
        if outline:
            w = OUTLINE
            self.layers.append((lambda x, y, f=f: f(x, y) - w,
                                (x0 - w, y0 - w, x1 + w, y1 + w), self.ink))
        self.layers.append((f, (x0, y0, x1, y1), colour))

    def render(self, w=SRC, h=SRC):
        img = Image(w, h)
        offs = [(i + 0.5) / SS for i in range(SS)]
        n = SS * SS
        for py in range(h):
            for px in range(w):
                act = [l for l in self.layers
                       if l[1][0] - 1 <= px + 1 and l[1][2] + 1 >= px
                       and l[1][1] - 1 <= py + 1 and l[1][3] + 1 >= py]
                if not act:
                    continue
                act.reverse()
                r = g = b = a = 0.0
                for oy in offs:
                    sy = py + oy
                    for ox in offs:
                        sx = px + ox
                        for f, _, c in act:
                            if f(sx, sy) <= 0:
                                al = c[3] / 255.0
                                r += c[0] * al
                                g += c[1] * al
                                b += c[2] * al
                                a += al
                                break
                if a > 0:
                    img.set(px, py, resolve((r, g, b, a), n))
        return img


# --------------------------------------------------------------------------- critters

INK = (34, 24, 38, 255)
WHITE = (250, 250, 245, 255)


def blob_frame(i):
    """Green slime hopping to the right: squash/stretch, bob, shuffling feet, one big eye."""
    t = 2 * math.pi * i / FRAMES
    bob = 3.0 * abs(math.sin(t))
    sq = 0.12 * math.cos(2 * t)
    rx, ry = 14.0 * (1 + sq), 12.0 * (1 - sq)
    cx = 23.0
    ground = 44.5
    cy = ground - 3.0 - ry - bob
    d = Drawing(INK)
    # feet (back foot first, darker)
    f1 = 5.0 * math.sin(t)
    lift1 = max(0.0, 2.5 * math.cos(t))
    lift2 = max(0.0, -2.5 * math.cos(t))
    d.add(sd_ellipse(cx - 6 - f1, ground - 2.0 - lift1, 4.5, 2.6), (46, 120, 52, 255))
    # sprout on top, leaning back and swaying
    sway = 0.35 * math.sin(t + 0.8)
    bx, by = cx - 3, cy - ry + 1
    tx, ty = bx - 6 * math.sin(0.5 + sway), by - 8 * math.cos(0.5 + sway)
    d.add(sd_capsule(bx, by, tx, ty, 1.0), (60, 140, 60, 255))
    d.add(sd_ellipse(tx - 2.5, ty - 0.5, 3.6, 1.8, -0.4 + sway), (120, 210, 90, 255))
    # body
    d.add(sd_ellipse(cx, cy, rx, ry), (92, 196, 96, 255))
    d.add(sd_ellipse(cx - rx * 0.38, cy - ry * 0.45, rx * 0.32, ry * 0.2, -0.5), (170, 236, 160, 255), outline=False)
    d.add(sd_ellipse(cx - 8 + f1 * 0.3, ground - 2.0 - lift2, 4.5, 2.6), (70, 160, 72, 255))
    # big eye on the right, looking right
    ex, ey = cx + rx * 0.45, cy - ry * 0.2
    d.add(sd_ellipse(ex, ey, 4.2, 5.0), WHITE)
    d.add(sd_circle(ex + 1.6, ey + 0.6 - 0.8 * math.sin(t), 2.1), INK, outline=False)
    d.add(sd_circle(ex + 0.9, ey - 0.6 - 0.8 * math.sin(t), 0.7), WHITE, outline=False)
    # mouth: small open/closed line on the right
    mo = 0.6 + 0.6 * abs(math.cos(t))
    d.add(sd_ellipse(cx + rx * 0.62, cy + ry * 0.42, 2.4, mo), (150, 40, 60, 255), outline=False)
    return d.render()


def bird_frame(i):
    """Red bird facing right, flapping: wing sweeps up/down, body bobs, tail flicks."""
    t = 2 * math.pi * i / FRAMES
    bob = 2.5 * math.sin(t)
    cx, cy = 23.0, 27.0 + bob
    d = Drawing(INK)
    # legs dangling
    for k, lx in enumerate((-2.0, 2.5)):
        sw = 1.2 * math.sin(t + k)
        d.add(sd_capsule(cx + lx, cy + 9, cx + lx - 1 + sw, cy + 15, 0.7), (230, 150, 40, 255))
    # tail (left), flicks with the flap
    tf = 2.5 * math.cos(t)
    d.add(sd_poly([(cx - 8, cy - 2), (cx - 19, cy - 7 + tf), (cx - 18, cy + 1 + tf), (cx - 8, cy + 4)]),
          (150, 40, 48, 255))
    # body + belly
    d.add(sd_ellipse(cx, cy + 1, 11.0, 9.0, -0.15), (214, 62, 64, 255))
    d.add(sd_ellipse(cx + 3, cy + 4.5, 6.5, 4.0, -0.2), (250, 210, 150, 255), outline=False)
    # head (right) with crest
    hx, hy = cx + 9, cy - 6
    d.add(sd_poly([(hx - 3, hy - 5), (hx - 6, hy - 11), (hx - 1, hy - 7), (hx + 1, hy - 12), (hx + 2, hy - 5)]),
          (180, 44, 56, 255))
    d.add(sd_circle(hx, hy, 6.5), (224, 72, 70, 255))
    # beak pointing right, opens slightly on the downstroke
    op = 1.2 * max(0.0, math.sin(t))
    d.add(sd_poly([(hx + 4.5, hy - 2.2), (hx + 12, hy + 0.3 - op * 0.3), (hx + 4.8, hy + 1.2)]), (250, 190, 40, 255))
    d.add(sd_poly([(hx + 4.5, hy + 1.2 + op * 0.2), (hx + 10, hy + 1.8 + op), (hx + 4.0, hy + 3.5)]), (226, 150, 30, 255))
    # eye on the right side of the head
    d.add(sd_circle(hx + 2.2, hy - 1.5, 2.2), WHITE, outline=False)
    d.add(sd_circle(hx + 2.9, hy - 1.3, 1.2), INK, outline=False)
    # wing: rotates about the shoulder, from up (frame 0) to down (frame 3)
    a = math.radians(62) * math.cos(t) + math.radians(12)
    sx, sy = cx - 1, cy - 3
    L = 13.0
    dx, dy = -math.cos(a), -math.sin(a)          # from the shoulder towards the wing tip
    wx, wy = sx + L * 0.5 * dx, sy + L * 0.5 * dy
    d.add(sd_ellipse(wx, wy, L * 0.62, 3.6, a), (170, 40, 52, 255))
    d.add(sd_ellipse(wx - 1.0 * dx, wy - 1.0 * dy - 0.6, L * 0.35, 1.4, a), (236, 110, 100, 255), outline=False)
    return d.render()


def beetle_frame(i):
    """Blue-green beetle crawling right: alternating tripod legs, wiggling antennae, spotted shell."""
    t = 2 * math.pi * i / FRAMES
    bob = 0.8 * abs(math.sin(t))
    cx, cy = 19.5, 33.0 - bob
    ground = 45.0
    d = Drawing(INK)
    leg_col = (40, 40, 60, 255)
    # far legs (darker, behind body)
    for k, bx in enumerate((-8.0, 0.0, 8.0)):
        ph = t + math.pi * ((k + 1) % 2)
        fx = cx + bx + 1 + 3.0 * math.cos(ph)
        lift = max(0.0, 2.0 * math.sin(ph))
        d.add(sd_capsule(cx + bx + 1, cy + 3, fx + 2, ground - 1.5 - lift, 1.0), (28, 28, 44, 255), outline=False)
    # antennae from the head, wiggling
    hx, hy = cx + 15, cy + 2
    for k, (a0, ln) in enumerate(((-0.9, 9.0), (-0.55, 8.0))):
        a = a0 + 0.25 * math.sin(t * 2 + k * 1.7)
        ax, ay = hx + 2 + ln * math.cos(a), hy - 2 + ln * math.sin(a)
        d.add(sd_capsule(hx + 2, hy - 2, ax, ay, 0.6), leg_col, outline=False)
        d.add(sd_circle(ax, ay, 1.3), leg_col, outline=False)
    # head with mandible and eye (right side)
    d.add(sd_poly([(hx + 4, hy + 1), (hx + 9, hy + 2.5 + 0.8 * math.sin(2 * t)), (hx + 4, hy + 4)]), (60, 50, 40, 255))
    d.add(sd_circle(hx, hy, 5.0), (50, 58, 86, 255))
    d.add(sd_circle(hx + 2.2, hy - 1.4, 1.6), WHITE, outline=False)
    d.add(sd_circle(hx + 2.7, hy - 1.2, 0.8), INK, outline=False)
    # shell: dome clipped flat at the bottom
    rx, ry = 15.0, 11.0
    shell, _ = sd_ellipse(cx, cy, rx, ry)
    base = cy + 4.0
    d.add(((lambda x, y: max(shell(x, y), y - base)), (cx - rx, cy - ry, cx + rx, base)), (46, 150, 140, 255))
    d.add(sd_capsule(cx - rx + 3, base - 1.2, cx + rx - 3, base - 1.2, 1.4), (30, 96, 96, 255), outline=False)
    # shell seam and asymmetric spots
    d.add(sd_capsule(cx + 1, cy - ry + 1.5, cx + 1 - 2.5, base - 3, 0.5), (24, 80, 82, 255), outline=False)
    d.add(sd_ellipse(cx - 6, cy - 6, 4.0, 1.6, -0.5), (150, 230, 210, 255), outline=False)
    for (sx, sy, sr) in ((cx + 6, cy - 4, 2.3), (cx - 5, cy + 0.5, 1.8), (cx + 9, cy + 1, 1.3)):
        d.add(sd_circle(sx, sy, sr), (250, 210, 70, 255), outline=False)
    # near legs (in front)
    for k, bx in enumerate((-9.0, -1.0, 7.0)):
        ph = t + math.pi * (k % 2)
        fx = cx + bx + 3.0 * math.cos(ph)
        lift = max(0.0, 2.2 * math.sin(ph))
        kx, ky = (cx + bx + fx) / 2 - 1.5, base + 3.0 - lift * 0.5
        d.add(sd_capsule(cx + bx, base, kx, ky, 1.1), leg_col, outline=False)
        d.add(sd_capsule(kx, ky, fx + 1.5, ground - lift, 1.0), leg_col, outline=False)
    return d.render()


ANIMS = [("blob_walk", blob_frame), ("bird_flap", bird_frame), ("beetle_crawl", beetle_frame)]


# --------------------------------------------------------------------------- packing

BORDER = 1   # empty margin at the image edge
PAD = 2      # empty pixels between frames


def shelf_pack(items, size):
    """items: list of (name, w, h) already in stored orientation. Returns {name: (x, y)} or None."""
    W, H = size
    order = sorted(items, key=lambda it: (-it[2], -it[1], it[0]))
    pos = {}
    x, y, shelf_h = BORDER, BORDER, 0
    for name, w, h in order:
        if x + w + BORDER > W:
            x, y, shelf_h = BORDER, y + shelf_h + PAD, 0
        if x + w + BORDER > W or y + h + BORDER > H:
            return None
        pos[name] = (x, y)
        x += w + PAD
        shelf_h = max(shelf_h, h)
    return pos


def build_sheet():
    sources = {}     # name -> untrimmed 48x48 Image
    anims = {}
    frames = []      # (name, trimmed image, (tx, ty, tw, th), rotated)
    for anim, fn in ANIMS:
        names = []
        for i in range(FRAMES):
            name = "%s_%d.png" % (anim, i)
            img = fn(i)
            sources[name] = img
            tx, ty, tw, th = img.opaque_bounds()
            # nothing may touch the source edges (would mean clipped art)
            assert tx > 0 and ty > 0 and tx + tw < SRC and ty + th < SRC, (name, tx, ty, tw, th)
            trimmed = img.crop(tx, ty, tw, th)
            # The packer stores landscape frames rotated (clockwise) so shelves stay short.
            rot = tw > th
            frames.append((name, trimmed, (tx, ty, tw, th), rot))
            names.append(name)
        anims[anim] = names

    items = [(n, (r[3] if rot else r[2]), (r[2] if rot else r[3])) for n, _, r, rot in frames]
    for size in ((64, 64), (128, 64), (128, 128), (256, 128), (256, 256), (512, 256), (512, 512)):
        pos = shelf_pack(items, size)
        if pos:
            break
    W, H = size
    sheet = Image(W, H)
    fjson = {}
    for name, trimmed, (tx, ty, tw, th), rot in frames:
        x, y = pos[name]
        sheet.blit(trimmed.rotated_cw() if rot else trimmed, x, y)
        fjson[name] = {
            "frame": {"x": x, "y": y, "w": tw, "h": th},
            "rotated": rot,
            "trimmed": (tw, th) != (SRC, SRC),
            "spriteSourceSize": {"x": tx, "y": ty, "w": tw, "h": th},
            "sourceSize": {"w": SRC, "h": SRC},
            "anchor": {"x": 0.5, "y": 1.0},
        }
    doc = {
        "frames": fjson,
        "animations": anims,
        "meta": {
            "app": "make_sheet.py",
            "version": "1",
            "image": "critters.png",
            "format": "RGBA8888",
            "size": {"w": W, "h": H},
            "scale": "1",
        },
    }
    return sheet, doc, sources


# --------------------------------------------------------------------------- grass tile

def grass_tile(n=64, seed=20240611):
    rnd = random.Random(seed)

    def lattice(cells):
        return [[rnd.random() for _ in range(cells)] for _ in range(cells)]

    def smooth(t):
        return t * t * (3 - 2 * t)

    def vnoise(grid, x, y):
        cells = len(grid)
        s = n / cells
        gx, gy = x / s, y / s
        x0, y0 = int(math.floor(gx)), int(math.floor(gy))
        fx, fy = smooth(gx - x0), smooth(gy - y0)
        x0 %= cells
        y0 %= cells
        x1, y1 = (x0 + 1) % cells, (y0 + 1) % cells
        a = grid[y0][x0] + (grid[y0][x1] - grid[y0][x0]) * fx
        b = grid[y1][x0] + (grid[y1][x1] - grid[y1][x0]) * fx
        return a + (b - a) * fy

    g2, g4, g8, g16 = lattice(2), lattice(4), lattice(8), lattice(16)
    dirt_c = (128, 94, 58)
    grass_c = (74, 142, 58)
    img = [[None] * n for _ in range(n)]
    for y in range(n):
        for x in range(n):
            low = 0.6 * vnoise(g2, x, y) + 0.4 * vnoise(g4, x, y)
            det = 0.6 * vnoise(g8, x, y) + 0.4 * vnoise(g16, x, y)
            # dirt where the low-frequency field is high, soft edge
            m = max(0.0, min(1.0, (low - 0.62) / 0.08))
            shade = 0.82 + 0.36 * det
            c = [(grass_c[k] * (1 - m) + dirt_c[k] * m) * shade for k in range(3)]
            # periodic fine streaks (period divides the tile)
            c[1] += 6.0 * math.sin(2 * math.pi * (3 * x + 5 * y) / n)
            img[y][x] = c

    # grass blades, pebbles: drawn with wrap-around so they cross the edges seamlessly
    strokes = []
    for _ in range(150):
        bx, by = rnd.uniform(0, n), rnd.uniform(0, n)
        ln = rnd.uniform(3.0, 7.0)
        ang = -math.pi / 2 + rnd.uniform(-0.6, 0.6)
        light = rnd.random()
        col = (60 + 70 * light, 120 + 80 * light, 40 + 30 * light)
        strokes.append(("blade", sd_capsule(bx, by, bx + ln * math.cos(ang), by + ln * math.sin(ang), 0.55), col))
    for _ in range(14):
        bx, by = rnd.uniform(0, n), rnd.uniform(0, n)
        lx, ly = int(bx) % n, int(by) % n
        r = rnd.uniform(0.8, 1.6)
        g = rnd.randint(140, 180)
        strokes.append(("pebble", sd_circle(bx, by, r), (g, g - 10, g - 25)))
    offs = [(i + 0.5) / SS for i in range(SS)]
    for kind, (f, (x0, y0, x1, y1)), col in strokes:
        for py in range(int(math.floor(y0)) - 1, int(math.ceil(y1)) + 1):
            for px in range(int(math.floor(x0)) - 1, int(math.ceil(x1)) + 1):
                cov = sum(1 for oy in offs for ox in offs if f(px + ox, py + oy) <= 0) / (SS * SS)
                if cov <= 0:
                    continue
                c = img[py % n][px % n]
                img[py % n][px % n] = [c[k] * (1 - cov) + col[k] * cov for k in range(3)]
    out = Image(n, n)
    for y in range(n):
        for x in range(n):
            out.set(x, y, tuple(max(0, min(255, int(v + 0.5))) for v in img[y][x]) + (255,))
    return out


# --------------------------------------------------------------------------- nine-slice panel

def panel(n=48, border=12, radius=10.0):
    outline = (40, 26, 30)
    gold = (206, 150, 62)
    centre = (38, 52, 96, 176)   # straight colour, semi-opaque

    def sd_round_rect(x, y):
        h = n / 2.0
        qx, qy = abs(x - h) - (h - radius), abs(y - h) - (h - radius)
        return math.hypot(max(qx, 0), max(qy, 0)) + min(max(qx, qy), 0) - radius

    def colour(x, y):
        d = sd_round_rect(x, y)
        if d > 0:
            return None
        depth = -d     # distance in from the outer edge
        if depth < 1.6:
            return outline + (255,)
        e = 0.01
        gx = sd_round_rect(x + e, y) - sd_round_rect(x - e, y)
        gy = sd_round_rect(x, y + e) - sd_round_rect(x, y - e)
        gl = math.hypot(gx, gy) or 1.0
        light = (-gx - gy) / gl / math.sqrt(2)     # +1 facing top-left, -1 bottom-right
        if depth < border - 2.5:
            # outer raised bevel: lit top-left, shadowed bottom-right; ridge in the middle
            k = 1.0 + 0.38 * light * (1.0 - (depth - 1.6) / (border - 4.1))
            if 5.0 <= depth < 6.0:
                k = 1.25   # thin highlight groove running round the frame
            return tuple(max(0, min(255, int(c * k))) for c in gold) + (255,)
        if depth < border - 1.0:
            # inner sunken lip: opposite lighting
            k = 1.0 - 0.45 * light
            return tuple(max(0, min(255, int(c * k * 0.8))) for c in gold) + (255,)
        if depth < border:
            return outline + (255,)
        return centre

    rivets = [(6.0, 6.0), (n - 6.0, 6.0), (6.0, n - 6.0), (n - 6.0, n - 6.0)]
    img = Image(n, n)
    offs = [(i + 0.5) / SS for i in range(SS)]
    for py in range(n):
        for px in range(n):
            r = g = b = a = 0.0
            for oy in offs:
                for ox in offs:
                    x, y = px + ox, py + oy
                    c = colour(x, y)
                    for rx, ry in rivets:
                        dd = math.hypot(x - rx, y - ry)
                        if dd < 2.4:
                            c = outline + (255,)
                            if dd < 1.7:
                                c = (236, 226, 200, 255) if (x - rx) + (y - ry) < 0 else (150, 120, 80, 255)
                    if c is None:
                        continue
                    al = c[3] / 255.0
                    r += c[0] * al
                    g += c[1] * al
                    b += c[2] * al
                    a += al
            img.set(px, py, resolve((r, g, b, a), SS * SS))
    return img


LICENSE = """\
critters.png, critters.json, grass_tile.png and panel.png in this directory are
generated by assets/src/make_sheet.py, which is part of this repository; run

    python3 assets/src/make_sheet.py

from the repository root to regenerate them.

These files (and assets/src/make_sheet.py) are dedicated to the public domain
under CC0 1.0 Universal:

    CC0 1.0 Universal (CC0 1.0) Public Domain Dedication: No Copyright. You can copy,
    modify, distribute and perform the work, even for commercial purposes, all
    without asking permission.

Full legal text: https://creativecommons.org/publicdomain/zero/1.0/
"""


def write(name, data, mode="wb"):
    with open(os.path.join(ASSETS, name), mode) as fh:
        fh.write(data)


def main():
    sheet, doc, _ = build_sheet()
    write("critters.png", encode_png(sheet.w, sheet.h, sheet.px))
    write("critters.json", (json.dumps(doc, indent=2) + "\n").encode())
    tile = grass_tile()
    write("grass_tile.png", encode_png(tile.w, tile.h, tile.px))
    p = panel()
    write("panel.png", encode_png(p.w, p.h, p.px))
    write("critters-LICENSE.txt", LICENSE.encode())


if __name__ == "__main__":
    main()
