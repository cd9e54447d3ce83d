"""Mail: reading mailboxes (formats), the text of a message (mime, headers), the orders in a
text (extract), one handler per mail command (commands), `pbem ingest` (ingest), and sending
the outbox through SMTP (settings, send). Sits on the host and render layers."""
