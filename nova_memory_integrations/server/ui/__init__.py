"""The memory inspector: server-rendered pages at ``/ui`` of ``nova-memory serve`` and ``nova-memory ui``.

- :mod:`.access`: the REST API's keys and tenancy rules, plus the sign-in cookie a browser needs.
- :mod:`.views`: what the pages show (users, the belief timeline, the fact graph) as plain data.
- :mod:`.render`: templates (``templates/``, Jinja2 with autoescaping), static files and security headers.
- :mod:`.routes`: the pages and the actions (which call the REST routes' own functions).

No build step, no CDN: HTML, one stylesheet and one small script, all package data.
"""

from __future__ import annotations

from .access import UiSessions
from .routes import ui_router

__all__ = ["UiSessions", "ui_router"]
