"""Report mails as `pbem run` sends them (issue 14): the HTML part shows the map and the
standings chart as PNG images (multipart/related, `cid:` references) rendered from the same
SVG the site uses, each with alt text; no inline <svg> is left for clients that show none;
the text part stays first and complete."""

from __future__ import annotations

import email
import email.policy
import re
import struct

from pbem import host
from pbem.mail import send as mail_send
from pbem.mail.settings import MailSettings
from pbem.render import png


def _size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_a_later_report_carries_map_and_chart_as_inline_png_with_alt_text(db, turns, tmp_path):
    host.new_game(db, "gods", "g1", ["alice:alice@example.org", "bob:bob@example.org"], seed="4", turns=turns)
    host.autoplay(db, "g1", max_phases=4, turns=turns)
    db.execute("update outbox set status = 'sent'")  # only the next report goes out below
    db.conn.commit()
    host.autoplay(db, "g1", max_phases=1, turns=turns)
    out = tmp_path / "eml"
    mail_send.send(db, MailSettings(sender="gm@pbem.example", name="Olympus Judge"), dry_run=out)
    alice = next(f for f in sorted(out.glob("*.eml")) if "alice-report" in f.name)
    msg = email.message_from_bytes(alice.read_bytes(), policy=email.policy.default)
    assert str(msg["From"]) == "Olympus Judge <gm@pbem.example>"
    # structure: alternative(text, related(html, png, png)); the text part first
    assert msg.get_content_type() == "multipart/alternative"
    text_part, related = msg.get_payload()
    assert text_part.get_content_type() == "text/plain" and related.get_content_type() == "multipart/related"
    html = related.get_payload()[0].get_content()
    images = related.get_payload()[1:]
    assert len(images) == 2 and all(i.get_content_type() == "image/png" for i in images)
    assert "<svg" not in html
    refs = re.findall(r'<img src="cid:([^"]+)" alt="([^"]+)"', html)
    assert [r[0] for r in refs] == [i["Content-ID"].strip("<>") for i in images]
    alts = [r[1] for r in refs]
    assert alts[0].startswith("GODS g1, turn") and "Gods: alice" in alts[0]  # the map's title and description
    assert alts[1].startswith("Standings over time")
    width, height = _size(images[0].get_content())
    declared = re.search(r'alt="GODS[^"]*" width="(\d+)" height="(\d+)"', html)
    assert declared and width == round(int(declared.group(1)) * png.ZOOM) and height == round(int(declared.group(2)) * png.ZOOM)
    # the text part is the whole report, order form included
    stored = db.execute("select text from reports where game_id = 'g1' and player = 'alice' order by phase desc").fetchone()[0]
    assert stored in text_part.get_content().replace("\r\n", "\n")


def test_a_drawing_that_cannot_be_rendered_leaves_its_alt_text():
    broken = ('<svg xmlns="http://www.w3.org/2000/svg" role="img" width="10" height="10"><title>The map</title>'
              "<g></svg>")  # not well-formed: resvg refuses it
    swatch = '<svg class="swatch" aria-hidden="true" width="14" height="14"><rect fill="#0072B2" stroke="#333"/></svg>'
    html, images = png.inline_images(f"<p>x</p>{broken}{swatch}", "t", "pbem.example")
    assert images == [] and "<p><em>The map.</em></p>" in html
    assert "<svg" not in html and "background:#0072B2" in html and "border:1px solid #333" in html
