"""Render: text reports (Jinja), HTML pages and the HTML report email part, SVG maps and
charts. Used by the mail layer and the site; reads the store only through pbem.host.

`install()` hands the text-report renderer down to the host (see pbem.host.reporting), so
that a resolution writes its reports in its own transaction.
"""


def install() -> None:
    """Make this layer's text reports the ones the host writes."""
    from pbem.host import reporting
    from pbem.render.reports import text_reports

    reporting.install(text_reports)
