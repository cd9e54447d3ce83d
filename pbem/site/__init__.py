"""The static website: `pbem publish` (publish). Sits on the host and render layers."""
