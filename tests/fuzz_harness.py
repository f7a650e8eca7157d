"""The hostile-input harness (issue #20), shared by the fast CI profile
(``tests/integration/test_fuzz_harness.py``) and the long one (``benchmarks/fuzz.py``).

Every public method of the engine, the LangChain and LlamaIndex adapters and the CLI is
called with junk arguments (wrong types, huge and negative numbers, NaN, lone surrogates,
escape sequences, Mongo-style filter dicts, 3,000-deep nesting, dates at the ends of the
range). A call may succeed or raise the library's base error; anything else is an
*untyped* error, a ``StorageError`` / ``StoreClosedError`` on bad input is a *failure*,
and after the run every read path must still work and find what was stored before.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nova_memory_integrations import NovaMemoryError, NovaStore
from nova_memory_integrations.errors import StorageError, StoreClosedError

__all__ = ["adapter_calls", "check_reads", "cli_calls", "engine_calls", "junk", "run_harness"]

YEAR_ONE = datetime(1, 1, 1, tzinfo=timezone.utc)
YEAR_9999 = datetime(9999, 12, 31, 23, tzinfo=timezone.utc)
GOOD = "I live in Lisbon and I adore sardines."

_deep: list[Any] = []
_cur = _deep
for _ in range(3000):
    _cur.append([])
    _cur = _cur[0]

junk = st.one_of(
    st.none(), st.booleans(), st.integers(), st.just(2**70), st.just(-(2**70)),
    st.floats(allow_nan=True, allow_infinity=True), st.binary(max_size=4), st.text(max_size=12),
    st.just("x\ud800y"), st.just("\x1b[2J"), st.just({"$ne": ""}), st.just(_deep), st.just({"m": _deep}),
    st.lists(st.lists(st.integers(), max_size=2), max_size=2), st.dictionaries(st.text(max_size=3), st.integers()),
    st.just(("fact",)), st.just(["episode", "rule"]), st.just(YEAR_ONE), st.just(YEAR_9999), st.just(object()),
    st.just("9999-12-31T23:30:00-05:00"), st.just(datetime(2024, 1, 1, tzinfo=timezone.utc)),
)


def engine_calls(s: NovaStore, USER: str) -> dict[str, Any]:
    """Every public method of the engine, called with three junk arguments in its odd places."""
    return {
        "add_turn": lambda a, b, c: s.add_turn(USER, "user", "hello there", session_id=a, timestamp=b, metadata=c),
        "add_turn-args": lambda a, b, c: s.add_turn(a, b, c),
        "add_turn-opts": lambda a, b, c: s.add_turn(USER, "user", "x y", importance=a, consolidation=b),
        "add_turns": lambda a, b, c: s.add_turns(a),
        "add_turns-item": lambda a, b, c: s.add_turns([{"user_id": USER, "role": "user", "content": "x",
                                                        "metadata": a, "timestamp": b, "session_id": c}]),
        "context": lambda a, b, c: s.context("where?", USER, budget_tokens=a, format=b, session_id=c),
        "context-opts": lambda a, b, c: s.context("where?", USER, preset=a, kinds=b, as_of=c),
        "retrieve": lambda a, b, c: s.retrieve("where?", USER, k=a, kinds=b, session_id=c),
        "retrieve-opts": lambda a, b, c: s.retrieve(a, USER, preset=b, rerank=c),
        "search": lambda a, b, c: s.search("where?", USER, k=a, kinds=b, session_id=c),
        "search-args": lambda a, b, c: s.search(a, b, as_of=c),
        "facts": lambda a, b, c: s.facts(USER, a, b, as_of=c),
        "facts-opts": lambda a, b, c: s.facts(a, known_at=b, include_history=c),
        "traverse": lambda a, b, c: s.traverse(USER, a, max_hops=b, predicates=c),
        "traverse-as-of": lambda a, b, c: s.traverse(a, "user", as_of=b),
        "add_fact": lambda a, b, c: s.add_fact(USER, a, b, c),
        "add_fact-opts": lambda a, b, c: s.add_fact(USER, "user", "likes", "tea", confidence=a, valid_from=b,
                                                     source_episode_ids=c),
        "add_fact-metadata": lambda a, b, c: s.add_fact(USER, "user", "likes", "tea", metadata=a),
        "add_rule": lambda a, b, c: s.add_rule(USER, a, b, c),
        "add_rule-metadata": lambda a, b, c: s.add_rule(a, "when x", "do y", metadata=b),
        "rules": lambda a, b, c: s.rules(USER, a, k=b, min_similarity=c),
        "rule_proposals": lambda a, b, c: s.rule_proposals(a),
        "adopt_rule": lambda a, b, c: s.adopt_rule(USER, a),
        "delete_rule": lambda a, b, c: s.delete_rule(USER, a),
        "delete_rule-user": lambda a, b, c: s.delete_rule(a, "ru_0"),
        "delete": lambda a, b, c: s.delete(a, b),
        "forget": lambda a, b, c: s.forget(a if a != USER else "other"),
        "episodes": lambda a, b, c: s.episodes(USER, session_id=a, limit=b, since=c),
        "episodes-opts": lambda a, b, c: s.episodes(a, newest_first=b, until=c),
        "compress": lambda a, b, c: s.compress(a, b, budget_tokens=c),
        "compress-opts": lambda a, b, c: s.compress("q", ["a b", "c d"], k=a, max_item_tokens=b),
        "consolidate": lambda a, b, c: s.consolidate(a),
        "invalidate_fact": lambda a, b, c: s.invalidate_fact(USER, a, at=b, reason=c),
        "fact_history": lambda a, b, c: s.fact_history(b, a),
        "decisions": lambda a, b, c: s.decisions(USER, a),
        "conflicts": lambda a, b, c: s.conflicts(USER, flagged_only=a, limit=b),
        "explain_confidence": lambda a, b, c: s.explain_confidence(USER, a, at=b),
        "get_episodes": lambda a, b, c: s.get_episodes(b, a),
        "dead_letters": lambda a, b, c: s.dead_letters(a),
        "stats": lambda a, b, c: s.stats(a),
        "users": lambda a, b, c: s.users(unconsolidated=a),
        "count_tokens": lambda a, b, c: s.count_tokens(a),
        "flush": lambda a, b, c: s.flush(timeout=a if not isinstance(a, (int, float)) or abs(a) < 2 else 1),
        "export": lambda a, b, c: s.export(io.StringIO(), user_id=a),
    }


def adapter_calls(s: NovaStore, USER: str) -> dict[str, Any]:
    """The LangChain and LlamaIndex adapters, built and used with junk arguments."""
    from langchain_core.documents import Document
    from langchain_core.messages import HumanMessage
    from llama_index.core.llms import ChatMessage
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

    from nova_memory_integrations.langchain import NovaChatMessageHistory, NovaCompressor
    from nova_memory_integrations.langchain import NovaRetriever as LcRetriever
    from nova_memory_integrations.llama_index import NovaMemoryBlock, NovaNodePostprocessor
    from nova_memory_integrations.llama_index import NovaRetriever as LiRetriever

    def text(v: Any) -> str:
        return v if isinstance(v, str) and v.strip() else "where do I live?"

    return {
        "lc-retriever": lambda a, b, c: LcRetriever(s, USER, k=a, session_id=b).invoke(text(c)),
        "lc-retriever-user": lambda a, b, c: LcRetriever(s, a).invoke(text(b)),
        "lc-compressor": lambda a, b, c: NovaCompressor(s, top_n=a).compress_documents(
            [Document(page_content=text(b)), Document(page_content="I adore sardines.")], text(c)),
        "lc-history": lambda a, b, c: NovaChatMessageHistory(s, a, b).add_messages([HumanMessage(content=text(c))]),
        "lc-history-read": lambda a, b, c: NovaChatMessageHistory(s, USER, a).messages,
        "li-retriever": lambda a, b, c: LiRetriever(s, USER, similarity_top_k=a, as_of=b).retrieve(text(c)),
        "li-retriever-user": lambda a, b, c: LiRetriever(s, a).retrieve(QueryBundle(text(b))),
        "li-postprocessor": lambda a, b, c: NovaNodePostprocessor(s, budget_tokens=a).postprocess_nodes(
            [NodeWithScore(node=TextNode(text=text(b)), score=0.5)], query_str=text(c)),
        "li-memory-block": lambda a, b, c: asyncio.run(NovaMemoryBlock(s, user_id=USER, budget_tokens=a).aget(
            [ChatMessage(role="user", content=text(b))])),
    }


_TOKENS = ["add", "search", "context", "consolidate", "facts", "rules", "export", "import", "stats", "forget",
           "delete", "--user", "-u", "--json", "-k", "0", "-1", "5", "99999999999999999999", "abc", "--as-of",
           "2024-02-30", "0001-01-01T00:00:00+00:00", "--history", "--format", "xml", "svg", "--budget", "--merge",
           "--metadata", "{", "[]", '{"a": {"b": {"c": 1}}}', "--timestamp", "--kind", "memo", "--importance",
           "nan", "--dry-run", "--hybrid", "--session", "-", "\x1b[2J", "\u202e", "x\ud800y", "--as-user"]


def cli_calls(data: Path, embeddings: Any) -> Callable[[random.Random], tuple[list[str], Any]]:
    """A maker of random CLI command lines against ``data`` and a runner for them."""
    from typer.testing import CliRunner

    from nova_memory_integrations.cli import app

    runner = CliRunner()

    scratch = data.parent / "cli-cwd"
    scratch.mkdir(exist_ok=True)

    def one(rng: random.Random) -> tuple[list[str], Any]:
        argv = [rng.choice(_TOKENS) for _ in range(rng.randint(1, 7))]
        # A random line such as `export delete` writes a file named "delete" in the working
        # directory: run every line from a scratch directory, never the checkout.
        with contextlib.chdir(scratch):
            return argv, runner.invoke(app, [*argv, "--path", str(data)], obj={"embeddings": embeddings})

    return one


def check_reads(store: NovaStore, user: str, keep_id: str) -> list[str]:
    """Every read path for ``user``; the names of those that fail or lost the kept turn."""
    broken: list[str] = []
    reads: dict[str, Callable[[], Any]] = {
        "get_episodes": lambda: store.get_episodes(user, [keep_id])[0].content == GOOD or 1 / 0,
        "episodes": lambda: store.episodes(user),
        "context": lambda: GOOD.split()[3] in store.context("where do I live?", user).text or 1 / 0,
        "retrieve": lambda: store.retrieve("where do I live?", user, k=5),
        "search": lambda: store.search("where do I live?", user, k=5),
        "facts": lambda: store.facts(user),
        "traverse": lambda: store.traverse(user, "user"),
        "rules": lambda: store.rules(user, "anything"),
        "export": lambda: store.export(io.StringIO(), user_id=user),
        "stats": lambda: store.stats(user),
    }
    for name, read in reads.items():
        try:
            read()
        except Exception:
            broken.append(name)
    return broken


def _fuzz(table: dict[str, Any], examples: int, record: Callable[[str, BaseException | None], None]) -> None:
    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(name=st.sampled_from(sorted(table)), args=st.tuples(junk, junk, junk))
    def run(name: str, args: tuple[Any, Any, Any]) -> None:
        try:
            table[name](*args)
        except Exception as exc:  # judged by record(); never stops the run
            record(name, exc)
        else:
            record(name, None)

    run()


def run_harness(store: NovaStore, user: str, *, engine_examples: int, adapter_examples: int, cli_runs: int,
                data: Path | None = None, embeddings: Any = None, seed: int = 0) -> dict[str, Any]:
    """Run the three parts; returns the figures (calls, typed / untyped errors, failures, reads broken)."""
    keep = store.add_turn(user, "user", GOOD)
    store.consolidate(user)
    figures: dict[str, Any] = {"calls": 0, "typed_errors": 0, "untyped_errors": 0, "failures": 0, "examples": []}

    def record(name: str, exc: BaseException | None) -> None:
        figures["calls"] += 1
        if exc is None:
            return
        if isinstance(exc, (StorageError, StoreClosedError)):
            figures["failures"] += 1
        elif isinstance(exc, NovaMemoryError):
            figures["typed_errors"] += 1
            return
        else:
            figures["untyped_errors"] += 1
        if len(figures["examples"]) < 20:
            figures["examples"].append(f"{name}: {type(exc).__name__}: {str(exc)[:200]}")

    for table, examples in ((engine_calls(store, user), engine_examples), (adapter_calls(store, user), adapter_examples)):
        if examples:
            _fuzz(table, examples, record)
    if cli_runs and data is not None:
        store.flush()
        cli = cli_calls(data, embeddings)
        rng = random.Random(seed)
        for _ in range(cli_runs):
            argv, result = cli(rng)
            crashed = (result.exit_code not in (0, 1, 2) or "Traceback" in result.output
                       or (result.exception is not None and not isinstance(result.exception, SystemExit)))
            figures["calls"] += 1
            if crashed:
                figures["untyped_errors"] += 1
                if len(figures["examples"]) < 20:
                    figures["examples"].append(f"cli {argv}: exit {result.exit_code} {result.exception!r}"[:300])
    figures["reads_broken"] = check_reads(store, user, keep.id)
    return figures

