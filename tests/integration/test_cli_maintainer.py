"""The maintainer commands (list, show, config show, traverse, fact add/invalidate, merge-entities)
on a real store in a tmp dir: typer's runner for most, one real subprocess."""

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
    data = tmp_path / "data"

    def run(*args: str, code: int = 0, json_out: bool = True, env: dict[str, str] | None = None) -> Any:
        argv = [*args, "--path", str(data)] + (["--json"] if json_out else [])
        result = runner.invoke(app, argv, obj={"embeddings": minilm}, env=env)
        assert result.exit_code == code, (argv, result.output, result.exception)
        assert "Traceback" not in result.output
        if json_out and code == 0:
            return json.loads(result.output)
        return result

    run.data = data  # type: ignore[attr-defined]
    return run


@pytest.fixture
def filled(cli: Any) -> Any:
    """alice: 3 episodes over two sessions (consolidated into facts), a rule; bob: one episode."""
    cli("add", "I live in Lisbon.", "-u", "alice", "--session", "s1", "--timestamp", "2024-01-10")
    cli("add", "I work at Acme.", "-u", "alice", "--session", "s1", "--timestamp", "2024-02-10")
    cli("add", "I moved to Berlin.", "-u", "alice", "--session", "s2", "--timestamp", "2024-06-01")
    cli("consolidate", "-u", "alice")
    cli("rules", "-u", "alice", "--add", "user asks for code", "answer in Rust")
    cli("add", "Bob's secret is in Oslo.", "-u", "bob", "--timestamp", "2024-03-01")
    return cli


def test_list_pages_filters_and_scoping(filled: Any) -> None:
    cli = filled
    everything = cli("list", "-u", "alice", "--limit", "100")
    kinds = {i["kind"] for i in everything["items"]}
    assert kinds == {"episode", "fact", "rule"} and everything["next_offset"] is None
    times = [i["time"] for i in everything["items"]]
    assert times == sorted(times, reverse=True)  # newest first
    assert not any("Oslo" in i["text"] for i in everything["items"])  # never bob's memory
    eps = cli("list", "-u", "alice", "--kind", "episode", "--limit", "2")
    assert [i["text"] for i in eps["items"]] == ["user: I moved to Berlin.", "user: I work at Acme."]
    assert eps["next_offset"] == 2
    rest = cli("list", "-u", "alice", "--kind", "episode", "--limit", "2", "--offset", "2")
    assert [i["text"] for i in rest["items"]] == ["user: I live in Lisbon."] and rest["next_offset"] is None
    s1 = cli("list", "-u", "alice", "--session", "s1")["items"]
    assert {i["kind"] for i in s1} <= {"episode", "fact"} and "user: I moved to Berlin." not in [i["text"] for i in s1]
    assert any(i["kind"] == "fact" and "Acme" in i["text"] for i in s1)
    window = cli("list", "-u", "alice", "--kind", "episode", "--since", "2024-02-01", "--until", "2024-03-01")
    assert [i["text"] for i in window["items"]] == ["user: I work at Acme."]
    facts = cli("list", "-u", "alice", "-k", "fact")["items"]
    assert facts and all(i["kind"] == "fact" for i in facts)
    human = cli("list", "-u", "alice", "--kind", "episode", "--limit", "1", json_out=False).output
    assert "Berlin" in human and "more: --offset 1" in human
    assert cli("list", "-u", "nobody")["items"] == []
    bad = cli("list", "-u", "alice", "--kind", "memo", code=2, json_out=False).output
    assert "episode, fact or rule" in bad
    assert "ISO-8601" in cli("list", "-u", "alice", "--since", "last week", code=2, json_out=False).output
    assert "later than --since" in cli("list", "-u", "alice", "--since", "2024-02-01", "--until", "2024-01-01",
                                       code=2, json_out=False).output
    assert cli("list", "-u", "alice", "--limit", "0", code=2, json_out=False).output


def test_show_every_kind_with_provenance_history_and_decisions(filled: Any) -> None:
    cli = filled
    history = cli("facts", "-u", "alice", "--predicate", "lives_in", "--history")["facts"]
    berlin = next(f for f in history if f["object"] == "Berlin")
    shown = cli("show", berlin["id"], "-u", "alice")
    assert shown["kind"] == "fact" and shown["memory"]["id"] == berlin["id"] and shown["current"]
    assert [e["content"] for e in shown["provenance"]] == ["I moved to Berlin."]
    assert {d["op"] for d in shown["decisions"]} >= {"UPDATE"}
    lisbon = cli("show", next(f["id"] for f in history if f["object"] == "Lisbon"), "-u", "alice")
    assert not lisbon["current"] and len(lisbon["history"]) == 2  # the open version and its closed copy
    assert any(v["expired_at"] for v in lisbon["history"])
    assert [e["content"] for e in lisbon["provenance"]] == ["I live in Lisbon.", "I moved to Berlin."]  # the closing turn
    ep = cli("list", "-u", "alice", "--kind", "episode", "--limit", "1")["items"][0]
    shown_ep = cli("show", ep["id"], "-u", "alice")
    assert shown_ep["kind"] == "episode" and any(f["object"] == "Berlin" for f in shown_ep["derived_facts"])
    rule = cli("list", "-u", "alice", "--kind", "rule")["items"][0]
    assert cli("show", rule["id"], "-u", "alice")["memory"]["action"] == "answer in Rust"
    human = cli("show", berlin["id"], "-u", "alice", json_out=False).output
    assert "source episodes" in human and "history" in human and "decisions" in human
    # user scoping: bob's episode is not found as alice's, and the reverse
    bob_ep = cli("list", "-u", "bob")["items"][0]["id"]
    missing = json.loads(cli("show", bob_ep, "-u", "alice", code=1).output)
    assert "no episode, fact or rule" in missing["error"] and "Oslo" not in missing["error"]
    assert "Lisbon" not in cli("show", berlin["id"], "-u", "bob", code=1, json_out=False).output


def test_fact_add_invalidate_and_traverse(cli: Any) -> None:
    added = cli("fact", "add", "user", "lives_in", "Porto", "-u", "carol", "--valid-from", "2023-01-01")
    assert added["decision"]["op"] == "ADD"
    fid = added["decision"]["fact_id"]
    cli("fact", "add", "Porto", "located_in", "Portugal", "-u", "carol", "--valid-from", "2023-01-01")
    reached = cli("traverse", "user", "-u", "carol", "--hops", "2")["facts"]
    assert {f["object"] for f in reached} == {"Porto", "Portugal"}
    assert cli("traverse", "user", "-u", "carol", "--hops", "1")["facts"][0]["object"] == "Porto"
    assert cli("traverse", "user", "-u", "dave")["facts"] == []
    assert "Portugal" in cli("traverse", "user", "-u", "carol", json_out=False).output
    closed = cli("fact", "invalidate", fid, "-u", "carol", "--at", "2024-01-01")["decision"]
    assert closed["op"] == "DELETE" and closed["replaced_fact_id"] == fid
    assert cli("facts", "-u", "carol", "--predicate", "lives_in")["facts"] == []
    assert cli("facts", "-u", "carol", "--predicate", "lives_in", "--as-of", "2023-06-01")["facts"]
    # errors: another user's fact, bad time, missing argument
    assert "no current fact" in json.loads(cli("fact", "invalidate", fid, "-u", "dave", code=1).output)["error"]
    assert "ISO-8601" in cli("fact", "add", "a", "b", "c", "-u", "carol", "--valid-from", "soon", code=2,
                             json_out=False).output
    assert "Missing argument" in cli("fact", "add", "user", "lives_in", "-u", "carol", code=2, json_out=False).output
    assert cli("traverse", "user", "-u", "carol", "--hops", "-1", code=2, json_out=False).output


def test_merge_entities(cli: Any) -> None:
    cli("fact", "add", "user", "works_at", "Acme Corp", "-u", "erin", "--valid-from", "2023-01-01")
    cli("fact", "add", "Widgets Ltd", "owned_by", "Zeta", "-u", "erin", "--valid-from", "2023-01-01")
    cli("fact", "add", "user", "likes", "Widgets Ltd", "-u", "erin", "--valid-from", "2023-01-01")
    cli("fact", "add", "Widgets Ltd", "owned_by", "Zeta", "-u", "frank", "--valid-from", "2023-01-01")
    res = cli("merge-entities", "Acme Corp", "Widgets Ltd", "-u", "erin")
    assert res["kept"] == "Acme Corp" and res["merged"] == "Widgets Ltd" and len(res["rewritten"]) == 2
    facts = cli("facts", "-u", "erin")["facts"]
    assert {(f["subject"], f["predicate"], f["object"]) for f in facts} == {
        ("user", "works_at", "Acme Corp"), ("acme corp", "owned_by", "Zeta"), ("user", "likes", "Acme Corp")}
    old_id, new_id = next(iter(res["rewritten"].items()))
    shown = cli("show", new_id, "-u", "erin")
    assert any("entity merge" in d["reason"] for d in shown["decisions"])
    assert cli("show", old_id, "-u", "erin")["current"] is False
    assert cli("facts", "-u", "frank")["facts"][0]["subject"] == "widgets ltd"  # other users untouched
    assert "same entity" in json.loads(cli("merge-entities", "Acme Corp", "Acme Corp", "-u", "erin", code=1).output
                                       )["error"]
    assert "no entity" in cli("merge-entities", "Acme Corp", "Nothing", "-u", "erin", code=1, json_out=False).output
    assert "no entity" in json.loads(cli("merge-entities", "Acme Corp", "Widgets", "-u", "frank", code=1).output
                                     )["error"]


def test_config_show_sources(cli: Any) -> None:
    data = cli.data
    data.mkdir(parents=True)
    (data / "config.toml").write_text("[retrieval]\nbudget_tokens = 500\n", encoding="utf-8")
    env = {"NOVA_MEMORY_MODEL_URL": "http://models.local", "NOVA_MEMORY_OFFLINE": "1"}
    out = cli("config", "show", env=env)
    rows = {r["key"]: r for r in out["settings"]}
    assert rows["data_dir"]["source"] == "cli flag" and rows["data_dir"]["origin"] == "--path"
    assert rows["retrieval.budget_tokens"] == {"key": "retrieval.budget_tokens", "value": 500,
                                               "source": "config.toml", "origin": str(data / "config.toml")}
    assert rows["retrieval.preset"]["source"] == "default"
    assert rows["retrieval.reranker_url"]["value"] == "http://models.local"
    assert rows["retrieval.reranker_url"]["source"] == "environment"
    assert rows["retrieval.reranker_fetch"]["value"] is False
    assert rows["retrieval.reranker_fetch"]["origin"] == "NOVA_MEMORY_OFFLINE"
    only = cli("config", "show", "retrieval")["settings"]
    assert only and all(r["key"].startswith("retrieval.") for r in only)
    human = cli("config", "show", "retrieval.budget_tokens", json_out=False).output
    assert "500" in human and "config.toml" in human
    assert "no setting" in cli("config", "show", "nope", code=2, json_out=False).output
    (data / "config.toml").write_text("[retrieval]\nbudget_tokens = 0\n", encoding="utf-8")
    assert "budget_tokens" in json.loads(cli("config", "show", code=1).output)["error"]


def test_real_subprocess_maintainer_commands(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "nova-memory"
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false", NO_COLOR="1")
    data = str(tmp_path / "d")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        path = [] if args == ("--help",) else ["--path", data]
        return subprocess.run([str(exe), *args, *path], capture_output=True, text=True, timeout=180, env=env)

    helped = run("--help")
    for command in ("list", "show", "config", "traverse", "fact", "merge-entities"):
        assert command in helped.stdout
    added = run("fact", "add", "user", "lives_in", "Oslo", "-u", "zoe", "--json")
    assert added.returncode == 0, added.stderr
    fid = json.loads(added.stdout)["decision"]["fact_id"]
    listed = run("list", "-u", "zoe", "--json")
    assert listed.returncode == 0 and [i["id"] for i in json.loads(listed.stdout)["items"]] == [fid]
    bad = run("list", "-u", "zoe", "--kind", "memo")
    assert bad.returncode == 2 and "episode, fact or rule" in bad.stderr and "Traceback" not in bad.stderr
