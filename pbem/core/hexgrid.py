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


def draw(cells: dict[str, str], marks: dict[str, str] | None = None, width: int = 7) -> str:
    """Draw labelled cells as rows of hexes, each row shifted half a cell per r, so that
    neighbours touch as on the table. `cells` maps "q,r" to a short label (at most
    width-2 characters); `marks` labels empty cells (e.g. "." for where a card may go).
    Every cell shows its coordinates on the line above its label. A label may hold several
    lines (joined by "\n"); each is then padded to the cell's width."""
    marks = marks or {}
    allcells = {**{k: v for k, v in marks.items()}, **cells}
    if not allcells:
        return "(empty)"
    # issue 17: the cells grouped by row in one pass (x position in half-cells: 2q + r)
    rows: dict[int, list[tuple[int, str]]] = {}
    xmin = None
    for k in allcells:
        q, r = parse_key(k)
        x = 2 * q + r
        if xmin is None or x < xmin:
            xmin = x
        rows.setdefault(r, []).append((q, k))
    half = (width + 1) // 2
    lines = []
    for r in sorted(rows):
        row = [(q, k, allcells[k].split("\n")) for q, k in sorted(rows[r])]
        top = []
        depth = max(len(parts) for _, _, parts in row)
        mids: list[list[str]] = [[] for _ in range(depth)]
        cursor = 0
        for q, k, parts in row:
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
