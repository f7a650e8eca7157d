"""The evidence text the LoCoMo answer-word ceiling adds: each turn as a context shows it."""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from locomo import shown_turns

SAMPLE = {
    "sample_id": "conv-x",
    "conversation": {
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Caroline", "dia_id": "D1:1", "text": "I went to a support group yesterday."},
            {"speaker": "Melanie", "dia_id": "D1:2", "text": "That sounds great!"},
        ],
    },
}
TURN = {"content": "Caroline: I went to a support group yesterday.", "metadata": {"dia_id": "D1:1"},
        "timestamp": datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)}


def test_turn_sits_under_its_session_date() -> None:
    assert shown_turns([TURN])["D1:1"].startswith("### 8 May 2023\n- Caroline: I went")


def test_relative_time_is_resolved_as_a_context_resolves_it() -> None:
    assert shown_turns([TURN])["D1:1"].endswith("(yesterday = Sunday 7 May 2023)")


def test_every_turn_of_a_conversation_is_keyed_by_dia_id() -> None:
    import locomo

    assert sorted(shown_turns(locomo.turns_of(SAMPLE))) == ["D1:1", "D1:2"]
