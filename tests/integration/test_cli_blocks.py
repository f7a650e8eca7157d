"""``nova-memory blocks list|show|set|append|delete`` on a real store in a tmp dir (typer's runner):
the edits reach the next context, versions are kept, users never see each other's blocks, and
bad input ends with a one-line error and exit code 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nova_memory_integrations import NovaStore
from nova_memory_integrations.cli import app

runner = CliRunner()


@pytest.fixture
def cli(minilm: Any, tmp_path: Path) -> Any:
    data = tmp_path / "data"

    def run(*args: str, code: int = 0, json_out: bool = True, stdin: str | None = None) -> Any:
        argv = [*args, "--path", str(data)] + (["--json"] if json_out else [])
        result = runner.invoke(app, argv, obj={"embeddings": minilm}, input=stdin)
        assert result.exit_code == code, (argv, result.output, result.exception)
        assert "Traceback" not in result.output
        return json.loads(result.output) if json_out and code == 0 else result

    run.data = data  # type: ignore[attr-defined]
    return run


def test_set_append_show_list_delete(cli: Any, minilm: Any) -> None:
    assert cli("blocks", "list", "-u", "ana")["blocks"] == []
    made = cli("blocks", "set", "human", "Ana, a nurse in Porto.", "-u", "ana", "--limit", "200")["block"]
    assert made["content"] == "Ana, a nurse in Porto." and made["limit"] == 200 and made["author"] == "app"
    grown = cli("blocks", "append", "human", "Allergic to penicillin.", "-u", "ana")["block"]
    assert grown["content"] == "Ana, a nurse in Porto.\nAllergic to penicillin." and grown["limit"] == 200
    cli("blocks", "set", "persona", "-", "-u", "ana", stdin="A calm health coach.\n")
    listed = cli("blocks", "list", "-u", "ana")["blocks"]
    assert sorted(b["name"] for b in listed) == ["human", "persona"]
    assert next(b for b in listed if b["name"] == "persona")["content"] == "A calm health coach."
    shown = cli("blocks", "show", "human", "-u", "ana")["block"]
    assert shown["content"].endswith("penicillin.") and shown["valid_to"] is None
    history = cli("blocks", "show", "human", "-u", "ana", "--history")["versions"]
    assert [v["content"] for v in history] == ["Ana, a nurse in Porto.", grown["content"]]
    assert history[0]["valid_to"] is not None
    human = cli("blocks", "show", "human", "-u", "ana", json_out=False).output
    assert "penicillin" in human and "/200 chars" in human
    with NovaStore(cli.data, embeddings=minilm) as store:  # what the CLI wrote is what the next context carries
        assert "penicillin" in store.context("what should I cook tonight?", "ana", budget_tokens=300).text
    assert cli("blocks", "delete", "persona", "-u", "ana")["deleted"] is True
    assert [b["name"] for b in cli("blocks", "list", "-u", "ana")["blocks"]] == ["human"]
    assert len(cli("blocks", "show", "persona", "-u", "ana", "--history")["versions"]) == 1  # history kept


def test_users_are_apart_and_errors_are_one_line(cli: Any) -> None:
    cli("blocks", "set", "human", "Ben likes jazz.", "-u", "ben")
    assert cli("blocks", "list", "-u", "cy")["blocks"] == []
    missing = json.loads(cli("blocks", "show", "human", "-u", "cy", code=1).output)
    assert "no pinned block 'human'" in missing["error"]
    assert "no pinned block" in json.loads(cli("blocks", "delete", "human", "-u", "cy", code=1).output)["error"]
    too_long = json.loads(cli("blocks", "set", "note", "x" * 50, "-u", "ben", "--limit", "10", code=1).output)
    assert too_long["type"] == "InvalidInputError" and "at most 10 characters" in too_long["error"]
    bad_name = json.loads(cli("blocks", "set", "9lives", "text", "-u", "ben", code=1).output)
    assert "block name" in bad_name["error"]
    assert "Error:" in cli("blocks", "show", "human", "-u", "cy", code=1, json_out=False).output
    assert cli("blocks", "set", "human", "-u", "ben", code=2, json_out=False).output  # TEXT missing: usage error
