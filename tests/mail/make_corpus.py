"""Write the mail corpus of tests/mail/ (run from the repository root:
`.venv/bin/python tests/mail/make_corpus.py`). The files are committed; this script is how
they were made and how to make more. Each file's expected outcome is in expected.toml.

The quoted reports are real pbem reports: game g1 (GODS, seed 1, alice and bob), turn 1,
rendered by pbem itself. Passwords: alice amber-anvil-11, bob birch-cedar-22 (the tests set
them), dave delta-ember-33 (game g2, no registered address), erin elm-fern-44 (game late1).
"""

from __future__ import annotations

import base64
import quopri
import sys
import tempfile
import zipfile
from email.message import EmailMessage
from email.policy import SMTP
from io import BytesIO
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from pbem import host, render  # noqa: E402
from pbem.host.store import open_db  # noqa: E402

render.install()

ALICE = "amber-anvil-11"
BOB = "birch-cedar-22"
DAVE = "delta-ember-33"
ERIN = "elm-fern-44"
GM = "pbem g1 <gm@pbem.example>"
DATE = "Sat, 21 Nov 2026 14:05:00 +0000"
ORDERS = "tribe green 1,0\ndiscard green\n"


def report_text() -> str:
    with tempfile.TemporaryDirectory() as tmp:
        db = open_db(str(Path(tmp) / "c.db"))
        host.new_game(db, "gods", "g1", ["alice:alice@example.org", "bob:bob@example.org"], seed="1", turns=None)
        return host.report(db, "g1", "alice")


REPORT = report_text()
FOOTER = ("\n-- \nThis message was sent by pbem, the adjudicator of game g1. Reply to it with your\n"
          "orders (GAME, PLAYER and PASSWORD lines, one order a line, END).\n")
MAILED = REPORT + FOOTER


def quote(text: str, prefix: str = "> ") -> str:
    return "\n".join((prefix + line).rstrip() if line else prefix.rstrip() for line in text.split("\n"))


def head(subject: str, mid: str, sender: str = "Alice Example <alice@example.org>", extra: str = "",
         ctype: str = 'text/plain; charset="us-ascii"', cte: str = "7bit") -> str:
    out = ""
    if sender is not None:
        out += f"From: {sender}\n"
    out += (f"To: {GM}\nSubject: {subject}\nDate: {DATE}\nMessage-ID: <{mid}@mail.example.org>\n"
            f"MIME-Version: 1.0\n{extra}Content-Type: {ctype}\nContent-Transfer-Encoding: {cte}\n\n")
    return out


def orders(player="alice", password=ALICE, game="g1", body=ORDERS, end=True) -> str:
    return f"GAME {game}\nPLAYER {player}\nPASSWORD {password}\n{body}" + ("END\n" if end else "")


def filled_form(text: str, password: str = ALICE, typed: str = ORDERS, quoted: bool = False) -> str:
    """The report with its order form filled in: the password put in, orders typed above END."""
    out = []
    lines = text.split("\n")
    last_end = max(i for i, ln in enumerate(lines) if ln == "END")
    for i, line in enumerate(lines):
        if line == "PASSWORD your-password-here":
            out.append(f"PASSWORD {password}")
            continue
        if i == last_end:
            out += typed.rstrip("\n").split("\n")
        out.append(("> " + line).rstrip() if quoted else line)
    return "\n".join(out)


FILES: dict[str, bytes] = {}


def put(name: str, text: str | bytes, crlf: bool = False, encoding: str = "utf-8") -> None:
    data = text if isinstance(text, bytes) else text.encode(encoding)
    if crlf:
        data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    FILES[name] = data


def qp(text: str, charset: str) -> str:
    return quopri.encodestring(text.encode(charset)).decode("ascii")


def b64(data: bytes) -> str:
    return base64.encodebytes(data).decode("ascii")


# --- accepted: clients and encodings ----------------------------------------------------

put("c01-plain.eml", head("[g1] orders", "c01") + "Hi GM,\n\n" + orders() + "\nCheers, Alice\n")
put("c02-crlf.eml", head("[g1] orders", "c02") + orders() + "\n", crlf=True)
put("c03-qp-utf8.eml", head("[g1] orders", "c03", ctype='text/plain; charset="utf-8"', cte="quoted-printable")
    + qp("Bonjour, voilà mes ordres – à bientôt!\n" + orders(body="# déjà vu: " + "très long commentaire " * 12 + "\n" + ORDERS), "utf-8"))
put("c04-base64-utf8.eml", head("[g1] orders", "c04", ctype='text/plain; charset="utf-8"', cte="base64")
    + b64(("Grüße aus München!\n" + orders()).encode("utf-8")))
put("c05-utf8-bom.eml", head("[g1] orders", "c05", ctype='text/plain; charset="utf-8"', cte="8bit").encode()
    + b"\xef\xbb\xbf" + orders().encode())
put("c06-windows-1252.eml", head("[g1] orders", "c06", ctype='text/plain; charset="windows-1252"', cte="quoted-printable")
    + qp("\u201cHere they are\u201d \u2013 my orders \u2026\n" + orders(body="# na\u00efve \u20ac plan\n" + ORDERS), "cp1252"))
put("c07-iso-8859-1.eml", head("[g1] orders", "c07", ctype='text/plain; charset="iso-8859-1"', cte="8bit").encode()
    + ("Salut! Ordres ci-dessous, señor.\n" + orders(body="# façade\n" + ORDERS)).encode("iso-8859-1"))
put("c08-iso-8859-15.eml", head("[g1] orders", "c08", ctype='text/plain; charset="iso-8859-15"', cte="quoted-printable")
    + qp("Prix: 5 \u20ac\n" + orders(body="# \u0153uvre \u20ac\n" + ORDERS), "iso-8859-15"))
put("c09-koi8-r.eml", head("[g1] orders", "c09", ctype='text/plain; charset="koi8-r"', cte="base64")
    + b64(("Привет! Вот мои приказы.\n" + orders(body="# это комментарий\n" + ORDERS) + "С уважением, Алиса\n").encode("koi8-r")))
put("c10-html-only.eml", head("[g1] orders", "c10", ctype='text/html; charset="utf-8"', cte="7bit")
    + "<html><head><style>p {margin:0}</style></head><body><div dir=\"ltr\"><p>Hello&nbsp;GM,</p>"
      "<p>GAME g1<br>PLAYER alice<br>PASSWORD amber-anvil-11<br>move 0,0 -&gt; 0,1<br>END</p>"
      "<p>Best,<br>Alice</p></div></body></html>\n")
put("c11-alternative-prefers-plain.eml", head("[g1] orders", "c11", ctype='multipart/alternative; boundary="ALT"')
    + "--ALT\nContent-Type: text/plain; charset=utf-8\n\n" + orders()
    + "\n--ALT\nContent-Type: text/html; charset=utf-8\n\n<p>GAME g1<br>PLAYER alice<br>PASSWORD amber-anvil-11<br>tribe green 0,1<br>END</p>\n--ALT--\n")
put("c12-alternative-empty-plain.eml", head("[g1] orders", "c12", ctype='multipart/alternative; boundary="ALT"')
    + "--ALT\nContent-Type: text/plain; charset=utf-8\n\nThis message is in HTML. Your client cannot show it.\n"
    + "\n--ALT\nContent-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n"
    + qp("<div>GAME g1</div><div>PLAYER alice</div><div>PASSWORD amber-anvil-11</div><div>temple 2,-1</div><div>END</div>", "utf-8")
    + "\n--ALT--\n")
put("c13-txt-attachment.eml", head("[g1] orders", "c13", ctype='multipart/mixed; boundary="MIX"')
    + "--MIX\nContent-Type: text/plain; charset=utf-8\n\nMy orders are attached.\n\n--MIX\n"
      "Content-Type: text/plain; charset=utf-8; name=\"orders.txt\"\nContent-Disposition: attachment; filename=\"orders.txt\"\n"
      "Content-Transfer-Encoding: base64\n\n" + b64(orders().encode()) + "--MIX--\n")
put("c14-txt-attachment-utf16.eml", head("[g1] orders", "c14", ctype='multipart/mixed; boundary="MIX"')
    + "--MIX\nContent-Type: text/plain; charset=utf-8\n\nSaved with Notepad, attached.\n\n--MIX\n"
      "Content-Type: application/octet-stream; name=\"orders.txt\"\nContent-Disposition: attachment; filename=\"orders.txt\"\n"
      "Content-Transfer-Encoding: base64\n\n" + b64(b"\xff\xfe" + orders().replace("\n", "\r\n").encode("utf-16-le")) + "--MIX--\n")
put("c15-reply-top-posted-gmail.eml", head("Re: [g1] turn 1 report", "c15", extra="In-Reply-To: <pbem.1.aaaa@pbem.example>\n")
    + orders(end=False) + "\nOn Sat, 21 Nov 2026 at 14:00, pbem g1 <gm@pbem.example> wrote:\n\n" + quote(MAILED) + "\n")
put("c16-reply-bottom-posted.eml", head("Re: [g1] turn 1 report", "c16")
    + "pbem g1 <gm@pbem.example> writes:\n\n" + quote(MAILED) + "\n\nPASSWORD amber-anvil-11\n" + ORDERS + "\n-- \nAlice\n")
put("c17-reply-form-filled-quoted.eml", head("Re: [g1] turn 1 report", "c17")
    + "On Sat, 21 Nov 2026 14:00, pbem g1 wrote:\n" + filled_form(MAILED, quoted=True) + "\n")
put("c18-reply-form-filled-unquoted.eml", head("Re: [g1] turn 1 report", "c18")
    + "Here you go, form filled in below.\n\n" + filled_form(MAILED) + "\n")
put("c19-outlook-top-posted.eml", head("RE: [g1] turn 1 report", "c19", ctype='text/plain; charset="us-ascii"')
    + orders(end=False) + "\n\n-----Original Message-----\nFrom: pbem g1 <gm@pbem.example>\nSent: Saturday, November 21, 2026 2:00 PM\n"
      "To: Alice Example <alice@example.org>\nSubject: [g1] turn 1 report\n\n" + MAILED + "\n", crlf=True)
_outlook_html = (
    "<html xmlns:o=\"urn:schemas-microsoft-com:office:office\"><head><meta http-equiv=Content-Type content=\"text/html; charset=windows-1252\">"
    "<style><!-- p.MsoNormal {margin:0cm; font-family:\"Calibri\",sans-serif;} --></style></head>"
    "<body lang=EN-GB link=\"#0563C1\"><div class=WordSection1>"
    "<p class=MsoNormal>Hi \u2013 orders below<o:p></o:p></p><p class=MsoNormal><o:p>&nbsp;</o:p></p>"
    "<p class=MsoNormal>GAME g1<o:p></o:p></p><p class=MsoNormal>PLAYER alice<o:p></o:p></p>"
    "<p class=MsoNormal>PASSWORD amber-anvil-11<o:p></o:p></p><p class=MsoNormal>tribe green 1,0<o:p></o:p></p>"
    "<p class=MsoNormal>discard green<o:p></o:p></p><p class=MsoNormal><o:p>&nbsp;</o:p></p>"
    "<div style='border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm'>"
    "<p class=MsoNormal><b>From:</b> pbem g1 &lt;gm@pbem.example&gt; <br><b>Sent:</b> 21 November 2026 14:00<br>"
    "<b>To:</b> Alice Example &lt;alice@example.org&gt;<br><b>Subject:</b> [g1] turn 1 report<o:p></o:p></p></div>"
    + "".join(f"<p class=MsoNormal>{line.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;') or '&nbsp;'}<o:p></o:p></p>" for line in MAILED.split("\n"))
    + "</div></body></html>\n"
)
put("c20-outlook-html.eml", head("RE: [g1] turn 1 report", "c20", ctype='text/html; charset="windows-1252"', cte="quoted-printable")
    + qp(_outlook_html, "cp1252"), crlf=True)
put("c21-iphone.eml", head("Re: [g1] turn 1 report", "c21", ctype='text/plain; charset=utf-8; format=flowed; delsp=yes')
    + "GAME g1\nPLAYER alice\nPASSWORD amber-anvil-11\ntribe green 1,0\ndiscard green\n\nSent from my iPhone\n\n"
      "> On 21 Nov 2026, at 14:00, pbem g1 <gm@pbem.example> wrote:\n>\n" + quote(MAILED) + "\n")
_android_plain = orders(end=False) + "\nGet Outlook for Android\n\n________________________________\nFrom: pbem g1 <gm@pbem.example>\n" \
    "Sent: Saturday, November 21, 2026 2:00:00 PM\nTo: alice@example.org\nSubject: [g1] turn 1 report\n\n" + MAILED
_android_html = ("<html><body><div dir=\"auto\">GAME g1<br>PLAYER alice<br>PASSWORD amber-anvil-11<br>tribe green 1,0<br>discard green</div>"
                 "<div dir=\"auto\"><br></div><div>Get <a href=\"https://aka.ms/ghei36\">Outlook for Android</a></div>"
                 "<hr><div id=\"divRplyFwdMsg\"><b>From:</b> pbem g1 &lt;gm@pbem.example&gt;<br><b>Sent:</b> Saturday, November 21, 2026 2:00:00 PM<br>"
                 "<b>To:</b> alice@example.org<br><b>Subject:</b> [g1] turn 1 report</div><pre>" + MAILED.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                 + "</pre></body></html>")
put("c22-android-outlook.eml", head("Re: [g1] turn 1 report", "c22", ctype='multipart/alternative; boundary="AND"')
    + "--AND\nContent-Type: text/plain; charset=\"utf-8\"\nContent-Transfer-Encoding: base64\n\n" + b64(_android_plain.encode())
    + "\n--AND\nContent-Type: text/html; charset=\"utf-8\"\nContent-Transfer-Encoding: base64\n\n" + b64(_android_html.encode()) + "\n--AND--\n")
put("c23-signature.eml", head("[g1] orders", "c23")
    + orders(end=False) + "\n-- \nAlice Example\nTel. +44 20 7946 0000\nmove fast and break things\n")
put("c24-forwarded-inline.eml", head("Fwd: orders", "c24")
    + "Sending again, see below.\n\n---------- Forwarded message ---------\nFrom: Alice Example <alice@example.org>\n"
      "Date: Sat, 21 Nov 2026 at 13:00\nSubject: orders\nTo: <gm@pbem.example>\n\n" + orders() + "\n")
_inner = ("From: Alice Example <alice@example.org>\nTo: gm@pbem.example\nSubject: orders\nDate: " + DATE
          + "\nMessage-ID: <c25-inner@mail.example.org>\nContent-Type: text/plain; charset=utf-8\n\n" + orders())
put("c25-forwarded-attachment.eml", head("Fwd: orders", "c25", ctype='multipart/mixed; boundary="FWD"')
    + "--FWD\nContent-Type: text/plain; charset=utf-8\n\nFYI, my orders as an attachment.\n\n--FWD\n"
      "Content-Type: message/rfc822\nContent-Disposition: attachment; filename=\"orders.eml\"\n\n" + _inner + "\n--FWD--\n")
put("c26-long-lines.eml", head("[g1] orders", "c26", ctype='text/plain; charset="utf-8"', cte="8bit")
    + "GAME g1\nPLAYER alice\nPASSWORD amber-anvil-11\n# " + "x" * 200_000 + "\n" + ORDERS + "END\n" + "y" * 300_000 + "\n")
put("c27-subject-tag-only.eml", head("Re: [g1] turn 1 report", "c27") + "PLAYER alice\nPASSWORD amber-anvil-11\n" + ORDERS + "END\n")
put("c28-player-from-sender.eml", head("[g1] my orders", "c28") + "PASSWORD amber-anvil-11\n" + ORDERS + "END\n")
put("c29-lowercase-colon-headers.eml", head("orders", "c29") + "game: g1\nplayer: Alice\npassword: amber-anvil-11\n" + ORDERS + "end\n")
put("c30-report-request.eml", head("[g1] report please", "c30") + "GAME g1\nPLAYER alice\nPASSWORD amber-anvil-11\nREPORT\n")
put("c31-help-request.eml", head("[g1] help?", "c31", sender="Someone <someone@example.net>") + "HELP\n")
put("c32-no-registered-address.eml", head("[g2] orders", "c32", sender="Dave <dave.elsewhere@example.net>")
    + orders(player="dave", password=DAVE, game="g2"))
put("c33-resubmission.eml", head("[g1] changed my mind", "c33") + orders(body="temple 2,-1\n"))

# --- rejected ------------------------------------------------------------------------------

put("r01-bad-password.eml", head("[g1] orders", "r01") + orders(password="wrong-guess-99"))
put("r02-unknown-game.eml", head("orders", "r02") + orders(game="nosuch"))
put("r03-unknown-player.eml", head("[g1] orders", "r03") + orders(player="zeus"))
put("r04-parse-errors.eml", head("[g1] orders", "r04") + orders(body="attack the castle\nbuild 12 temples at once\n"))
put("r05-wrong-phase.eml", head("[g1] orders", "r05", sender="Bob <bob@example.org>") + orders(player="bob", password=BOB))
put("r06-late.eml", head("[late1] orders", "r06", sender="Erin <erin@example.org>") + orders(player="erin", password=ERIN, game="late1"))
put("r07-sender-mismatch.eml", head("[g1] orders", "r07", sender="Mallory <mallory@evil.example>") + orders())
put("r08-no-from.eml", head("[g1] orders", "r08", sender=None) + orders())
_zip = BytesIO()
with zipfile.ZipFile(_zip, "w") as zf:
    zf.writestr("orders.txt", orders())
put("r09-zip-attachment.eml", head("[g1] orders", "r09", ctype='multipart/mixed; boundary="ZIP"')
    + "--ZIP\nContent-Type: text/plain; charset=utf-8\n\nOrders zipped, see attachment.\n\n--ZIP\n"
      "Content-Type: application/zip; name=\"orders.zip\"\nContent-Disposition: attachment; filename=\"orders.zip\"\n"
      "Content-Transfer-Encoding: base64\n\n" + b64(_zip.getvalue()) + "--ZIP--\n")
_nested = "From: alice@example.org\nSubject: inner\nContent-Type: text/plain\n\n" + orders()
for level in range(12):
    _nested = (f"From: alice@example.org\nSubject: level {level}\nContent-Type: multipart/mixed; boundary=\"N{level}\"\n\n"
               f"--N{level}\nContent-Type: text/plain\n\nforwarded\n\n--N{level}\nContent-Type: message/rfc822\n\n{_nested}\n--N{level}--\n")
put("r10-nested-rfc822-deep.eml", head("[g1] orders", "r10", ctype='multipart/mixed; boundary="TOP"')
    + "--TOP\nContent-Type: text/plain\n\nsee inside\n\n--TOP\nContent-Type: message/rfc822\n\n" + _nested + "\n--TOP--\n")
put("r11-dup-message-id-a.eml", head("[g1] orders", "dup") + orders(body="tribe green 0,1\n"))
put("r12-dup-message-id-b.eml", head("[g1] orders", "dup") + orders(body="move 0,0 -> 0,1\n"))
put("r13-placeholder-password.eml", head("Re: [g1] turn 1 report", "r13") + filled_form(MAILED, password="your-password-here", quoted=True) + "\n")
put("r14-game-over.eml", head("[done1] orders", "r14", sender="Gina <gina@example.org>") + orders(player="gina", password="gold-grove-55", game="done1"))

# --- hostile ---------------------------------------------------------------------------------

put("h01-header-injection-subject.eml",
    "From: Alice Example <alice@example.org>\nTo: gm@pbem.example\n"
    "Subject: =?utf-8?q?[g1]_orders=0D=0ABcc=3A_victim=40example=2Ecom=0D=0A=0D=0Ainjected?=\n"
    f"Date: {DATE}\nMessage-ID: <h01@mail.example.org>\nContent-Type: text/plain\n\n" + orders())
put("h02-from-name-injection.eml",
    "From: =?utf-8?q?Alice=0D=0ABcc=3A_x=40evil=2Eexample?= <alice@example.org>\nTo: gm@pbem.example\n"
    f"Subject: [g1] orders\nDate: {DATE}\nMessage-ID: <h02@mail.example.org>\nContent-Type: text/plain\n\n" + orders())
put("h04-binary-garbage.eml", head("hello", "h04", ctype="application/octet-stream", cte="8bit").encode()
    + bytes(range(256)) * 40)
put("h05-malformed-headers.eml", "this is not a header\nFrom alice but no colon\n:::\n\nGAME\nPLAYER\n")
put("h06-empty.eml", b"")
put("h07-bogus-charset.eml", head("[g1] orders", "h07", ctype='text/plain; charset="x-no-such-charset"', cte="8bit") + orders())
put("h08-broken-base64.eml", head("[g1] orders", "h08", cte="base64")
    + b64(orders().encode()).replace("\n", "\n!!").rstrip("=!") + "=\n")
put("h09-many-parts.eml", head("[g1] orders", "h09", ctype='multipart/mixed; boundary="MANY"')
    + "--MANY\nContent-Type: text/plain\n\n" + orders() + "\n"
    + "".join(f"--MANY\nContent-Type: application/octet-stream; name=\"p{i}.bin\"\n\n{i}\n" for i in range(700)) + "--MANY--\n")
put("h10-quoted-old-orders.eml", head("Re: [g1] orders", "h10")
    + orders(body="temple 2,-1\n") + "\nOn Sat, 21 Nov 2026 at 13:00, Alice Example <alice@example.org> wrote:\n"
    + quote(orders(body="tribe green 0,1\n")) + "\n")
put("h11-prose-game-line.eml", head("You won!", "h11", sender="Promo <promo@casino.example>")
    + "Dear friend,\nGame: casino\nClaim your prize now.\n")
put("h12-html-hidden-script.eml", head("prize", "h12", sender="Promo <promo@casino.example>", ctype='text/html; charset="utf-8"')
    + "<html><head><script>var s = 'GAME g1\\nPLAYER alice\\nPASSWORD x';</script><style>.x{}</style></head>"
      "<body><p>Win a prize</p></body></html>\n")

# --- ignored ---------------------------------------------------------------------------------

put("i01-auto-submitted.eml", head("Out of office: Re: [g1] turn 1 report", "i01", extra="Auto-Submitted: auto-replied\n")
    + "I am away until Monday.\n\n" + quote(MAILED) + "\n")
put("i02-outlook-ooo.eml", head("Automatic reply: [g1] turn 1 report", "i02", extra="X-Auto-Response-Suppress: All\n")
    + "I am out of the office.\n")
put("i03-precedence-bulk.eml", head("[g1] newsletter", "i03", extra="Precedence: bulk\n") + orders())
_bounce = EmailMessage()
_bounce["From"] = "Mail Delivery System <MAILER-DAEMON@mx.example.org>"
_bounce["To"] = "gm@pbem.example"
_bounce["Subject"] = "Undelivered Mail Returned to Sender"
_bounce["Date"] = DATE
_bounce["Message-ID"] = "<i04@mx.example.org>"
_bounce.set_content("This is the mail system at host mx.example.org.\n\nI'm sorry to have to inform you that your message could not be delivered.\n")
_returned = EmailMessage()
_returned["From"] = "pbem g1 <gm@pbem.example>"
_returned["To"] = "alice@example.org"
_returned["Subject"] = "[g1] turn 1 report"
_returned["X-PBEM-Mail"] = "report g1 1"
_returned.set_content(MAILED)
_bounce.add_attachment(_returned)
_bounce.replace_header("Content-Type", _bounce["Content-Type"].replace("multipart/mixed", "multipart/report"))
put("i04-bounce-mailer-daemon.eml", _bounce.as_bytes(policy=SMTP))
put("i05-null-return-path.eml", "Return-Path: <>\n" + head("[g1] returned", "i05", sender="Mail System <system@mx.example.org>") + quote(MAILED))
put("i06-own-message.eml", head("[g1] turn 1 report", "i06", sender=GM, extra="X-PBEM-Mail: report g1 1\nAuto-Submitted: auto-generated\n") + MAILED)
put("i07-spam.eml", head("Cheap pills", "i07", sender="Sales <sales@spam.example>") + "Buy now! Limited offer.\n")
put("i08-x-spam-flag.eml", head("[g1] orders", "i08", extra="X-Spam-Flag: YES\nX-Spam-Status: Yes, score=12.1\n") + orders())
put("i09-list-mail.eml", head("[boardgames] GODS rules question", "i09", sender="Bob <bob@example.org>",
                               extra="List-Id: Board games <boardgames.lists.example.org>\n") + "Anyone know the temple rule?\n")
put("i10-postmaster.eml", head("Delivery report", "i10", sender="postmaster@example.org") + "Your message was delivered.\n")

# --- an mbox and a folder of order files ------------------------------------------------------

_mbox = (
    "From alice@example.org Sat Nov 21 14:10:00 2026\n" + head("[g1] orders", "m01") + orders()
    + "\n>From the start I liked this game.\n\n"
    "From MAILER-DAEMON Sat Nov 21 14:11:00 2026\n" + head("Undelivered Mail", "m02", sender="MAILER-DAEMON@mx.example.org")
    + "Delivery failed.\n\n"
    "From bob@example.org Sat Nov 21 14:12:00 2026\n" + head("[g1] orders", "m03", sender="Bob <bob@example.org>")
    + orders(player="bob", password="nope") + "\n"
)
put("mbox/thunderbird.mbox", _mbox)
put("orders/alice.txt", "# alice's orders, saved by the GM from a web form\nGAME g1\nPASSWORD amber-anvil-11\ntribe green 1,0\nEND\n")
put("orders/notes.txt", "Remember to resolve on Friday.\n")


def main() -> None:
    for name, data in FILES.items():
        path = HERE / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    print(f"wrote {len(FILES)} files to {HERE}")


if __name__ == "__main__":
    main()
