"""The streaming tee: reassembling a reply from SSE chunks cut anywhere."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from nova_memory_integrations.server.sse import SSEAssembler


def _stream(words: list[str]) -> bytes:
    events = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}], "model": "m"}]
    events += [{"choices": [{"index": 0, "delta": {"content": w}}]} for w in words]
    events += [{"choices": [{"index": 1, "delta": {"content": "other choice"}}]},
               {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
    text = "".join(f"data: {json.dumps(e, ensure_ascii=False)}\r\n\r\n" for e in events)
    return (": keep-alive comment\n\n" + text + "data: [DONE]\n\n").encode()


@given(st.lists(st.text(min_size=1, max_size=5), max_size=8), st.lists(st.integers(0, 400), max_size=10))
def test_any_chunking_gives_the_same_reply(words: list[str], cuts: list[int]) -> None:
    raw = _stream(words)
    bounds = sorted({min(c, len(raw)) for c in cuts})
    asm = SSEAssembler()
    start = 0
    for end in [*bounds, len(raw)]:
        asm.feed(raw[start:end])
        start = end
    assert asm.text == "".join(words) and asm.done and asm.finish_reason == "stop" and asm.model == "m"


def test_malformed_events_are_skipped() -> None:
    asm = SSEAssembler()
    asm.feed(b"data: {not json}\n\ndata: [1, 2]\n\ndata: {\"choices\": [null, {\"delta\": 3}]}\n\n")
    asm.feed(b'event: x\nid: 1\ndata: {"choices": [{"delta": {"content": "ok"}}]}\n\n')
    assert asm.text == "ok" and not asm.done


def test_a_cut_stream_is_not_done() -> None:
    asm = SSEAssembler()
    asm.feed(b'data: {"choices": [{"index": 0, "delta": {"content": "half"}}]}\n\ndata: {"choi')
    assert asm.text == "half" and not asm.done
