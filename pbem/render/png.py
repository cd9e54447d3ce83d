"""The map and the standings chart as PNG, for mail clients that show no inline SVG (most
webmail, Outlook): rendered from the very SVG the site and the HTML report use
(pbem.render.svg and the map templates) by resvg (the `resvg-py` wheel: no system library
needed).

`inline_images(html)` turns an HTML page's drawings into `<img src="cid:...">` references and
returns the PNG images to attach beside it (a multipart/related part of the email): each
drawing that is an image (`role="img"`) becomes one PNG whose alt text is the drawing's
<title> and <desc>; the small decorative colour swatches (`aria-hidden`) become coloured
boxes drawn with CSS. A drawing that cannot be rendered is dropped and its alt text stands in
its place: the text part of the mail stays complete either way.
"""

from __future__ import annotations

import html
import logging
import re
from dataclasses import dataclass

log = logging.getLogger("pbem.render")

ZOOM = 1.5  # sharper on high-density screens; the <img> keeps the drawing's own size
MAX_IMAGES = 8
_SVG = re.compile(r"<svg\b[^>]*>.*?</svg>", re.DOTALL | re.IGNORECASE)
_ATTR = re.compile(r'\b([a-zA-Z:-]+)="([^"]*)"')


@dataclass
class Image:
    cid: str  # without the angle brackets: the Content-ID is <cid>, the reference cid:cid
    png: bytes
    alt: str
    width: int | None
    height: int | None


def svg_to_png(svg: str, zoom: float = ZOOM) -> bytes:
    """One SVG document as PNG bytes; ValueError when it cannot be rendered."""
    import resvg_py

    if "xmlns=" not in svg[:300]:
        svg = svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
    data = resvg_py.svg_to_bytes(svg_string=svg, zoom=zoom, background="#ffffff")
    return bytes(data)


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def alt_text(svg: str) -> str:
    """What the drawing shows, in words: its <title> and <desc>, else its aria-label."""
    parts = []
    for tag in ("title", "desc"):
        m = re.search(rf"<{tag}\b[^>]*>(.*?)</{tag}>", svg, re.DOTALL | re.IGNORECASE)
        if m and _text(m.group(1)):
            parts.append(_text(m.group(1)).rstrip("."))
    if not parts:
        m = re.search(r'aria-label="([^"]*)"', svg[:2000])
        if m:
            parts.append(html.unescape(m.group(1)))
    text = ". ".join(parts)
    return " ".join(text.split())[:500] + ("." if text else "")


def _opening(svg: str) -> dict[str, str]:
    head = re.match(r"<svg\b[^>]*>", svg, re.IGNORECASE)
    return dict(_ATTR.findall(head.group(0))) if head else {}


def _size(attrs: dict[str, str]) -> tuple[int | None, int | None]:
    def num(v):
        m = re.match(r"\s*([0-9.]+)\s*(px)?\s*$", v or "")
        return round(float(m.group(1))) if m else None
    w, h = num(attrs.get("width")), num(attrs.get("height"))
    if (w is None or h is None) and attrs.get("viewBox"):
        box = attrs["viewBox"].replace(",", " ").split()
        if len(box) == 4:
            try:
                w, h = w or round(float(box[2])), h or round(float(box[3]))
            except ValueError:
                pass
    return w, h


def _swatch(svg: str, attrs: dict[str, str]) -> str:
    """A decorative colour square as a CSS box (its first fill and stroke)."""
    fill = re.search(r'fill="(#[0-9A-Fa-f]{3,8})"', svg)
    if not fill:
        return ""
    stroke = re.search(r'stroke="(#[0-9A-Fa-f]{3,8})"', svg)
    w, h = _size(attrs)
    return (f'<span aria-hidden="true" style="display:inline-block;width:{w or 14}px;height:{h or 14}px;'
            f'background:{fill.group(1)};border:1px solid {stroke.group(1) if stroke else "#333"};border-radius:3px;'
            'vertical-align:middle"></span>')


def inline_images(page: str, prefix: str, domain: str = "pbem.invalid") -> tuple[str, list[Image]]:
    """The page with its drawings replaced by `cid:` images (see the module docstring), and
    the images. `prefix` and `domain` make the Content-IDs unique (PREFIX.imgN@DOMAIN)."""
    images: list[Image] = []

    def replace(m: re.Match) -> str:
        svg = m.group(0)
        attrs = _opening(svg)
        if attrs.get("aria-hidden") == "true":
            return _swatch(svg, attrs)
        alt = alt_text(svg) or "a drawing"
        if len(images) >= MAX_IMAGES:
            return f"<p><em>{html.escape(alt)}</em></p>"
        try:
            png = svg_to_png(svg)
        except (ValueError, OSError, ImportError) as err:
            log.warning("cannot render a drawing as PNG (%s): its alt text stands instead", err)
            return f"<p><em>{html.escape(alt)}</em></p>"
        w, h = _size(attrs)
        cid = f"{prefix}.img{len(images) + 1}@{domain}"
        images.append(Image(cid=cid, png=png, alt=alt, width=w, height=h))
        size = (f' width="{w}"' if w else "") + (f' height="{h}"' if h else "")
        return (f'<img src="cid:{html.escape(cid)}" alt="{html.escape(alt)}"{size} '
                'style="max-width:100%;height:auto;display:block">')

    return _SVG.sub(replace, page), images
