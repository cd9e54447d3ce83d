"""Axial hex coordinates (q, r) and a text drawing of a hex map for reports.

Pointy-top hexes; the six neighbours of q,r are q+1,r  q-1,r  q,r+1  q,r-1  q+1,r-1  q-1,r+1.
"""

from __future__ import annotations

NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))


def key(q: int, r: int) -> str:
    return f"{q},{r}"


def parse_key(k: str) -> tuple[int, int]:
    q, r = k.split(",")
    return int(q), int(r)


def neighbours(q: int, r: int) -> list[tuple[int, int]]:
    return [(q + dq, r + dr) for dq, dr in NEIGHBOURS]


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


class _Fields(dict):
    """A card's fields for str.format_map, a missing or empty one shown as `missing`."""

    __slots__ = ("missing",)

    def __getitem__(self, name):
        return dict.get(self, name) or self.missing


def labels(cards: list[dict], formats: dict[str, str], other: str = "", missing: str = "--") -> dict[str, str]:
    """The cells of `draw` for a list of cards on the board, each {"at": "q,r", "kind": ...}:
    each labelled by the format (str.format_map, e.g. "{colour:.2}/{god:.2}") of its kind,
    `other` for a kind not in `formats`, a field that is missing or empty shown as `missing`.
    Issue 17: one call for the whole board, where a template's loop cost a call a card."""
    out = {}
    for card in cards:
        fmt = formats.get(card["kind"])
        if fmt is None:
            out[card["at"]] = other
        else:
            fields = _Fields(card)
            fields.missing = missing
            out[card["at"]] = fmt.format_map(fields)
    return out


_CELLS: dict[str, tuple[int, int]] = {}  # a cell's key -> (q, r), as parsed before
_ROWS: dict[tuple, tuple[str, str, str]] = {}  # a row of one-line labels -> its lines, as drawn before


def draw(cells: dict[str, str], marks: dict[str, str] | None = None, width: int = 7) -> str:
    """Draw labelled cells as rows of hexes, each row shifted half a cell per r, so that
    neighbours touch as on the table. `cells` maps "q,r" to a short label (at most
    width-2 characters); `marks` labels empty cells (e.g. "." for where a card may go).
    Every cell shows its coordinates on the line above its label. A label may hold several
    lines (joined by "\n"); each is then padded to the cell's width."""
    allcells = {**marks, **cells} if marks else cells
    if not allcells:
        return "(empty)"
    # issue 17: the cells grouped by row in one pass (x position in half-cells: 2q + r), each
    # key parsed once a process
    rows: dict[int, list[tuple[int, str]]] = {}
    xmin = None
    for k in allcells:
        found = _CELLS.get(k)
        if found is None:
            if len(_CELLS) >= 1 << 16:
                _CELLS.clear()
            q, r = k.split(",")
            found = _CELLS[k] = (int(q), int(r))
        q, r = found
        x = 2 * q + r
        if xmin is None or x < xmin:
            xmin = x
        if r in rows:
            rows[r].append((q, k))
        else:
            rows[r] = [(q, k)]
    half = (width + 1) // 2
    lines = []
    for r in sorted(rows):
        row = sorted(rows[r])
        top = []
        cursor = 0
        labels = [allcells[k] for _, k in row]
        if not any("\n" in label for label in labels):  # issue 17: a row of one-line labels, drawn directly
            # and kept: a turn changes a few rows of a map (a board's cards, the same labels)
            key = (width, r - xmin, tuple(row), tuple(labels), marks is None or tuple(k in cells for _, k in row))
            drawn = _ROWS.get(key)
            if drawn is None:
                mid = []
                for (q, k), label in zip(row, labels):
                    x = (2 * q + r - xmin) * half
                    pad = " " * (x - cursor)
                    top.append(pad + k.center(width))
                    mid.append(pad + (f"[{label}]" if k in cells else f" {label} ").center(width))
                    cursor = x + width
                if len(_ROWS) >= 4096:
                    _ROWS.clear()
                drawn = _ROWS[key] = ("".join(top).rstrip(), "".join(mid).rstrip(), "")
            lines += drawn
            continue
        parted = [label.split("\n") for label in labels]
        depth = max(len(parts) for parts in parted)
        mids: list[list[str]] = [[] for _ in range(depth)]
        for (q, k), parts in zip(row, parted):
            x = (2 * q + r - xmin) * half
            pad = " " * (x - cursor)
            top.append(pad + k.center(width))
            framed = k in cells
            for i, mid in enumerate(mids):
                label = parts[i] if i < len(parts) else ""
                if depth > 1:
                    label = label.center(width - 2)
                mid.append(pad + (f"[{label}]" if framed else f" {label} ").center(width))
            cursor = x + width
        lines.append("".join(top).rstrip())
        lines.extend("".join(mid).rstrip() for mid in mids)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
