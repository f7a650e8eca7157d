"""What the capture tests (``tests/unit/test_capture*.py``) share: one reference moment and the asserted facts
of a turn as ``(subject, predicate, object)``."""

from __future__ import annotations

from datetime import datetime, timezone

from nova_memory_integrations.extraction import DeterministicExtractor

REF = datetime(2024, 11, 20, 10, 0, tzinfo=timezone.utc)


def facts(extractor: DeterministicExtractor, text: str) -> set[tuple[str, str, str]]:
    """The facts ``text`` asserts (endings left out), said at :data:`REF`."""
    return {(c.subject, c.predicate, c.object) for c in extractor.extract(text, timestamp=REF) if c.op == "assert"}
