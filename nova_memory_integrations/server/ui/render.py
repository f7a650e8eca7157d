"""HTML out: the templates (package data, Jinja2 with autoescaping on), the static files and the headers.

Memory text is untrusted (anything a user said is stored), so every value reaches the page
through Jinja2's autoescaping and no template marks anything ``safe``; the page runs no
inline script and no inline style, and the Content-Security-Policy says so to the browser:
scripts, styles and fetches from this server only, no framing, no form posts elsewhere.
Nothing is loaded from a CDN: the inspector works offline.
"""

from __future__ import annotations

from datetime import datetime
from importlib import resources
from typing import Any
from urllib.parse import quote

from ...errors import needs_extra

with needs_extra("server"):
    import jinja2
    from starlette.responses import HTMLResponse, Response

__all__ = ["SECURITY_HEADERS", "page", "static_file"]

SECURITY_HEADERS = {
    "Content-Security-Policy": ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
_STATIC_TYPES = {"ui.css": "text/css; charset=utf-8", "ui.js": "text/javascript; charset=utf-8"}
_PACKAGE = __package__ or "nova_memory_integrations.server.ui"


def _when(value: datetime | None, fmt: str = "%Y-%m-%d %H:%M") -> str:
    return "-" if value is None else value.strftime(fmt) + " UTC"


def _iso(value: datetime | None) -> str:
    return "" if value is None else value.isoformat()


def _segment(value: str) -> str:
    """A value as one URL path segment or query value (``/``, ``?``, ``#``, ``&`` quoted too)."""
    return quote(str(value), safe="")


def _epoch(value: datetime | None) -> int:
    return 0 if value is None else int(value.timestamp())


_env = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(resources.files(_PACKAGE) / "templates")),
    autoescape=True,  # every template, whatever its name
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_env.filters.update(when=_when, iso=_iso, epoch=_epoch, seg=_segment)


def page(template: str, status: int = 200, headers: dict[str, str] | None = None, **values: Any) -> HTMLResponse:
    """``template`` rendered with ``values``, with the security headers."""
    html = _env.get_template(template).render(**values)
    return HTMLResponse(html, status_code=status, headers={**SECURITY_HEADERS, **(headers or {})})


def static_file(name: str) -> Response | None:
    """One of the inspector's own static files (a fixed list: no path is ever read from the URL)."""
    media = _STATIC_TYPES.get(name)
    if media is None:
        return None
    body = (resources.files(_PACKAGE) / "static" / name).read_bytes()
    return Response(body, media_type=media, headers={**SECURITY_HEADERS, "Cache-Control": "max-age=300"})
