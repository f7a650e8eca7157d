"""The vector index's outage state (``storage.outage.Outage``, held by the index as ``outage``) and
recall's reads through it (``retrieval.reads.read_index``), without a Chroma server."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from nova_memory_integrations.errors import StorageError
from nova_memory_integrations.retrieval.reads import read_index
from nova_memory_integrations.storage import outage as outage_module
from nova_memory_integrations.storage.outage import Outage


class _Index:
    """What ``read_index`` uses of a vector index."""

    def __init__(self) -> None:
        self.outage = Outage()
        self.client = None  # no settings: the warning says "client"


def _down() -> Any:
    try:
        raise ConnectionRefusedError("refused")
    except OSError as cause:
        raise StorageError("Chroma query failed") from cause


def test_an_unreachable_index_is_skipped_until_the_retry(caplog: pytest.LogCaptureFixture) -> None:
    index = _Index()
    calls: list[int] = []

    def read() -> list[str]:
        calls.append(1)
        return _down()

    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations"):
        assert read_index(index, read, ["default"]) == ["default"]
        assert read_index(index, read, ["default"]) == ["default"]  # resting: not tried
    assert (len(calls), index.outage.down) == (1, True)
    assert [r.name for r in caplog.records] == ["nova_memory_integrations.retrieval.reads"]  # one warning


def test_a_read_that_reaches_it_again_ends_the_outage(monkeypatch: pytest.MonkeyPatch,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    index = _Index()
    read_index(index, _down, None)
    monkeypatch.setattr(outage_module, "RETRY_S", 0.0)
    with caplog.at_level(logging.INFO, logger="nova_memory_integrations"):
        assert read_index(index, lambda: "found", None) == "found"
    assert not index.outage.down
    assert any("reachable again" in r.getMessage() for r in caplog.records)


def test_another_storage_error_still_raises() -> None:
    def broken() -> None:
        raise StorageError("bad where clause")

    with pytest.raises(StorageError):
        read_index(_Index(), broken, None)


def test_each_index_has_its_own_outage() -> None:
    one, other = _Index(), _Index()
    read_index(one, _down, None)
    assert (one.outage.down, other.outage.down) == (True, False)


def test_only_the_first_failure_starts_an_outage() -> None:
    state = Outage()
    assert (state.failed(), state.failed(), state.down) == (True, False, True)
    assert state.recovered() is not None and state.recovered() is None and not state.down
