"""Access rules of the memory server: binding, API keys, whose memory a request reaches."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from nova_memory_integrations.cli import app
from nova_memory_integrations.errors import ConfigError, InvalidInputError, NotFoundError, StoreClosedError
from nova_memory_integrations.server.auth import ApiError, Principal, authenticate, resolve_user, store_error
from nova_memory_integrations.server.settings import ServerConfig, is_loopback, parse_api_keys

KEY = "k" * 20
PINNED = "p" * 20


@pytest.mark.parametrize(("host", "loopback"), [("127.0.0.1", True), ("localhost", True), ("::1", True),
                                                 ("[::1]", True), ("127.0.0.2", True), ("0.0.0.0", False),
                                                 ("::", False), ("192.168.1.4", False), ("example.com", False)])
def test_loopback_detection(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_binding_beyond_loopback_requires_a_key() -> None:
    assert ServerConfig().host == "127.0.0.1"
    with pytest.raises(ConfigError, match="requires an API key"):
        ServerConfig(host="0.0.0.0")
    assert ServerConfig(host="0.0.0.0", api_keys={KEY: None}).host == "0.0.0.0"


def test_the_cli_refuses_a_public_bind_without_a_key(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOVA_MEMORY_API_KEYS", raising=False)
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "--path", str(tmp_path)])
    assert result.exit_code == 1 and "requires an API key" in result.output
    result = CliRunner().invoke(app, ["serve", "--log-level", "loud", "--path", str(tmp_path)])
    assert result.exit_code == 2


def test_api_keys_parse_and_pin() -> None:
    assert parse_api_keys([f"{KEY}, {PINNED}=alice", ""]) == {KEY: None, PINNED: "alice"}
    with pytest.raises(ConfigError):
        parse_api_keys(["short"])
    with pytest.raises(ConfigError):
        parse_api_keys([f"{KEY}="])
    with pytest.raises(ConfigError):
        parse_api_keys([f"{KEY}=a", f"{KEY}=b"])
    env = {"NOVA_MEMORY_API_KEYS": f"{PINNED}=bob", "NOVA_MEMORY_UPSTREAM": "http://up:1/v1/"}
    cfg = ServerConfig.from_env(env=env)
    assert cfg.api_keys == {PINNED: "bob"} and cfg.upstream == "http://up:1/v1"
    with pytest.raises(ConfigError):
        ServerConfig(upstream="ftp://x")


def test_authenticate() -> None:
    keys = {KEY: None, PINNED: "alice"}
    assert authenticate({}, {}, bearer=False) == Principal()
    assert authenticate({"x-nova-key": PINNED}, keys, bearer=False).pinned_user == "alice"
    assert authenticate({"authorization": f"Bearer {KEY}"}, keys, bearer=True) == Principal(None, True)
    for headers, bearer in (({}, False), ({"x-nova-key": "nope"}, False),
                            ({"authorization": f"Bearer {KEY}"}, False)):  # Authorization belongs to the upstream
        with pytest.raises(ApiError) as err:
            authenticate(headers, keys, bearer=bearer)
        assert err.value.status == 401


def test_resolve_user() -> None:
    free, pinned = Principal(), Principal("alice", True)
    assert resolve_user(free) is None and resolve_user(free, None, "") is None
    assert resolve_user(free, "bob", None) == "bob" and resolve_user(free, "bob", "bob") == "bob"
    assert resolve_user(pinned) == "alice" and resolve_user(pinned, "alice", None) == "alice"
    for named, status in ((("bob",), 403), ((None, "bob"), 403), (("alice", "bob"), 400), ((5,), 400)):
        with pytest.raises(ApiError) as err:
            resolve_user(pinned, *named)
        assert err.value.status == status


def test_typed_errors_map_to_statuses() -> None:
    assert store_error(InvalidInputError("bad", field="k")).status == 422
    assert store_error(InvalidInputError("bad", field="k")).param == "k"
    assert store_error(NotFoundError("nope")).status == 404
    assert store_error(StoreClosedError("closed")).type == "StoreClosedError"
    assert store_error(ConfigError("x")).status == 400
