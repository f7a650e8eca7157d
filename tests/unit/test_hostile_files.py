"""Hostile files and settings (#20): paths that leave the data directory, a zero-byte or
foreign database file, rows damaged in SQLite, a connection closed under a reader."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from nova_memory_integrations.config import NovaConfig, StorageConfig
from nova_memory_integrations.errors import ConfigError, StorageError, StoreClosedError
from nova_memory_integrations.storage.sqlite import SQLiteStore

# -- config paths -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("setting", ["sqlite_filename", "chroma_dirname"])
@pytest.mark.parametrize("value", ["../../x.sqlite3", "/tmp/elsewhere", "a/../../b", "..", ".", ""])
def test_storage_paths_outside_the_data_directory_are_refused(setting: str, value: str) -> None:
    with pytest.raises(ConfigError, match=setting):
        NovaConfig.from_dict({"storage": {setting: value}})
    with pytest.raises(ConfigError, match=setting):
        StorageConfig(**{setting: value})
    cfg = StorageConfig()
    with pytest.raises(ConfigError, match=setting):
        setattr(cfg, setting, value)


def test_a_symlink_out_of_the_data_directory_is_refused(tmp_path: Path) -> None:
    data, outside = tmp_path / "data", tmp_path / "outside"
    data.mkdir()
    outside.mkdir()
    (data / "link").symlink_to(outside)
    cfg = StorageConfig(sqlite_filename="link/nova.sqlite3")
    with pytest.raises(ConfigError, match=r"storage\.sqlite_filename"):
        cfg.path_of("sqlite_filename", data)
    assert StorageConfig(sqlite_filename="sub/nova.sqlite3").path_of("sqlite_filename", data) == \
        (data / "sub" / "nova.sqlite3").resolve()


# -- database files -------------------------------------------------------------------------------------------


def test_a_zero_byte_database_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "nova.sqlite3"
    path.write_bytes(b"")
    with pytest.raises(StorageError, match=r"empty \(0 bytes\).*interrupted copy"):
        SQLiteStore(path)
    assert path.stat().st_size == 0  # left as it was


def test_a_foreign_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "nova.sqlite3"
    path.write_bytes(b"PK\x03\x04 this is a zip, not a database" * 10)
    with pytest.raises(StorageError, match="not an SQLite database"):
        SQLiteStore(path)


def test_a_new_file_and_an_existing_database_open(tmp_path: Path) -> None:
    path = tmp_path / "nova.sqlite3"
    SQLiteStore(path).close()
    assert path.read_bytes().startswith(b"SQLite format 3\x00")
    db = SQLiteStore(path)
    assert db.count("episodes") == 0
    db.close()


def test_a_closed_connection_raises_store_closed(tmp_path: Path) -> None:
    db = SQLiteStore(tmp_path / "nova.sqlite3")
    db.close()
    with pytest.raises(StoreClosedError):
        db.list_episodes("u")
    with pytest.raises(StoreClosedError):
        db.set_meta("k", "v")


# -- damaged rows ----------------------------------------------------------------------------------------------

EPISODE = ("INSERT INTO episodes (id, user_id, session_id, role, content, ts, ingested_at, metadata)"
           " VALUES (?, 'u', 's', 'user', ?, ?, 1.7e9, ?)")
POISON = [("ep_big", "big", 1e20, "{}"), ("ep_small", "small", -1e20, "{}"), ("ep_inf", "inf", float("inf"), "{}"),
          ("ep_text", "text ts", "tomorrow", "{}"), ("ep_json", "bad json", 1.7e9, "{not json"),
          ("ep_null", "json null", 1.7e9, "null"), ("ep_list", "json list", 1.7e9, "[1]")]


def test_damaged_rows_are_skipped_with_one_warning_each(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "nova.sqlite3"
    SQLiteStore(path).close()
    raw = sqlite3.connect(path)
    raw.execute(EPISODE, ("ep_good", "good", 1.7e9, "{}"))
    raw.executemany(EPISODE, POISON)
    raw.execute("INSERT INTO rules (id, user_id, condition, action, confidence, created_at, metadata)"
                " VALUES ('ru_bad', 'u', 'c', 'a', 'sure', 1.7e9, '{}')")
    raw.commit()
    raw.close()
    db = SQLiteStore(path)
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations.storage"):
        for _ in range(3):
            assert [e.id for e in db.list_episodes("u")] == ["ep_good"]
            assert [e.id for e in db.get_episodes("u", ["ep_good", *(p[0] for p in POISON)])] == ["ep_good"]
            assert db.list_rules("u") == []
            assert [r["id"] for r in db.rows_by_id("episodes", ["ep_good", "ep_json"])] == ["ep_good"]
    warned = [r.getMessage() for r in caplog.records if "skipped damaged" in r.getMessage()]
    assert len(warned) == len(POISON) + 1, warned  # once per row, however often it is read
    assert all("episodes" in w or "rules" in w for w in warned)
    assert any("'ep_text'" in w for w in warned) and any("'ru_bad'" in w for w in warned)
    db.close()
