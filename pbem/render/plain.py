"""Markdown (the games' ORDERS.md) as plain text for a mail reply: no fences, no `**`, no
backticks, tables as one indented entry a row, wrapped to 78 columns; and the example order
form filled in with the reader's own game and name."""

from __future__ import annotations

import re
import textwrap

WIDTH = 78
_LINK = re.compile(r"\[([^\]]+)\]\(([^)]+)\)")


def inline(text: str) -> str:
    text = _LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})", text)
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text)
    text = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"\1", text)
    return text.replace("`", "")


def _cells(row: str) -> list[str]:
    return [inline(c.strip()) for c in row.strip().strip("|").split("|")]


def _table(rows: list[str]) -> list[str]:
    head = _cells(rows[0])
    body = [_cells(r) for r in rows[1:] if not re.fullmatch(r"\|?[\s:|-]+\|?", r.strip())]
    out = []
    for cells in body:
        first, rest = cells[0], cells[1:]
        parts = [rest[0]] if rest else []
        parts += [f"{head[i + 1].lower()}: {c}" for i, c in enumerate(rest[1:], start=1) if c and i + 1 < len(head)]
        entry = f"{first} -- {'; '.join(parts)}" if parts else first
        out += textwrap.wrap(entry, WIDTH, initial_indent="  ", subsequent_indent="      ") or [""]
    return out


def markdown_to_text(markdown: str) -> str:
    """Plain text a mail client shows as it is."""
    out: list[str] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("```"):
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                out.append("    " + lines[i])
                i += 1
            i += 1
            continue
        if line.lstrip().startswith("|"):
            rows = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append(lines[i])
                i += 1
            out += _table(rows)
            continue
        heading = re.match(r"^(#{1,6})\s+(.*)$", line)
        if heading:
            title = inline(heading.group(2)).strip()
            out += [title, ("=" if len(heading.group(1)) == 1 else "-") * len(title)]
        elif re.match(r"^\s*[-*]\s+", line):
            item = re.sub(r"^\s*[-*]\s+", "", line)
            out += textwrap.wrap(inline(item), WIDTH, initial_indent="  - ", subsequent_indent="    ") or ["  -"]
        elif line.strip():  # a paragraph: its source lines joined, then wrapped
            para = [line.strip()]
            while (i + 1 < len(lines) and lines[i + 1].strip() and not lines[i + 1].lstrip().startswith(("|", "```", "#"))
                   and not re.match(r"^\s*[-*]\s+", lines[i + 1])):
                i += 1
                para.append(lines[i].strip())
            out += textwrap.wrap(inline(" ".join(para)), WIDTH) or [""]
        else:
            out.append("")
        i += 1
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"


def fill_in_form(text: str, game_id: str, player: str | None) -> str:
    """The example order form with the reader's own GAME and PLAYER (and a placeholder for the
    password, which a reply never carries)."""
    text = re.sub(r"(?m)^(\s*)GAME \S+$", lambda m: f"{m.group(1)}GAME {game_id}", text)
    text = re.sub(r"(?m)^(\s*)PLAYER \S+$", lambda m: f"{m.group(1)}PLAYER {player or '<your name>'}", text)
    return re.sub(r"(?m)^(\s*)PASSWORD \S+$", lambda m: f"{m.group(1)}PASSWORD <your password>", text)
