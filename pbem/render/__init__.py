"""Render: text reports (Jinja), HTML pages and the HTML report email part, SVG maps and
charts. Used by the mail layer and the site; reads the store only through pbem.host.

`install()` hands the text-report renderer down to the host (see pbem.host.reporting), so
that a resolution writes its reports in its own transaction.
"""


_modules: tuple = ()  # (pbem.host.reporting, pbem.render.reports), imported on the first install


def install() -> None:
    """Make this layer's text reports the ones the host writes (issue 17: cheap to call again:
    ingest calls it for each message)."""
    global _modules
    if not _modules:
        from pbem.host import reporting
        from pbem.render import reports

        _modules = (reporting, reports)
    _modules[0].install(_modules[1].text_reports)
