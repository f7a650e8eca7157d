"""Import trusts nothing in the file (#20, item 4), on the real store (SQLite, Chroma, MiniLM).

Every row is held to the write paths' limits, rows must belong to a user the header lists,
``user_id`` / ``as_user`` / ``dry_run`` choose what is written, and a refused file writes
nothing and raises the library's own error, never a raw sqlite3 / json / pydantic one.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nova_memory_integrations import InvalidInputError, NovaStore
from nova_memory_integrations.cli import app

T0 = datetime(2024, 2, 1, 9, 30, tzinfo=timezone.utc)
FIVE_MB = 5 * 1024 * 1024
YEAR_1 = datetime(1, 1, 1, tzinfo=timezone.utc).timestamp()


def dump(store: NovaStore, **kw: Any) -> list[str]:
    buf = io.StringIO()
    store.export(buf, **kw)
    return buf.getvalue().splitlines()


def stored_rows(store: NovaStore) -> list[str]:
    """Every row of every user table (the export without its header)."""
    return dump(store)[1:]


def populate(store: NovaStore, user: str) -> None:
    store.add_turns([
        {"user_id": user, "role": "user", "content": "I live in Lisbon and I work at Acme.", "session_id": "s1",
         "timestamp": T0, "metadata": {"channel": "web"}, "importance": 0.9},
        {"user_id": user, "role": "user", "content": "I moved to Berlin.", "session_id": "s2",
         "timestamp": T0 + timedelta(days=90)},
    ])
    store.consolidate(user)
    store.add_rule(user, "user asks for code", "answer in Rust", 0.9)


def mutate_row(lines: list[str], index: int, change: Callable[[dict[str, Any]], Any]) -> str:
    rec = json.loads(lines[index])
    change(rec["row"])
    out = list(lines)
    out[index] = json.dumps(rec)
    return "\n".join(out) + "\n"


def first(lines: list[str], kind: str) -> int:
    return next(i for i, line in enumerate(lines) if json.loads(line)["kind"] == kind)


@pytest.fixture
def source(tmp_path: Path, make_store: Any) -> list[str]:
    """An export of alice (episodes, facts, decisions, entities, a rule)."""
    a = make_store(tmp_path / "a")
    populate(a, "alice")
    return dump(a)


@pytest.fixture
def target(tmp_path: Path, make_store: Any) -> NovaStore:
    """The store imported into; bob already lives there."""
    b: NovaStore = make_store(tmp_path / "b")
    b.add_turn("bob", "user", "Bob's own memory.", timestamp=T0)
    return b


def _header_without_users(lines: list[str]) -> str:
    header = json.loads(lines[0])
    header.pop("users")
    return "\n".join([json.dumps(header), *lines[1:]])


def _truncated(lines: list[str]) -> str:
    text = "\n".join(lines)
    return text[: len(text) - len(lines[-1]) // 2]


HOSTILE: list[tuple[str, Callable[[list[str]], str], str, str | None]] = [
    ("oversized content", lambda ls: mutate_row(ls, 1, lambda r: r.update(content="x" * FIVE_MB)),
     r"^line 2 \(episode\): content has 5,242,880 characters", "content"),
    ("oversized metadata", lambda ls: mutate_row(ls, 1, lambda r: r.update(metadata={"blob": "x" * FIVE_MB})),
     r"^line 2 \(episode\): metadata is larger than", "metadata"),
    ("importance above 1", lambda ls: mutate_row(ls, 1, lambda r: r.update(importance=7.5)),
     r"^line 2 \(episode\): importance must be between 0 and 1", "importance"),
    ("negative importance", lambda ls: mutate_row(ls, 1, lambda r: r.update(importance=-0.1)),
     r"^line 2 \(episode\): importance must be between 0 and 1", "importance"),
    ("fact confidence above 1", lambda ls: mutate_row(ls, first(ls, "fact"), lambda r: r.update(confidence=2)),
     r"\(fact\): confidence must be between 0 and 1", "confidence"),
    ("timestamp in year 1", lambda ls: mutate_row(ls, 1, lambda r: r.update(ts=YEAR_1)),
     r"^line 2 \(episode\): ts: .* is outside the supported range", "ts"),
    ("timestamp 1e20", lambda ls: mutate_row(ls, 1, lambda r: r.update(ts=1e20)),
     r"^line 2 \(episode\): ts: .* is outside the supported range", "ts"),
    ("fact valid_to in year 1", lambda ls: mutate_row(ls, first(ls, "fact"), lambda r: r.update(valid_to=YEAR_1)),
     r"\(fact\): valid_to: .* is outside the supported range", "valid_to"),
    ("row of a user the header does not list", lambda ls: mutate_row(ls, 1, lambda r: r.update(user_id="bob")),
     r"^line 2 \(episode\): user_id 'bob' is not among the users the header lists", "user_id"),
    ("unknown decision op", lambda ls: mutate_row(ls, first(ls, "fact_event"), lambda r: r.update(op="DROP")),
     r"\(fact_event\): op must be one of ADD, UPDATE, DELETE, NOOP", "op"),
    ("malformed JSON", lambda ls: "\n".join([*ls[:2], "{not json", *ls[2:]]), r"^line 3: not valid JSON", None),
    ("NaN literal", lambda ls: "\n".join([*ls[:2], ls[1].replace('"importance":0.9', '"importance":NaN'), *ls[2:]]),
     r"^line 3: not valid JSON \(NaN is not a number JSON allows\)", None),
    ("truncated file", _truncated, r"not valid JSON .*the line ends early: is the file truncated\?", None),
    ("header without users", _header_without_users, r"^line 1: the header has no users list", "users"),
]


@pytest.mark.parametrize(("mutate", "message", "field"), [case[1:] for case in HOSTILE],
                         ids=[case[0] for case in HOSTILE])
def test_a_hostile_file_is_refused_by_line_and_field_and_writes_nothing(
    source: list[str], target: NovaStore, mutate: Callable[[list[str]], str], message: str, field: str | None
) -> None:
    before = stored_rows(target)
    with pytest.raises(InvalidInputError, match=message) as info:
        target.import_(io.StringIO(mutate(source)))
    assert info.value.field == field
    assert stored_rows(target) == before


def test_an_id_of_another_users_row_is_never_overwritten(source: list[str], target: NovaStore) -> None:
    bobs = target.episodes("bob")[0]
    stolen = mutate_row(source, 1, lambda r: r.update(id=bobs.id))
    with pytest.raises(InvalidInputError, match=r"^line 2 \(episode\): id '.*' belongs to another user"):
        target.import_(io.StringIO(stolen), merge=True, on_conflict="overwrite")
    assert target.get_episodes("bob", [bobs.id])[0].content == "Bob's own memory."


def test_an_id_of_another_user_leaves_the_importing_user_empty(source: list[str], target: NovaStore) -> None:
    stolen = mutate_row(source, 1, lambda r: r.update(id=target.episodes("bob")[0].id))
    with pytest.raises(InvalidInputError):
        target.import_(io.StringIO(stolen))
    assert target.episodes("alice") == []


def test_a_constraint_sqlite_enforces_is_a_typed_line_error(source: list[str], target: NovaStore) -> None:
    index = first(source, "entity")
    twin = json.loads(source[index])
    twin["row"]["id"] = "en_twin"  # same user and normalised name: UNIQUE (user_id, norm)
    text = "\n".join([*source, json.dumps(twin)])
    before = stored_rows(target)
    clash = rf"^line {len(source) + 1} \(entity\): breaks a constraint of entities \(UNIQUE"
    with pytest.raises(InvalidInputError, match=clash):
        target.import_(io.StringIO(text))
    assert stored_rows(target) == before


# -- one user -----------------------------------------------------------------------------
@pytest.fixture
def two_users(tmp_path: Path, make_store: Any) -> str:
    a = make_store(tmp_path / "two")
    populate(a, "alice")
    populate(a, "carol")
    return "\n".join(dump(a))


def test_user_id_imports_only_that_users_rows(two_users: str, target: NovaStore) -> None:
    target.import_(io.StringIO(two_users), user_id="carol")
    assert target.users() == ["bob", "carol"]


def test_user_id_counts_the_rows_left_out(two_users: str, target: NovaStore) -> None:
    report = target.import_(io.StringIO(two_users), user_id="carol")
    assert report.excluded == {"alice": sum(report.rows["alice"].values())}


def test_user_id_reports_the_users_written(two_users: str, target: NovaStore) -> None:
    report = target.import_(io.StringIO(two_users), user_id="carol")
    assert report.users == ("carol",)


def test_user_id_must_be_in_the_export(two_users: str, target: NovaStore) -> None:
    with pytest.raises(InvalidInputError, match="user_id 'dave' is not in this export"):
        target.import_(io.StringIO(two_users), user_id="dave")


def test_rows_left_out_are_still_validated(two_users: str, target: NovaStore) -> None:
    lines = two_users.splitlines()
    bad = mutate_row(lines, next(i for i, line in enumerate(lines) if '"user_id":"alice"' in line),
                     lambda r: r.update(importance=3))
    with pytest.raises(InvalidInputError, match="importance must be between 0 and 1"):
        target.import_(io.StringIO(bad), user_id="carol")


# -- remap --------------------------------------------------------------------------------
@pytest.fixture
def copied(tmp_path: Path, make_store: Any) -> tuple[NovaStore, list[str], Any]:
    """alice's export imported as dave into the SAME store (every id collides with hers)."""
    a: NovaStore = make_store(tmp_path / "same")
    populate(a, "alice")
    lines = dump(a)
    report = a.import_(io.StringIO("\n".join(lines)), as_user="dave")
    return a, lines, report


def test_as_user_copies_every_row(copied: tuple[NovaStore, list[str], Any]) -> None:
    store, lines, _ = copied
    assert len(dump(store, user_id="dave")) == len(lines)


def test_as_user_leaves_the_source_user_untouched(copied: tuple[NovaStore, list[str], Any]) -> None:
    store, lines, _ = copied
    assert dump(store, user_id="alice")[1:] == lines[1:]


def test_as_user_gives_fresh_ids(copied: tuple[NovaStore, list[str], Any]) -> None:
    store, _, _ = copied
    theirs = {e.id for e in store.episodes("alice")}
    assert theirs.isdisjoint(e.id for e in store.episodes("dave"))


def test_as_user_keeps_provenance_consistent(copied: tuple[NovaStore, list[str], Any]) -> None:
    store, _, _ = copied
    episodes = {e.id for e in store.episodes("dave")}
    cited = {p for f in store.facts("dave", include_history=True) for p in f.provenance}
    assert cited <= episodes


def test_as_user_keeps_the_fact_history(copied: tuple[NovaStore, list[str], Any]) -> None:
    store, _, _ = copied
    assert [f.object for f in store.facts("dave", predicate="lives_in", as_of=T0 + timedelta(days=10))] == ["Lisbon"]


def test_as_user_is_reported(copied: tuple[NovaStore, list[str], Any]) -> None:
    _, _, report = copied
    assert report.remapped == {"alice": "dave"}


def test_as_user_rows_are_searchable(copied: tuple[NovaStore, list[str], Any]) -> None:
    store, _, _ = copied
    store.flush()
    hits = store.search("Which city did they move to?", "dave", k=1, kinds=("episode",))
    assert hits[0].text == "I moved to Berlin."


def test_as_user_again_meets_the_same_ids(copied: tuple[NovaStore, list[str], Any]) -> None:
    store, lines, _ = copied
    report = store.import_(io.StringIO("\n".join(lines)), as_user="dave", merge=True)
    assert sum(report.inserted.values()) == 0


def test_as_user_needs_one_source_user(two_users: str, target: NovaStore) -> None:
    with pytest.raises(InvalidInputError, match="as_user needs exactly one source user") as info:
        target.import_(io.StringIO(two_users), as_user="dave")
    assert info.value.field == "as_user"


def test_as_user_with_user_id_picks_the_source(two_users: str, target: NovaStore) -> None:
    report = target.import_(io.StringIO(two_users), user_id="carol", as_user="dave")
    assert report.users == ("dave",)


# -- dry run ------------------------------------------------------------------------------
def test_dry_run_writes_nothing(source: list[str], target: NovaStore) -> None:
    before = stored_rows(target)
    target.import_(io.StringIO("\n".join(source)), dry_run=True)
    assert stored_rows(target) == before


def test_dry_run_queues_nothing_for_embedding(source: list[str], target: NovaStore) -> None:
    target.flush()
    target.import_(io.StringIO("\n".join(source)), dry_run=True)
    assert target.stats()["pending_index"] == 0


def test_dry_run_reports_what_would_be_inserted(source: list[str], target: NovaStore) -> None:
    report = target.import_(io.StringIO("\n".join(source)), dry_run=True)
    assert report.inserted == target.import_(io.StringIO("\n".join(source))).inserted


def test_dry_run_counts_rows_per_user_and_kind(source: list[str], target: NovaStore) -> None:
    report = target.import_(io.StringIO("\n".join(source)), dry_run=True)
    assert report.rows["alice"]["episode"] == 2


def test_dry_run_lists_every_error_instead_of_raising(source: list[str], target: NovaStore) -> None:
    bad = mutate_row(source, 1, lambda r: r.update(importance=9)).splitlines()
    bad = mutate_row(bad, 2, lambda r: r.update(ts=1e20)).splitlines()
    report = target.import_(io.StringIO("\n".join(bad)), dry_run=True)
    assert [e.split(":")[0] for e in report.errors] == ["line 2 (episode)", "line 3 (episode)"]


def test_dry_run_with_errors_writes_nothing(source: list[str], target: NovaStore) -> None:
    before = stored_rows(target)
    target.import_(io.StringIO(mutate_row(source, 1, lambda r: r.update(importance=9))), dry_run=True)
    assert stored_rows(target) == before


def test_dry_run_finds_conflicts_with_stored_rows(source: list[str], target: NovaStore) -> None:
    target.import_(io.StringIO("\n".join(source)))
    report = target.import_(io.StringIO("\n".join(source)), dry_run=True)
    assert "already exists" in report.errors[0]


# -- round trip ---------------------------------------------------------------------------
def test_a_valid_round_trip_still_reproduces_every_row(source: list[str], target: NovaStore) -> None:
    target.import_(io.StringIO("\n".join(source)))
    assert dump(target, user_id="alice")[1:] == source[1:]


# -- CLI ----------------------------------------------------------------------------------
def _cli(minilm_onnx: Any, *args: str) -> Any:
    return CliRunner().invoke(app, list(args), obj={"embeddings": minilm_onnx})


def test_cli_dry_run_prints_the_report_and_writes_nothing(
    tmp_path: Path, two_users: str, minilm_onnx: Any, make_store: Any
) -> None:
    path = tmp_path / "dump.jsonl"
    path.write_text(two_users, encoding="utf-8")
    result = _cli(minilm_onnx, "import", str(path), "--dry-run", "--user", "carol", "--as-user", "dave",
                  "--path", str(tmp_path / "cli"), "--json")
    assert json.loads(result.output)["remapped"] == {"carol": "dave"}
    assert make_store(tmp_path / "cli").users() == []


def test_cli_dry_run_with_errors_exits_1(tmp_path: Path, source: list[str], minilm_onnx: Any) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(mutate_row(source, 1, lambda r: r.update(importance=9)), encoding="utf-8")
    result = _cli(minilm_onnx, "import", str(path), "--dry-run", "--path", str(tmp_path / "cli"))
    assert result.exit_code == 1
    assert "line 2 (episode): importance must be between 0 and 1" in result.output


def test_cli_imports_one_user_as_another(tmp_path: Path, two_users: str, minilm_onnx: Any) -> None:
    path = tmp_path / "dump.jsonl"
    path.write_text(two_users, encoding="utf-8")
    result = _cli(minilm_onnx, "import", str(path), "-u", "carol", "--as-user", "dave",
                  "--path", str(tmp_path / "cli"), "--json")
    assert json.loads(result.output)["users"] == ["dave"]
