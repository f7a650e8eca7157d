"""Recall embeds the query without the name of the speaker it names (real SQLite, Chroma,
MiniLM): the speakers come from the user's own turns as they stand at each recall (added,
deleted, hidden and restored), never from another user's.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.retrieval.search_config import SearchConfig

USER, OTHER = "nate-and-jo", "mallory"
QUERY = "What pets does Nate have?"
OWN = "Nate: Max loves lying on the couch all day, and the turtles are basking."
ADDRESS = "Joanna: Nate! How are you doing, Nate? Long time no see."
T0 = datetime(2022, 5, 20, 18, 0, tzinfo=timezone.utc)


def _turn(user: str, role: str, content: str, n: int) -> dict[str, Any]:
    return {"user_id": user, "role": role, "content": content, "session_id": f"s{n}",
            "timestamp": T0 + timedelta(days=n)}


@pytest.fixture
def store(tmp_path: Path, minilm_onnx: object) -> Iterator[NovaStore]:
    s = NovaStore(tmp_path / "mem", embeddings=minilm_onnx)  # type: ignore[arg-type]
    s.add_turns([_turn(USER, "Nate", OWN, 0), _turn(USER, "Joanna", ADDRESS, 1),
                 _turn(OTHER, "Mallory", "Mallory: I keep a ferret called Nate.", 2)])
    s.flush()
    yield s
    s.close()


def _embedded(store: NovaStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts recall embeds as queries (the real embedder, recorded)."""
    seen: list[str] = []
    real = store.components.embedder.embed_query

    def record(text: str) -> Any:
        seen.append(text)
        return real(text)

    monkeypatch.setattr(store.components.embedder, "embed_query", record)
    return seen


def test_speakers_are_the_roles_of_the_users_turns(store: NovaStore) -> None:
    assert store.components.db.speakers(USER) == {"nate", "joanna"}


def test_speakers_never_include_another_users_roles(store: NovaStore) -> None:
    assert "mallory" not in store.components.db.speakers(USER)


def test_a_role_of_a_turn_added_later_is_read_on(store: NovaStore) -> None:
    store.components.db.speakers(USER)
    store.add_turn(USER, "Kai", "Kai: I just moved in next door.", session_id="s9")
    assert "kai" in store.components.db.speakers(USER)


def test_another_users_later_turns_are_not_read_on_as_the_users(store: NovaStore) -> None:
    store.components.db.speakers(USER)
    store.add_turn(OTHER, "Eve", "Eve: I listen in.", session_id="s9")
    assert "eve" not in store.components.db.speakers(USER)


def test_a_forgotten_users_speakers_are_forgotten(store: NovaStore) -> None:
    store.components.db.speakers(USER)
    store.forget(USER)
    store.add_turn(USER, "Kai", "Kai: A fresh start.", session_id="s9")
    assert store.components.db.speakers(USER) == {"kai"}


def test_a_speaker_whose_turns_come_back_from_hiding_is_read_again(store: NovaStore) -> None:
    kai = store.add_turn(USER, "Kai", "Kai: I just moved in next door.", session_id="s9")
    store.add_turn(USER, "Nate", "Nate: Welcome to the street!", session_id="s9")  # read on past Kai's turn
    store.hide(USER, [kai.id])
    store.components.db.speakers(USER)
    store.restore(USER, [kai.id])
    assert "kai" in store.components.db.speakers(USER)


def test_a_role_whose_turns_are_all_deleted_is_no_speaker_any_more(store: NovaStore) -> None:
    kai = store.add_turn(USER, "Kai", "Kai: I just moved in next door.", session_id="s9")
    store.components.db.speakers(USER)
    store.delete(USER, [kai.id])
    assert "kai" not in store.components.db.speakers(USER)


def test_speakers_step_through_the_role_index(store: NovaStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """A seek per role, not a read of the user's whole history (the plan of the statement run)."""
    db = store.components.db
    ran: list[tuple[str, Any]] = []
    real = db.query

    def record(sql: str, params: Any = ()) -> Any:
        ran.append((sql, params))
        return real(sql, params)

    monkeypatch.setattr(db, "query", record)
    db.speakers(USER)
    monkeypatch.setattr(db, "query", real)
    plans = [" ".join(str(r[3]) for r in real(f"EXPLAIN QUERY PLAN {sql}", params)) for sql, params in ran]
    assert (len(plans), "COVERING INDEX episodes_user_role (user_id=? AND role>?)" in plans[0]) == (1, True)


def test_recall_embeds_the_query_without_the_speakers_name(store: NovaStore, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _embedded(store, monkeypatch)
    store.retrieve(QUERY, USER, k=5)
    assert seen == ["What pets does have?"]


def test_with_the_setting_off_recall_embeds_the_query_as_written(
    store: NovaStore, monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = _embedded(store, monkeypatch)
    store.retrieve(QUERY, USER, k=5, preset=SearchConfig(dense_without_speaker=False))
    assert seen == [QUERY]


def test_a_name_that_is_no_speaker_of_this_user_stays(store: NovaStore, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _embedded(store, monkeypatch)
    store.retrieve("What pets does Mallory have?", USER, k=5)
    assert seen == ["What pets does Mallory have?"]


def _gap(store: NovaStore, config: SearchConfig) -> float:
    """How far the speaker's own line leads a line that only addresses them, on the dense signal."""
    dense = {h.text: h.scores["dense"] for h in store.retrieve(QUERY, USER, k=5, preset=config, kinds=("episode",))}
    return dense[OWN] - dense[ADDRESS]


def test_the_speakers_own_line_draws_further_ahead_of_lines_addressing_them(store: NovaStore) -> None:
    balanced = SearchConfig.preset("balanced")
    assert _gap(store, balanced) > _gap(store, balanced.model_copy(update={"dense_without_speaker": False})) + 0.1


def test_keyword_search_still_finds_the_name(store: NovaStore) -> None:
    config = SearchConfig(dense_k=1, neighbour_weight=0.0, snippet_max_turns=1)
    hits = store.retrieve("Nate", USER, k=5, preset=config, kinds=("episode",))
    assert {h.text for h in hits} == {OWN, ADDRESS}
