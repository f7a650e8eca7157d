"""The one warn-once helper (``_once.WarnOnce``) and the one cosine (``embeddings/similarity``)."""

from __future__ import annotations

import logging
import threading

import numpy as np
import pytest

from nova_memory_integrations._once import WarnOnce
from nova_memory_integrations.embeddings.similarity import cosines, unit_rows

logger = logging.getLogger("nova_memory_integrations.tests.once")


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == logger.name]


def test_a_warning_is_logged_once_per_key(caplog: pytest.LogCaptureFixture) -> None:
    warned = WarnOnce(logger, "row %s is damaged")
    with caplog.at_level(logging.WARNING, logger=logger.name):
        assert warned("a", key="a") and not warned("a", key="a")
        assert warned("b", key="b")
        assert warned.warn("another line for %s", "c", key="c") and not warned("c", key="c")
    assert _lines(caplog) == ["row a is damaged", "row b is damaged", "another line for c"]


def test_without_a_key_it_warns_once_and_reset_rearms(caplog: pytest.LogCaptureFixture) -> None:
    warned = WarnOnce(logger, "no user given")
    with caplog.at_level(logging.WARNING, logger=logger.name):
        warned(), warned()
        warned.reset()
        warned()
    assert _lines(caplog) == ["no user given", "no user given"]


def test_threads_racing_log_one_line(caplog: pytest.LogCaptureFixture) -> None:
    warned = WarnOnce(logger, "once")
    start = threading.Barrier(8)

    def race() -> None:
        start.wait()
        warned()

    with caplog.at_level(logging.WARNING, logger=logger.name):
        threads = [threading.Thread(target=race) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert _lines(caplog) == ["once"]


def test_cosines_of_rows_to_a_query() -> None:
    got = cosines([[1.0, 0.0], [0.0, 0.0], [3.0, 3.0], np.array([-2.0, 0.0])], [5.0, 0.0])
    assert got.dtype == np.float32
    assert got.tolist() == pytest.approx([1.0, 0.0, 2 ** -0.5, -1.0])


def test_unit_rows_keep_zero_rows_and_the_asked_precision() -> None:
    m = unit_rows(np.array([[0.0, 0.0], [3.0, 4.0]]), np.float64)
    assert m.dtype == np.float64 and m.tolist() == [[0.0, 0.0], [0.6, 0.8]]
    assert unit_rows([0.0, 2.0]).tolist() == [0.0, 1.0]
