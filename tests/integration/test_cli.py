"""Every ``nova-memory`` command through typer's runner, plus real subprocess runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nova_memory_integrations.cli import app

runner = CliRunner()


@pytest.fixture
def cli(minilm: Any, tmp_path: Path) -> Any:
    """``cli("add", ...)`` runs a command on a tmp data dir with the shared MiniLM model."""
    data = tmp_path / "data"

    def run(*args: str, code: int = 0, path: Path | None = None, json_out: bool = True, **kw: Any) -> Any:
        argv = [*args, "--path", str(path or data)] + (["--json"] if json_out else [])
        result = runner.invoke(app, argv, obj={"embeddings": minilm}, **kw)
        assert result.exit_code == code, (argv, result.output, result.exception)
        assert "Traceback" not in result.output
        if json_out and code == 0 and result.output.strip().startswith("{"):
            return json.loads(result.output)
        return result

    return run


def test_capture_consolidate_and_query(cli: Any) -> None:
    ep = cli("add", "I live in Lisbon and I work at Acme.", "--user", "alice", "--timestamp", "2024-01-10",
             "--session", "s1", "--metadata", '{"channel": "cli"}')["episode"]
    assert ep["timestamp"].startswith("2024-01-10") and ep["metadata"] == {"channel": "cli"}
    cli("add", "I moved to Berlin.", "-u", "alice", "--timestamp", "2024-06-01T10:00:00+02:00")
    res = cli("consolidate", "--user", "alice")
    assert res["added"] >= 2 and res["updated"] == 1 and res["episodes_processed"] == 2
    before = cli("facts", "-u", "alice", "--predicate", "lives_in", "--as-of", "2024-03-01")["facts"]
    after = cli("facts", "-u", "alice", "--predicate", "lives_in", "--as-of", "2024-07-01")["facts"]
    assert [f["object"] for f in before] == ["Lisbon"] and [f["object"] for f in after] == ["Berlin"]
    history = cli("facts", "-u", "alice", "--predicate", "lives_in", "--history")["facts"]
    assert [f["object"] for f in history] == ["Lisbon", "Berlin"] and history[0]["valid_to"]
    hits = cli("search", "which city does she live in now?", "-u", "alice", "-k", "3")["hits"]
    assert hits and {h["kind"] for h in hits} <= {"episode", "fact"}
    hybrid = cli("search", "Berlin", "-u", "alice", "--hybrid", "--kind", "fact")["hits"]
    assert hybrid and all(h["kind"] == "fact" for h in hybrid)
    ctx = cli("context", "Where does the user live?", "-u", "alice", "--budget", "200", "--explain")
    assert "Berlin" in ctx["text"] and ctx["tokens"] <= 200 and ctx["explain"].startswith("context for")
    text = cli("context", "Where does the user live?", "-u", "alice", "--explain", json_out=False).output
    assert "Berlin" in text and "score=" in text
    rules = cli("rules", "-u", "alice", "--add", "user asks for code", "answer in Rust")
    assert rules["added"]["action"] == "answer in Rust"
    assert cli("rules", "-u", "alice", "--context", "can you write me some code?")["rules"][0]["action"] == (
        "answer in Rust")
    human = cli("facts", "-u", "alice", json_out=False).output
    assert "Berlin" in human and "lives_in" in human
    assert "added ep_" in cli("add", "hello", "-u", "bob", json_out=False).output
    assert "no results" in cli("search", "nothing", "-u", "nobody", json_out=False).output


def test_graph_export_formats(cli: Any, tmp_path: Path) -> None:
    cli("add", "My sister Ana lives in Porto. I work at Acme.", "-u", "alice", "--consolidate")
    graph = json.loads(cli("graph", "export", "-u", "alice", "--format", "json")["graph"])
    assert {"ana", "porto"} <= {n["id"] for n in graph["nodes"]} and graph["edges"]
    out = tmp_path / "g.graphml"
    assert cli("graph", "export", "-u", "alice", "-f", "graphml", "-o", str(out))["edges"] >= 2
    import networkx as nx

    assert nx.read_graphml(out).number_of_edges() >= 2
    dot = cli("graph", "export", "-u", "alice", "-f", "dot", json_out=False).output
    assert dot.startswith("digraph memory {") and '"ana" -> "porto"' in dot
    bad = cli("graph", "export", "-u", "alice", "-f", "svg", code=2, json_out=False)
    assert "graphml, json or dot" in bad.output


def test_export_import_merge_and_stats(cli: Any, tmp_path: Path) -> None:
    cli("add", "I live in Lisbon.", "-u", "alice", "--consolidate")
    cli("add", "I like tea.", "-u", "bob")
    dump = tmp_path / "dump.jsonl"
    assert cli("export", str(dump))["counts"]["episode"] == 2
    stdout_dump = cli("export", "-", "--user", "bob", json_out=False).output
    assert stdout_dump.splitlines()[0].startswith('{"exported_at"') or '"kind":"header"' in stdout_dump
    other = tmp_path / "other"
    report = cli("import", str(dump), path=other)
    assert report["inserted"]["episode"] == 2 and report["users"] == ["alice", "bob"]
    err = cli("import", str(dump), path=other, code=1)
    assert "already exists" in json.loads(err.output)["error"]
    merged = cli("import", str(dump), "--merge", "--on-conflict", "keep-newer", path=other)
    assert merged["skipped"]["episode"] == 2
    assert "imported" in cli("import", str(dump), "--merge", path=other, json_out=False).output
    stats = cli("stats", path=other)
    assert stats["users"] == 2 and stats["per_user"]["alice"]["facts_current"] == 1
    assert stats["totals"]["episodes"] == 2 and stats["sizes"]["sqlite_bytes"] > 0 and stats["dead_letters"] == []
    assert stats["last_consolidation"] is not None
    human = cli("stats", path=other, json_out=False).output
    assert "alice" in human and "last consolidation" in human
    assert cli("stats", "--user", "bob", path=other)["per_user"].keys() == {"bob"}


def test_forget_delete_reindex_lifecycle(cli: Any, tmp_path: Path) -> None:
    ep = cli("add", "Secret note about pineapples.", "-u", "alice")["episode"]
    cli("add", "Another note.", "-u", "alice")
    cli("add", "Bob's note.", "-u", "bob")
    assert cli("delete", ep["id"], "-u", "alice")["deleted"]["episodes"] == [ep["id"]]
    assert cli("reindex")["rows"] == 2
    assert "re-indexed 2 rows" in cli("reindex", json_out=False).output
    report = cli("lifecycle", "--dry-run")
    assert report["dry_run"] is True and report["evicted"] == []
    assert "would change" in cli("lifecycle", "-u", "alice", "--dry-run", json_out=False).output
    aborted = cli("forget", "-u", "alice", input="n\n", code=1, json_out=False)
    assert "Erase all memory" in aborted.output
    assert cli("forget", "-u", "alice", "--yes")["deleted"]["episodes"] == 1
    assert "forgot bob" in cli("forget", "-u", "bob", input="y\n", json_out=False).output
    assert cli("stats")["users"] == 0


def test_errors_are_clean(cli: Any, tmp_path: Path) -> None:
    assert "user_id must not be empty" in json.loads(cli("add", "x", "-u", " ", code=1).output)["error"]
    assert "Error:" in cli("add", " ", "-u", "alice", code=1, json_out=False).output
    assert "ISO-8601" in cli("facts", "-u", "a", "--as-of", "yesterday", code=2, json_out=False).output
    assert "JSON" in cli("add", "x", "-u", "a", "--metadata", "[1]", code=2, json_out=False).output
    assert "JSON" in cli("add", "x", "-u", "a", "--metadata", "{bad", code=2, json_out=False).output
    assert "unknown kind" in cli("search", "x", "-u", "a", "--kind", "memo", code=2, json_out=False).output
    assert "no such file" in cli("import", str(tmp_path / "nope.jsonl"), code=1, json_out=False).output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "header", "format": "nova-memory", "version": 1, "users": []}\n{"kind": "episode", "row": {}}\n')
    assert "line 2" in json.loads(cli("import", str(bad), code=1).output)["error"]
    assert cli("context", "q", "-u", "a", "--format", "yaml", code=1).output
    assert "Missing option" in cli("facts", code=2, json_out=False).output


def test_demo_through_the_runner(cli: Any) -> None:
    out = cli("demo")
    assert out["episodes"] >= 10
    assert out["as_of"]["before"]["lives_in"] == ["Lisbon"] and out["as_of"]["after"]["lives_in"] == ["Berlin"]
    assert out["as_of"]["before"]["works_at"] == ["Acme"] and out["as_of"]["after"]["works_at"] == ["Globex"]
    assert [t["object"] for t in out["timeline"]] == ["Lisbon", "Berlin"]
    assert out["sources"] and "Berlin" in out["context"]
    assert any("Tempelhofer" in s["text"] or "running" in s["text"] for s in out["sources"])
    assert all(s["timestamp"] for s in out["sources"])
    human = cli("demo", json_out=False).output  # same --path: the demo user is reset first
    assert "as of 2024-04-01: lives in Lisbon" in human and "as of 2024-10-01: lives in Berlin" in human
    assert "memory context" in human


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false", NO_COLOR="1")
    return env


def test_real_subprocess_console_script_and_module(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "nova-memory"
    assert exe.exists()
    helped = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=60, env=_env())
    assert helped.returncode == 0
    for command in ("add", "search", "context", "consolidate", "facts", "rules", "graph", "export", "import",
                    "stats", "forget", "reindex", "demo", "lifecycle", "delete"):
        assert command in helped.stdout
    run = subprocess.run([sys.executable, "-m", "nova_memory_integrations", "stats", "--json", "--path",
                          str(tmp_path / "d")], capture_output=True, text=True, timeout=120, env=_env())
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["users"] == 0
    bad = subprocess.run([str(exe), "add", "hi", "--path", str(tmp_path / "d")], capture_output=True, text=True,
                         timeout=60, env=_env())
    assert bad.returncode == 2 and "Missing option" in bad.stderr and "Traceback" not in bad.stderr
