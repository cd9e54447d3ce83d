"""Drawing helpers for the SVG maps and charts of the site and the HTML reports.

Only geometry and colours live here; the SVG markup itself comes from Jinja templates with
autoescape on (templates/site/chart.svg.j2, templates/<game>/map.svg.j2), so every name
that reaches a drawing is escaped.

Colours: games name their colours in words ("red", "green", ...). `fill()` maps each word to
the Okabe-Ito palette (Okabe & Ito 2008, "Color Universal Design"), which stays apart for
the common kinds of colour-blindness; `simulate()` and `delta_e()` let the tests check
that (see tests/test_site_svg.py). Every coloured thing on a map also carries a text label
or a pattern, so no information is carried by colour alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

# The Okabe-Ito palette.
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
}

# A game's colour word -> the colour drawn. Words outside Okabe-Ito's eight get a colour
# chosen to stay apart from the others in the same game (checked by the tests).
COLOURS = {
    "red": OKABE_ITO["vermillion"],
    "vermillion": OKABE_ITO["vermillion"],
    "blue": OKABE_ITO["blue"],
    "sky": OKABE_ITO["sky blue"],
    "skyblue": OKABE_ITO["sky blue"],
    "sky blue": OKABE_ITO["sky blue"],
    "cyan": OKABE_ITO["sky blue"],
    "yellow": OKABE_ITO["yellow"],
    "gold": OKABE_ITO["yellow"],
    "green": OKABE_ITO["bluish green"],
    "orange": OKABE_ITO["orange"],
    "purple": OKABE_ITO["reddish purple"],
    "violet": OKABE_ITO["reddish purple"],
    "pink": OKABE_ITO["reddish purple"],
    "black": OKABE_ITO["black"],
    "white": "#FFFFFF",
    "grey": "#555555",
    "gray": "#555555",
    "brown": "#6B3F14",
    "silver": "#BBBBBB",
    "teal": "#1F6F6F",
    "maroon": "#7F1734",
    "olive": "#6B6B12",
}

# Colours for things that are not a player's or a tribe's: land, water, neutral.
NEUTRAL = "#F4F1E8"
WATER = "#CFE3F0"
INK = "#1A1A1A"
FAINT = "#8A8A8A"

# For players without a colour of their own: Okabe-Ito in a fixed order.
SERIES = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]
# Line styles and point shapes, so chart lines differ without colour too.
DASHES = ["", "8 4", "2 3", "8 3 2 3", "12 4", "4 4", "1 2", "10 2 2 2"]
SHAPES = ["circle", "square", "triangle", "diamond", "circle", "square", "triangle", "diamond"]


def fill(word: str | None, default: str = NEUTRAL) -> str:
    """The drawn colour of a colour word (or a #rrggbb given as is)."""
    if not word:
        return default
    w = str(word).strip().lower()
    if len(w) == 7 and w.startswith("#") and all(c in "0123456789abcdef" for c in w[1:]):
        return w.upper()
    return COLOURS.get(w, default)


def _rgb(hexcolour: str) -> tuple[int, int, int]:
    h = hexcolour.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def _linear(c: float) -> float:
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(hexcolour: str) -> float:
    r, g, b = (_linear(c) for c in _rgb(hexcolour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ink(hexcolour: str) -> str:
    """Black or white text, whichever reads better on this fill (WCAG contrast)."""
    lum = luminance(hexcolour)
    return "#000000" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "#FFFFFF"


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


# Machado, Oliveira & Fernandes (2009), full severity, on linear RGB.
_CVD = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}
CVD_KINDS = tuple(_CVD)


def simulate(hexcolour: str, kind: str | None) -> tuple[float, float, float]:
    """Linear RGB of a colour as seen with a colour vision deficiency (None: normal)."""
    lin = [_linear(c) for c in _rgb(hexcolour)]
    if kind is None:
        return tuple(lin)  # type: ignore[return-value]
    m = _CVD[kind]
    return tuple(max(0.0, min(1.0, sum(m[i][j] * lin[j] for j in range(3)))) for i in range(3))  # type: ignore[return-value]


def _lab(lin: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = lin
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(a: str, b: str, kind: str | None = None) -> float:
    """CIE76 colour difference of two colours as seen with `kind` of colour-blindness."""
    return math.dist(_lab(simulate(a, kind)), _lab(simulate(b, kind)))


# --- hexes -------------------------------------------------------------------------------

SQRT3 = math.sqrt(3)


def hex_centre(q: int, r: int, size: float) -> tuple[float, float]:
    """Pointy-top axial coordinates to pixels (as pbem.core.hexgrid lays rows out)."""
    return size * SQRT3 * (q + r / 2), size * 1.5 * r


@lru_cache(maxsize=4096)
def hex_points(cx: float, cy: float, size: float) -> str:
    pts = []
    for i in range(6):
        a = math.radians(60 * i - 30)
        pts.append(f"{cx + size * math.cos(a):.1f},{cy + size * math.sin(a):.1f}")
    return " ".join(pts)


def hex_path(layout: "HexLayout", keys, size: float) -> str:
    """One path outlining the hexes `keys` of a layout: one element for all of them."""
    parts = []
    for h in (layout.cells[k] for k in keys):
        pts = hex_points(h.x, h.y, size).split()
        parts.append("M" + "L".join(pts) + "Z")
    return "".join(parts)


@dataclass
class Hex:
    at: str
    q: int
    r: int
    x: float
    y: float
    points: str


@dataclass
class HexLayout:
    """Cells placed on a canvas: `cells` maps "q,r" to a Hex with pixel centre and outline."""

    size: float
    width: float
    height: float
    cells: dict[str, Hex]

    @property
    def viewbox(self) -> str:
        return f"0 0 {self.width:.0f} {self.height:.0f}"

    def __getitem__(self, at: str) -> Hex:
        return self.cells[at]


def hex_layout(keys, size: float = 34, margin: float = 8, top: float = 0) -> HexLayout:
    """Lay out the hexes named by `keys` ("q,r" strings) on a canvas starting `top` pixels down.
    (Cached: a board drawn turn after turn is laid out once. Do not change the result.)"""
    return _hex_layout(tuple(str(k) for k in keys), float(size), float(margin), float(top))


@lru_cache(maxsize=256)
def _hex_layout(keys: tuple, size: float, margin: float, top: float) -> HexLayout:
    coords = []
    for k in keys:
        q, r = (int(v) for v in str(k).split(","))
        coords.append((str(k), q, r))
    if not coords:
        return HexLayout(size, 2 * margin, top + 2 * margin, {})
    raw = [(k, q, r, *hex_centre(q, r, size)) for k, q, r in coords]
    half_w = size * SQRT3 / 2
    xmin = min(x for *_, x, _ in raw) - half_w
    ymin = min(y for *_, y in raw) - size
    xmax = max(x for *_, x, _ in raw) + half_w
    ymax = max(y for *_, y in raw) + size
    cells = {}
    for k, q, r, x, y in raw:
        cx, cy = x - xmin + margin, y - ymin + margin + top
        cells[k] = Hex(k, q, r, round(cx, 1), round(cy, 1), hex_points(cx, cy, size - 1))
    return HexLayout(size, xmax - xmin + 2 * margin, ymax - ymin + 2 * margin + top, cells)


def frontier(keys) -> list[str]:
    """The empty cells next to the given cells (where a new card may go)."""
    taken = set()
    for k in keys:
        q, r = (int(v) for v in str(k).split(","))
        taken.add((q, r))
    out = set()
    for q, r in taken:
        for dq, dr in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)):
            c = (q + dq, r + dr)
            if c not in taken:
                out.add(c)
    return [f"{q},{r}" for q, r in sorted(out, key=lambda c: (c[1], c[0]))]


# --- shapes --------------------------------------------------------------------------------

def shape_path(shape: str, x: float, y: float, s: float = 4.0) -> str:
    """An SVG path for a point marker (so chart series differ by shape as well as colour)."""
    if shape == "square":
        return f"M{x - s:.1f},{y - s:.1f}h{2 * s:.1f}v{2 * s:.1f}h{-2 * s:.1f}z"
    if shape == "triangle":
        return f"M{x:.1f},{y - s * 1.2:.1f}L{x + s * 1.1:.1f},{y + s * 0.9:.1f}L{x - s * 1.1:.1f},{y + s * 0.9:.1f}z"
    if shape == "diamond":
        return f"M{x:.1f},{y - s * 1.3:.1f}L{x + s * 1.3:.1f},{y:.1f}L{x:.1f},{y + s * 1.3:.1f}L{x - s * 1.3:.1f},{y:.1f}z"
    return f"M{x - s:.1f},{y:.1f}a{s:.1f},{s:.1f} 0 1,0 {2 * s:.1f},0a{s:.1f},{s:.1f} 0 1,0 {-2 * s:.1f},0"


def abbreviations(names, length: int = 2) -> dict[str, str]:
    """Short unique labels for names (for markers on a map): 'athena' -> 'At'; when two
    names start alike, numbers in seat order instead."""
    names = [str(n) for n in names]
    labels = {x: x[:length].capitalize() for x in names}
    if len(set(labels.values())) == len(labels):
        return labels
    return {x: str(i + 1) for i, x in enumerate(names)}  # the legend says which is which


# --- the standings chart -------------------------------------------------------------------

def nice_ticks(lo: float, hi: float, count: int = 5, min_step: float = 0) -> list[float]:
    if hi <= lo:
        hi = lo + 1
    span = hi - lo
    raw = max(span / max(1, count), min_step)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks = [round(start, 10)]
    while ticks[-1] < hi - step * 1e-9:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


@dataclass
class Series:
    name: str
    colour: str
    dash: str
    shape: str
    path: str
    points: list[tuple[float, float, int, float]]  # x, y, turn, value
    label_y: float
    last: float
    light: bool = False  # a pale colour: drawn over a dark underlay to show on white


@dataclass
class Chart:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    series: list[Series]
    xticks: list[tuple[float, int]]
    yticks: list[tuple[float, float]]
    empty: bool
    plot_w: float = 0
    plot_h: float = 0
    markers: bool = True


def standings_chart(turns: list[int], scores: dict[str, list[float | None]], colours: dict[str, str],
                    width: int = 640, height: int = 260, max_points: int = 160) -> Chart:
    """Lay out a line chart of each player's score by turn. `scores[name][i]` is the score at
    `turns[i]` (None: unknown). Long games are thinned to about `max_points` points per line."""
    names = list(scores)
    label_w = 10 + 7 * max((len(n) for n in names), default=4) + 40
    left, right, top, bottom = 44, min(260, label_w), 12, 34
    pw, ph = width - left - right, height - top - bottom
    values = [v for vs in scores.values() for v in vs if v is not None]
    if not turns or not values:
        return Chart(width, height, left, right, top, bottom, [], [], [], True, pw, ph)
    lo, hi = min(0, min(values)), max(values)
    integral = all(float(v).is_integer() for v in values)
    yt = nice_ticks(lo, hi if hi > lo else lo + 1, min_step=1 if integral else 0)
    ylo, yhi = yt[0], yt[-1]
    t0, t1 = turns[0], turns[-1]

    def px(t: float) -> float:
        return left + (pw * (t - t0) / (t1 - t0) if t1 > t0 else pw / 2)

    def py(v: float) -> float:
        return top + ph - ph * (v - ylo) / (yhi - ylo)

    step = max(1, math.ceil(len(turns) / max_points))
    keep = [i for i in range(len(turns)) if i % step == 0 or i == len(turns) - 1]
    series = []
    for n, name in enumerate(names):
        vals = scores[name]
        pts = [(round(px(turns[i]), 1), round(py(vals[i]), 1), turns[i], vals[i]) for i in keep if vals[i] is not None]
        if not pts:
            continue
        path = "M" + " L".join(f"{x},{y}" for x, y, _, _ in pts)
        colour = colours.get(name) or SERIES[n % len(SERIES)]
        series.append(Series(name, colour, DASHES[n % len(DASHES)], SHAPES[n % len(SHAPES)], path, pts,
                             pts[-1][1], pts[-1][3], luminance(colour) > 0.4))
    # Spread the end labels so they do not overlap.
    order = sorted(series, key=lambda s: s.label_y)
    for prev, cur in zip(order, order[1:]):
        if cur.label_y - prev.label_y < 14:
            cur.label_y = prev.label_y + 14
    xt_vals = nice_ticks(t0, t1, 8, min_step=1) if t1 > t0 else [t0]
    xticks = [(round(px(t), 1), int(t)) for t in xt_vals if t0 <= t <= t1 and float(t).is_integer()]
    yticks = [(round(py(v), 1), v) for v in yt]
    extra = max((s.label_y for s in series), default=0) + 8 - (height - bottom)
    if extra > 0:
        height += int(extra)
    return Chart(width, height, left, right, top, bottom, series, xticks, yticks, False, pw, ph, len(keep) <= 60)
