"""The ``nova-memory`` command line (typer + rich): ``nova-memory --help``.

Every command takes ``--path`` (the data directory; default ``$NOVA_MEMORY_HOME`` or
``~/.nova-memory``) and ``--json`` (machine-readable output on stdout).
"""

from __future__ import annotations

from .app import app, main

__all__ = ["app", "main"]
