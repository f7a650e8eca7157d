"""Row counts of ``nova-memory export`` / ``import`` in words: "1 entity, 3 entity aliases", never "entitys"."""

from __future__ import annotations

from rich.console import Console

from nova_memory_integrations.cli.app import _count_text, _print_import
from nova_memory_integrations.maintenance.import_rows import KNOWN_TABLES
from nova_memory_integrations.maintenance.portability import ImportReport


def test_every_known_kind_has_its_plural() -> None:
    counts = {kind: 2 for kind in KNOWN_TABLES.values()}
    assert _count_text(counts) == (
        "2 episodes, 2 facts, 2 fact events, 2 rules, 2 dead letters, 2 entities, 2 entity aliases, 2 conflicts,"
        " 2 pinned blocks"
    )


def test_one_row_is_singular_and_zero_rows_are_left_out() -> None:
    assert _count_text({"episode": 1, "fact": 0, "entity": 1, "entity_alias": 1}) == "1 episode, 1 entity, 1 entity alias"
    assert _count_text({"episode": 0}) == "nothing"
    assert _count_text({}) == "nothing"


def test_other_tables_keep_their_own_name() -> None:
    assert _count_text({"items": 3}) == "3 items"


def test_the_import_dry_run_line() -> None:
    console = Console(record=True, width=200, color_system=None)
    report = ImportReport(inserted={"episode": 4, "entity": 2, "entity_alias": 3}, skipped={"fact": 1},
                          users=("alice",), dry_run=True)
    _print_import(console, report)
    text = console.export_text()
    assert text.splitlines()[0] == (
        "would import 4 episodes, 2 entities, 3 entity aliases; replaced 0, skipped 1 (1 user)"
    )
    assert "entitys" not in text and "aliass" not in text
