"""One ``context()`` query enters each stage of recall once, in order (issue #37).

The calls of a real query (SQLite, Chroma, MiniLM) are traced with ``sys.setprofile``: every
call into a stage's module made from outside any stage (from the orchestrators,
``retrieval/context.py`` and ``retrieval/pipeline.py``, or infrastructure: storage, the
engine, embeddings, hooks) counts as entering that stage; calls a stage makes, into its own
module or another (fusion using a signal's helper, assembly cutting a sentence), happen inside
it and do not. Each stage must be entered exactly once, in pipeline order: one call with
explicit inputs and outputs, never a return to a room it had left.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from types import FrameType
from typing import Any

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.retrieval.search_config import SearchConfig

USER = "maria"
T0 = datetime(2023, 5, 1, 9, 0, tzinfo=timezone.utc)
PACKAGE = "nova_memory_integrations."
STAGES = {  # module (under the package) -> its stage; a module listed by a prefix covers its sub-modules
    "retrieval.signals": "signals", "retrieval.lexical": "signals", "retrieval.when": "signals",
    "retrieval.fusion": "fusion",
    "retrieval.rerank": "rerank", "rerank": "rerank",
    "retrieval.compress": "compress",
    "retrieval.assemble": "assemble",
}
"""Every other module of the package is a hallway or infrastructure: its calls are not a stage."""
ORDER = ["signals", "fusion", "rerank", "compress", "assemble"]

TURNS = [
    "Maria: I finally finished the watercolor of the lighthouse at dusk. It took me three weekends of "
    "painting, and the sky gave me the most trouble because the colors kept bleeding into the sea.",
    "John: That sounds beautiful! Are you going to enter it in the county art fair this summer?",
    "Maria: Yes, I signed up yesterday. The fair opens on the 12th of June and the judges announce the "
    "prizes on the last day. I am nervous about it, but my teacher says the painting is ready.",
    "John: Wow, great! Thanks so much!",
    "Maria: I also started volunteering at the animal shelter on Saturdays, walking the older dogs.",
    "John: Which shelter is it? The one next to the old train station?",
    "Maria: Yes, that one. The dogs there are sweet, and one of them, Biscuit, follows me everywhere.",
    "Maria: I finally finished the watercolor of the lighthouse at dusk. It took me three weekends of "
    "painting, and the sky gave me the most trouble because the colors kept bleeding into the sea!",
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, minilm_onnx: Any) -> Iterator[NovaStore]:
    """Turns of two named speakers (long ones, small talk, a near-duplicate), facts and a rule."""
    s = NovaStore(tmp_path_factory.mktemp("stages") / "mem", embeddings=minilm_onnx)
    speaker = {"Maria": "Maria", "John": "John"}
    eps = s.add_turns([{"user_id": USER, "role": speaker[t.split(":")[0]], "content": t, "session_id": f"s{i // 4}",
                        "timestamp": T0 + timedelta(days=i // 4, minutes=i)} for i, t in enumerate(TURNS)])
    s.add_fact(USER, "Maria", "paints", "watercolors", source_episode_ids=[eps[0].id], valid_from=T0)
    s.add_fact(USER, "Maria", "volunteers_at", "animal shelter", source_episode_ids=[eps[4].id], valid_from=T0)
    s.add_rule(USER, "the user asks about the art fair", "mention the date the prizes are announced")
    s.flush()
    yield s
    s.close()


def _stage(frame: FrameType) -> str | None:
    module = frame.f_globals.get("__name__", "")
    if not isinstance(module, str) or not module.startswith(PACKAGE):
        return None
    name = module[len(PACKAGE):]
    return next((stage for prefix, stage in STAGES.items() if name == prefix or name.startswith(prefix + ".")), None)


def stages_entered(call: Callable[[], object]) -> list[str]:
    """The stages ``call`` enters, in order: a call into a stage's module from no stage's frame."""
    entered: list[str] = []

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event != "call" or (stage := _stage(frame)) is None:
            return
        caller = frame.f_back
        while caller is not None:
            if _stage(caller) is not None:
                return  # inside a stage already
            caller = caller.f_back
        entered.append(stage)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return entered


QUERY = "When does Maria's art fair announce the prizes?"


@pytest.mark.parametrize(("preset", "order"), [
    (SearchConfig(rerank=True), ORDER),
    (SearchConfig(rerank=False), [s for s in ORDER if s != "rerank"]),
    (SearchConfig.preset("rrf").model_copy(update={"rerank": True}), ORDER),
])
def test_a_context_query_enters_each_stage_once_in_order(store: NovaStore, preset: SearchConfig,
                                                         order: list[str]) -> None:
    store.context(QUERY, USER, budget_tokens=300, preset=preset)  # warm: the reranker is built on first use
    result: list[Any] = []
    entered = stages_entered(lambda: result.append(store.context(QUERY, USER, budget_tokens=300, preset=preset)))
    assert entered == order
    ctx = result[0]
    assert ctx.sources and {"signals_ms", "fuse_ms", "compress_ms", "assemble_ms"} <= ctx.timings.keys()


def test_the_query_exercises_every_stage(store: NovaStore) -> None:
    """The traced query is no empty run: facts and turns are found, the reranker scores them, a
    near-duplicate and small talk are dropped and a long turn is cut."""
    ctx = store.context(QUERY, USER, budget_tokens=300, preset=SearchConfig(rerank=True, max_item_tokens=16,
                                                                           lead_items=1))
    kinds = {s.kind for s in ctx.sources}
    reasons = " ".join(s.reason for s in (*ctx.sources, *ctx.dropped))
    assert {"episode", "fact"} <= kinds
    ranked = [s for s in ctx.sources if not s.reason.startswith("guaranteed slot")]  # reserved: not ranked
    assert ranked and all(s.scores.get("rerank") is not None for s in ranked)
    assert "near-duplicate of" in reasons and "greeting or thanks only" in reasons
    assert "compressed extractively" in reasons


def test_the_tracer_sees_a_stage_entered_twice() -> None:
    """The tracer itself: two calls into a stage from outside any stage count twice, a call a
    stage makes into another stage's module does not count."""
    from nova_memory_integrations.retrieval import compress, lexical

    def twice() -> None:
        compress.strip_phatic("Thanks!")  # compress calls nothing of another stage here
        lexical.match_expression("two words")  # lexical belongs to the signals stage
        compress.strip_phatic("Thanks! I moved to Porto.")  # words through text.terms: no stage

    assert stages_entered(twice) == ["compress", "signals", "compress"]
