"""Scripts that exit without ``close()`` end cleanly (issue #42, item 8).

An agent script that let the interpreter finalise while the store's indexer was still inside
ONNX Runtime ended with ``terminate called without an active exception`` and exit status 134
(the daemon thread was ended by ``pthread_exit`` as it took the GIL back, and the forced
unwind through ONNX Runtime's C++ frames called ``std::terminate``): 2 to 8 runs in 12.
``_threads`` now stops and joins every worker in order at exit. Each script here runs 30
times, two at a time, with its output to a pipe, and every run must exit 0 with nothing
of the kind on stderr.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import nova_memory_integrations

RUNS = 30
AT_ONCE = 2
ROOT = Path(nova_memory_integrations.__file__).resolve().parents[1]

LANGCHAIN = """
    import sys
    from langchain.agents import create_agent
    from nova_memory_integrations import NovaStore
    from nova_memory_integrations.langchain import NovaMemory
    from nova_memory_integrations.langchain.testing import EchoMemoryChatModel

    store = NovaStore(sys.argv[1])
    agent = create_agent(EchoMemoryChatModel(), [], system_prompt="You are helpful.",
                         middleware=[NovaMemory(store, user_id="alice", consolidation="immediate")])
    for text in ("My favorite color is blue.", "I live in Paris.", "What is my favorite color?"):
        print(agent.invoke({"messages": [{"role": "user", "content": text}]})["messages"][-1].content)
    # no store.close(): the interpreter exits with the last turns still being indexed
"""

LLAMA_INDEX = """
    import sys
    from llama_index.core.chat_engine import SimpleChatEngine
    from llama_index.core.llms import ChatMessage
    from nova_memory_integrations import NovaConfig, NovaStore
    from nova_memory_integrations.config import ConsolidationConfig
    from nova_memory_integrations.llama_index import nova_memory
    from nova_memory_integrations.llama_index.testing import ExtractiveMemoryLLM

    store = NovaStore(sys.argv[1], config=NovaConfig(consolidation=ConsolidationConfig(mode="immediate")))
    memory = nova_memory(store, "alice", session_id="s")
    engine = SimpleChatEngine.from_defaults(llm=ExtractiveMemoryLLM(), memory=memory)
    for text in ("I moved to Oslo.", "My dog is called Rex.", "Which city did I move to?"):
        print(engine.chat(text))
    memory.put_messages([ChatMessage(role="user", content=f"Note {i}: I visited museum number {i} in Oslo.")
                         for i in range(8)])
    # no store.close()
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)  # NOVA_MEMORY_MODEL_CACHE: the session's exported model
    env.update(PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
               HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false", NO_COLOR="1")
    return env


def _run(argv: list[str]) -> tuple[int, str]:
    proc = subprocess.run(argv, capture_output=True, timeout=300, env=_env())  # stdout to a pipe
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


def _runs(jobs: list[Any]) -> list[tuple[int, str]]:
    with ThreadPoolExecutor(AT_ONCE) as pool:
        return [r for rs in pool.map(lambda job: job(), jobs) for r in rs]


def _check(results: list[tuple[int, str]]) -> None:
    codes = Counter(code for code, _ in results)
    aborted = [err for _, err in results if "terminate called" in err]
    failed = [err[-800:] for code, err in results if code != 0]
    assert (codes, len(aborted)) == (Counter({0: len(results)}), 0), failed[:2]


def _script_runs(tmp_path: Path, name: str, source: str) -> list[tuple[int, str]]:
    script = tmp_path / f"{name}.py"
    script.write_text(textwrap.dedent(source), encoding="utf-8")

    def job(n: int) -> Any:
        return lambda: [_run([sys.executable, str(script), str(tmp_path / f"data-{n}")])]

    return _runs([job(n) for n in range(RUNS)])


@pytest.mark.slow
def test_a_langchain_agent_script_exits_cleanly_without_close(minilm_onnx: Any, tmp_path: Path) -> None:
    _check(_script_runs(tmp_path, "agent", LANGCHAIN))


@pytest.mark.slow
def test_a_llama_index_chat_script_exits_cleanly_without_close(minilm_onnx: Any, tmp_path: Path) -> None:
    _check(_script_runs(tmp_path, "chat", LLAMA_INDEX))


@pytest.mark.slow
def test_cli_commands_exit_cleanly(minilm_onnx: Any, tmp_path: Path) -> None:
    cli = [sys.executable, "-m", "nova_memory_integrations"]

    def job(n: int) -> Any:
        path = ["--path", str(tmp_path / f"data-{n}")]
        return lambda: [_run([*cli, "add", f"I moved to Oslo in year {n}.", "--user", "alice", "--consolidate", *path]),
                        _run([*cli, "context", "where do I live", "--user", "alice", *path]),
                        _run([*cli, "stats", *path])]

    _check(_runs([job(n) for n in range(RUNS // 3)]))  # 30 processes
