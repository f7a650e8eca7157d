"""``python -m nova_memory_integrations ...`` runs the ``nova-memory`` command line."""

from __future__ import annotations

from .cli import main

__all__: list[str] = []

if __name__ == "__main__":
    main()
