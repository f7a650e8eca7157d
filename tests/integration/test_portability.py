"""Export / import as JSON Lines: lossless round trip, merge policies, bad input."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations import InvalidInputError, NovaStore
from nova_memory_integrations.types import Episode

T0 = datetime(2024, 2, 1, 9, 30, tzinfo=timezone.utc)


def _failing_batch(batch: Sequence[Episode]) -> list[list[Any]]:
    raise RuntimeError("fake LLM is down")


def populate(store: NovaStore, user: str = "alice") -> None:
    store.add_turns([
        {"user_id": user, "role": "user", "content": "I live in Lisbon and I work at Acme.", "session_id": "s1",
         "timestamp": T0, "metadata": {"channel": "web", "nested": {"a": [1, 2.5, None]}}, "importance": 0.9},
        {"user_id": user, "role": "assistant", "content": "Noted: Lisbon, Acme. Ünïcödé ✓", "session_id": "s1",
         "timestamp": T0 + timedelta(seconds=1)},
        {"user_id": user, "role": "user", "content": "I moved to Berlin.", "session_id": "s2",
         "timestamp": T0 + timedelta(days=90)},
    ])
    store.consolidate(user)
    store.add_fact(user, "user", "likes", "climbing", confidence=0.7, metadata={"src": "manual"})
    store.add_rule(user, "user asks for code", "answer in Rust", 0.9, metadata={"why": "preference"})
    store.add_turn(user, "user", "This one will sit in a dead letter.", timestamp=T0 + timedelta(days=91))
    store._consolidation.consolidator.run(user, _failing_batch)
    store.search("where does the user live?", user, k=2)  # touches nothing, but exercises the index


def dump(store: NovaStore, **kw: Any) -> list[str]:
    buf = io.StringIO()
    store.export(buf, **kw)
    return buf.getvalue().splitlines()


def test_round_trip_is_lossless(tmp_path: Path, make_store: Any) -> None:
    a = make_store(tmp_path / "a")
    populate(a)
    populate(a, "bob")
    lines = dump(a)
    header = json.loads(lines[0])
    assert header["format"] == "nova-memory" and header["version"] == 1 and header["users"] == ["alice", "bob"]
    kinds = {json.loads(line)["kind"] for line in lines[1:]}
    assert all(set(json.loads(line)) == {"kind", "row"} for line in lines[1:])
    assert {"episode", "fact", "fact_event", "rule", "dead_letter"} <= kinds

    b = make_store(tmp_path / "b")
    report = b.import_(io.StringIO("\n".join(lines) + "\n"))
    assert report.inserted["episode"] == 8 and report.users == ("alice", "bob")
    assert dump(b)[1:] == lines[1:]  # byte-identical rows
    # everything usable: facts in time, history, dead letters, re-embedded search
    assert [f.object for f in b.facts("alice", predicate="lives_in", as_of=T0 + timedelta(days=10))] == ["Lisbon"]
    assert [f.object for f in b.facts("alice", predicate="lives_in")] == ["Berlin"]
    assert len(b.dead_letters("alice")) == 1
    assert b.search("Which city did they move to?", "alice", k=1, kinds=("episode",))[0].text == "I moved to Berlin."
    assert b.rules("bob", "please write some code")[0].action == "answer in Rust"


def test_export_one_user_and_to_a_file(tmp_path: Path, make_store: Any) -> None:
    a = make_store(tmp_path / "a")
    populate(a)
    a.add_turn("carol", "user", "I like tea.")
    out = tmp_path / "carol.jsonl"
    report = a.export(out, user_id="carol")
    assert report.users == ("carol",) and report.counts["episode"] == 1
    rows = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    assert {r["row"]["user_id"] for r in rows} == {"carol"}


def test_import_conflicts_without_merge_write_nothing(tmp_path: Path, make_store: Any) -> None:
    a = make_store(tmp_path / "a")
    populate(a)
    text = "\n".join(dump(a))
    b = make_store(tmp_path / "b")
    b.import_(io.StringIO(text))
    before = dump(b)[1:]
    with pytest.raises(InvalidInputError, match="already exists"):
        b.import_(io.StringIO(text))
    with pytest.raises(InvalidInputError, match="already exists"):
        b.import_(io.StringIO(text), merge=True, on_conflict="error")
    assert dump(b)[1:] == before
    report = b.import_(io.StringIO(text), merge=True)  # keep-newer: identical rows are skipped
    assert sum(report.inserted.values()) == 0 and sum(report.replaced.values()) == 0
    assert dump(b)[1:] == before


def test_merge_policies(tmp_path: Path, make_store: Any) -> None:
    a = make_store(tmp_path / "a")
    a.add_fact("alice", "user", "likes", "tea", valid_from=T0)
    old = "\n".join(dump(a))
    b = make_store(tmp_path / "b")
    b.import_(io.StringIO(old))
    a.add_fact("alice", "user", "likes", "tea", valid_from=T0)  # reinforced: newer version of the same row
    a.add_turn("alice", "user", "A new turn only in a.")
    new = "\n".join(dump(a))

    def tea(store: NovaStore) -> int:
        return store.facts("alice", predicate="likes")[0].occurrence_count

    report = b.import_(io.StringIO(new), merge=True, on_conflict="keep-existing")
    assert report.skipped["fact"] == 1 and report.inserted["episode"] == 1 and tea(b) == 1
    report = b.import_(io.StringIO(new), merge=True, on_conflict="keep-newer")
    assert report.replaced["fact"] == 1 and tea(b) == 2
    report = b.import_(io.StringIO(old), merge=True, on_conflict="keep-newer")  # older file never wins
    assert report.replaced["fact"] == 0 and tea(b) == 2
    report = b.import_(io.StringIO(old), merge=True, on_conflict="overwrite")
    assert report.replaced["fact"] == 1 and tea(b) == 1
    assert len(b.episodes("alice")) == 1
    with pytest.raises(InvalidInputError, match="on_conflict"):
        b.import_(io.StringIO(old), merge=True, on_conflict="newest")  # type: ignore[arg-type]


def _bad(lines: list[str], index: int, change: Any) -> str:
    rec = json.loads(lines[index])
    change(rec if index == 0 else rec["row"])
    out = list(lines)
    out[index] = json.dumps(rec)
    return "\n".join(out)


BAD_INPUTS = [
    (lambda lines: "\n".join([*lines[:2], "{not json", *lines[2:]]), "line 3: not valid JSON"),
    (lambda lines: "\n".join(lines[1:]), "line 1: not a nova-memory export"),
    (lambda lines: "", "empty input"),
    (lambda lines: _bad(lines, 1, lambda r: r.update(content="")), "line 2 .*content must not be empty"),
    (lambda lines: _bad(lines, 1, lambda r: r.update(ts="yesterday")), "ts must be a finite number"),
    (lambda lines: lines[0] + "\n" + lines[1].replace('"episode"', '"memo"', 1), "unknown record kind"),
    (lambda lines: lines[0] + '\n{"kind": "episode", "id": "x"}', "expected"),
    (lambda lines: _bad(lines, 1, lambda r: r.pop("role")), "missing fields"),
    (lambda lines: _bad(lines, 1, lambda r: r.update(extra=1)), "unknown fields"),
    (lambda lines: _bad(lines, 1, lambda r: r.update(user_id="")), "user_id must not be empty"),
    (lambda lines: _bad(lines, 1, lambda r: r.update(metadata=[1])), "metadata must be a JSON object"),
    (lambda lines: _bad(lines, 0, lambda r: r.update(version=99)), "unsupported export version"),
    (lambda lines: "\n".join([*lines, lines[1]]), "duplicate episode"),
    (lambda lines: "\n".join([*lines, "[1, 2]"]), "expected a JSON object"),
]


def test_bad_import_is_rejected_before_any_write(tmp_path: Path, make_store: Any) -> None:
    a = make_store(tmp_path / "a")
    a.add_turn("alice", "user", "I live in Lisbon.", timestamp=T0)
    a.add_turn("alice", "user", "I like tea.", timestamp=T0)
    lines = dump(a)
    b = make_store(tmp_path / "b")
    b.add_turn("zed", "user", "already here")
    for mutate, message in BAD_INPUTS:
        with pytest.raises(InvalidInputError, match=message):
            b.import_(io.StringIO(mutate(lines)))
        assert b.stats()["episodes"] == 1 and b.episodes("alice") == []


def test_import_rejects_ids_of_another_user_and_bad_sources(tmp_path: Path, make_store: Any) -> None:
    a = make_store(tmp_path / "a")
    ep = a.add_turn("alice", "user", "hello there")
    lines = dump(a)
    stolen = _bad(lines, 1, lambda r: r.update(user_id="mallory"))
    with pytest.raises(InvalidInputError, match="another user"):
        a.import_(io.StringIO(stolen), merge=True, on_conflict="overwrite")
    assert a.get_episodes("alice", [ep.id])[0].content == "hello there"
    with pytest.raises(InvalidInputError, match="no such file"):
        a.import_(tmp_path / "missing.jsonl")
    (tmp_path / "latin1.jsonl").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(InvalidInputError):
        a.import_(tmp_path / "latin1.jsonl")
    with pytest.raises(InvalidInputError):
        a.import_(12345)
