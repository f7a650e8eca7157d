"""The server's first checks as pure functions: Host names, allowed hosts, JSON media types,
the new limits' validation, a ``user`` that is not a string, and the CLI's word on keys."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from nova_memory_integrations.cli import app
from nova_memory_integrations.errors import ConfigError
from nova_memory_integrations.server.auth import ApiError, Principal, resolve_user
from nova_memory_integrations.server.guard import json_media_type
from nova_memory_integrations.server.settings import ServerConfig, host_name, parse_allowed_hosts

KEY = "k" * 20


@pytest.mark.parametrize(("authority", "name"), [
    ("localhost", "localhost"), ("LocalHost:8765", "localhost"), ("localhost.:1", "localhost"),
    ("127.0.0.1:8765", "127.0.0.1"), ("[::1]:8765", "[::1]"), ("[0:0:0:0:0:0:0:1]", "[::1]"),
    ("memory.example.com", "memory.example.com"), ("", None), ("a b", None), ("host:port", None),
    ("[::1", None), ("[zz]:1", None), ("[::1]x", None), ("evil.com@127.0.0.1", None), ("-a.com", None),
])
def test_host_name(authority: str, name: str | None) -> None:
    assert host_name(authority) == name


def test_allowed_hosts_parse_and_match() -> None:
    assert parse_allowed_hosts(["Memory.Internal, *.corp.example", "", "memory.internal:80"]) == (
        "memory.internal", "*.corp.example")
    with pytest.raises(ConfigError):
        parse_allowed_hosts(["not a host"])
    keyless = ServerConfig(allowed_hosts=("memory.internal", "*.corp.example"))
    assert [keyless.host_allowed(n) for n in ("localhost", "127.0.0.9", "[::1]", "memory.internal",
                                              "x.corp.example", "corp.example", "evil.example")] == [
        True, True, True, True, True, False, False]
    assert ServerConfig(api_keys={KEY: None}).host_allowed("evil.example")  # keyed, no list: any name
    assert not ServerConfig(api_keys={KEY: None}, allowed_hosts=("a.example",)).host_allowed("evil.example")
    env = ServerConfig.from_env(env={"NOVA_MEMORY_ALLOWED_HOSTS": "a.example,b.example"})
    assert env.allowed_hosts == ("a.example", "b.example")


@pytest.mark.parametrize(("value", "ok"), [
    ("application/json", True), ("Application/JSON; charset=utf-8", True), ("application/merge-patch+json", True),
    ("text/plain;charset=UTF-8", False), ("application/x-www-form-urlencoded", False), ("multipart/form-data", False),
    ("", False), (None, False), ("application/jsonp", False), ("text/json", False),
])
def test_json_media_type(value: str | None, ok: bool) -> None:
    assert json_media_type(value) is ok


@pytest.mark.parametrize("bad", [{"max_header_bytes": 100}, {"max_headers": 0}, {"header_timeout": 0},
                                 {"body_timeout": -1}, {"max_connections": 0}])
def test_the_limits_are_validated(bad: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        ServerConfig(**bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("user", [["alice"], {"id": "alice"}, [["x"]], 5, True])
def test_a_user_that_is_not_a_string_is_a_400_not_a_type_error(user: object) -> None:
    for principal in (Principal(), Principal("alice", True)):
        with pytest.raises(ApiError) as err:
            resolve_user(principal, None, user)
        assert (err.value.status, err.value.param) == (400, "user")


def test_the_cli_help_names_the_environment_variable_for_keys() -> None:
    result = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    text = " ".join(result.output.split())
    assert "NOVA_MEMORY_API_KEYS" in text and "ps" in text and "--allowed-host" in text
