"""Hooks around each memory stage on a real store: redact, veto, and a hook that raises."""

from __future__ import annotations

import logging
import os
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.engine.hooks import HookEvent, Veto
from nova_memory_integrations.errors import InvalidInputError

PHONE = re.compile(r"\b\d{3}-\d{3}-\d{4}\b")


def _redact(event: HookEvent) -> Any:
    return event.value.model_copy(update={"content": PHONE.sub("[phone]", event.value.content)})


def _bytes_under(path: Path) -> bytes:
    return b"".join((Path(root) / name).read_bytes() for root, _, names in os.walk(path) for name in names)


def test_a_redacted_turn_reaches_neither_sqlite_nor_chroma(tmp_path: Path, minilm_onnx: Any) -> None:
    store = NovaStore(tmp_path / "mem", embeddings=minilm_onnx)
    store.hooks.register("before_add", _redact)
    stored = store.add_turn("ann", "user", "Call me at 555-123-4567 after six.")
    store.flush()
    store.close()
    assert (stored.content, b"555-123-4567" in _bytes_under(tmp_path / "mem")) == ("Call me at [phone] after six.", False)


def test_the_redacted_text_is_what_is_recalled(store: NovaStore) -> None:
    store.hooks.register("before_add", _redact)
    store.add_turn("ann", "user", "My number is 555-123-4567.")
    assert "[phone]" in store.context("What is my number?", "ann").text


def test_a_vetoed_turn_is_not_stored(store: NovaStore) -> None:
    def no_secrets(event: HookEvent) -> None:
        if "password" in event.value.content:
            raise Veto

    store.hooks.register("before_add", no_secrets)
    kept = store.add_turns([{"user_id": "ann", "role": "user", "content": "My password is hunter2."},
                            {"user_id": "ann", "role": "user", "content": "I like tea."}])
    assert ([e.content for e in kept], [e.content for e in store.episodes("ann")]) == (["I like tea."], ["I like tea."])


def test_a_vetoed_decision_is_not_applied(store: NovaStore) -> None:
    def no_addresses(event: HookEvent) -> None:
        if event.value.predicate == "lives_in":
            raise Veto

    store.hooks.register("before_decision", no_addresses)
    store.add_turn("ann", "user", "I live in Lisbon and I love jazz.")
    store.consolidate("ann")
    assert {f.predicate for f in store.facts("ann")} == {"likes"}


def test_a_correction_passes_through_the_decision_hooks(store: NovaStore) -> None:
    """A correction the change layer finds is a proposal like any other: the hook sees it as an UPDATE of the
    wrong fact, and a veto (for ann) leaves the wrong value believed; without the veto (bo) it is retracted."""
    seen: list[tuple[str, str, str]] = []

    def no_fixes_for_ann(event: HookEvent) -> None:
        seen.append((event.user_id, event.value.op, event.value.object))
        if event.user_id == "ann" and event.value.op == "UPDATE":
            raise Veto

    store.hooks.register("before_decision", no_fixes_for_ann)
    for user in ("ann", "bo"):
        store.add_turn(user, "user", "I live in Leeds.", timestamp="2024-03-01T10:00:00+00:00")
        store.consolidate(user)
        store.add_turn(user, "user", "Sorry, I meant Bradford, not Leeds.", timestamp="2024-03-08T10:00:00+00:00")
        store.consolidate(user)
    assert {("ann", "UPDATE", "Bradford"), ("bo", "UPDATE", "Bradford")} <= set(seen)
    assert [f.object for f in store.facts("ann") if f.predicate == "lives_in"] == ["Leeds"]
    assert [f.object for f in store.facts("bo", as_of="2024-03-05T00:00:00+00:00") if f.predicate == "lives_in"] \
        == ["Bradford"]


def test_a_date_a_decision_hook_sets_is_honoured_for_every_kind_of_statement(store: NovaStore) -> None:
    """A typed fact, an open state and the new value a change names all take the hook's ``valid_from``."""
    import dataclasses
    from datetime import datetime, timezone

    backdated = datetime(2023, 1, 1, tzinfo=timezone.utc)

    def backdate(event: HookEvent) -> Any:
        return None if event.value.op == "DELETE" else dataclasses.replace(event.value, valid_from=backdated)

    store.hooks.register("before_decision", backdate)
    store.add_turn("ann", "user", "I live in Lisbon. I referee under-12s football at Hollins Park on Sundays.",
                   timestamp=datetime(2024, 3, 1, tzinfo=timezone.utc))
    store.consolidate("ann")
    facts = store.facts("ann")
    assert {f.predicate for f in facts} >= {"lives_in", "states"}
    assert {f.valid_from for f in facts} == {backdated}


def test_a_hook_that_raises_is_skipped_with_one_warning(store: NovaStore, caplog: pytest.LogCaptureFixture) -> None:
    def broken(event: HookEvent) -> None:
        raise RuntimeError("hook bug")

    for stage in ("before_add", "before_retrieve", "after_assemble"):
        store.hooks.register(stage, broken)
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations.engine.hooks"):
        store.add_turn("ann", "user", "I live in Lisbon.")
        store.add_turn("ann", "user", "I work at Acme.")
        text = store.context("Where do I live?", "ann").text
    assert ("Lisbon" in text, len(caplog.records)) == (True, 1)


def test_a_hook_cannot_move_a_turn_to_another_user(store: NovaStore) -> None:
    store.hooks.register("before_add", lambda e: e.value.model_copy(update={"user_id": "bob", "content": "moved"}))
    store.add_turn("ann", "user", "hello")
    assert ([e.content for e in store.episodes("ann")], store.episodes("bob")) == (["moved"], [])


def test_a_hook_returning_the_wrong_type_is_a_typed_error(store: NovaStore) -> None:
    store.hooks.register("before_add", lambda e: "not an episode")
    with pytest.raises(InvalidInputError):
        store.add_turn("ann", "user", "hello")


def test_retrieval_hooks_rewrite_the_query_and_filter_candidates(store: NovaStore) -> None:
    store.add_turns([{"user_id": "ann", "role": "user", "content": t} for t in ("I live in Lisbon.", "I love jazz.")])
    seen: list[str] = []
    store.hooks.register("before_retrieve", lambda e: seen.append(e.value) or "jazz music")
    store.hooks.register("after_retrieve", lambda e: [c for c in e.value if "Lisbon" not in c.text])
    hits = store.retrieve("where do I live", "ann", k=5)
    assert (seen, any("Lisbon" in h.text for h in hits), any("jazz" in h.text for h in hits)) == (
        ["where do I live"], False, True)


def test_assembly_hooks_see_items_and_result(store: NovaStore) -> None:
    store.add_turn("ann", "user", "I live in Lisbon.")
    store.hooks.register("before_assemble", lambda e: [i.model_copy(update={"text": i.text.upper()}) for i in e.value])
    store.hooks.register("after_assemble", lambda e: e.value.model_copy(update={"text": e.value.text + "\n-- end"}))
    text = store.context("Where do I live?", "ann").text
    assert ("LISBON" in text, text.endswith("-- end")) == (True, True)


def test_an_unknown_stage_is_refused(store: NovaStore) -> None:
    with pytest.raises(InvalidInputError):
        store.hooks.register("before_everything", lambda e: None)


def test_after_hooks_see_what_was_stored_and_decided(store: NovaStore) -> None:
    added: list[list[str]] = []
    decided: list[str] = []
    store.hooks.register("after_add", lambda e: added.append([x.content for x in e.value]))
    store.hooks.register("after_decision", lambda e: decided.extend(f"{d.op} {d.predicate}" for d in e.value))
    store.add_turn("ann", "user", "I live in Lisbon.")
    store.consolidate("ann")
    assert (added, decided) == ([["I live in Lisbon."]], ["ADD lives_in"])


def test_rerank_hooks_wrap_the_reranker(store: NovaStore) -> None:
    store.add_turns([{"user_id": "ann", "role": "user", "content": t} for t in ("I live in Lisbon.", "I love jazz.")])
    stages: list[str] = []
    for stage in ("before_rerank", "after_rerank"):
        store.hooks.register(stage, lambda e: stages.append(e.stage))
    store.retrieve("where do I live", "ann", k=5, rerank=True)
    assert stages == ["before_rerank", "after_rerank"]


def test_a_decision_hook_can_recall(store: NovaStore) -> None:
    # the hook runs inside consolidation's transaction: its recall must not wait for the
    # connection this thread holds (the keyword search then runs inline, not beside)
    recalled: list[str] = []

    def look_up(event: HookEvent) -> None:
        recalled.append(store.context("jazz", "ann", budget_tokens=200).text)

    store.hooks.register("before_decision", look_up)
    store.add_turn("ann", "user", "I love jazz.")
    worker = threading.Thread(target=store.consolidate, args=("ann",), daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive()


def test_a_decision_hooks_recall_finds_the_memory(store: NovaStore) -> None:
    recalled: list[str] = []
    store.hooks.register("before_decision", lambda e: recalled.append(store.context("jazz", "ann").text))
    store.add_turn("ann", "user", "I love jazz.")
    store.consolidate("ann")
    assert "jazz" in recalled[0]
