"""The tee of a streamed chat completion: reassembles the reply from server-sent events.

The proxy hands every chunk to the client as it arrives and also feeds it here; chunk
boundaries may fall anywhere (inside a line, inside a UTF-8 sequence). Malformed events
are skipped: the assembler never raises on upstream data.
"""

from __future__ import annotations

import codecs
import json

__all__ = ["SSEAssembler"]

_MAX_PENDING = 1 << 20  # an unterminated line longer than this is dropped (no unbounded buffer)


class SSEAssembler:
    """Feed raw bytes of an OpenAI-style SSE stream; read the assistant text of choice 0.

    Attributes:
        done: the ``data: [DONE]`` sentinel was seen.
        finish_reason: the last ``finish_reason`` of choice 0, if any.
        model: the ``model`` named by the chunks, if any.
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""
        self._parts: list[str] = []
        self.done = False
        self.finish_reason: str | None = None
        self.model: str | None = None

    @property
    def text(self) -> str:
        """The assistant text assembled so far."""
        return "".join(self._parts)

    def feed(self, chunk: bytes) -> None:
        """Consume one chunk of the stream (any size, any boundary)."""
        self._pending += self._decoder.decode(chunk)
        *lines, self._pending = self._pending.split("\n")
        if len(self._pending) > _MAX_PENDING:
            self._pending = ""
        for line in lines:
            self._line(line.rstrip("\r"))

    def _line(self, line: str) -> None:
        if not line.startswith("data:"):
            return  # comments, event names, ids, blank separators
        data = line[5:].strip()
        if data == "[DONE]":
            self.done = True
            return
        try:
            event = json.loads(data)
        except (ValueError, RecursionError):
            return
        if not isinstance(event, dict):
            return
        if isinstance(event.get("model"), str):
            self.model = event["model"]
        for choice in event.get("choices") or ():
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict) and isinstance(delta.get("content"), str):
                self._parts.append(delta["content"])
            if isinstance(choice.get("finish_reason"), str):
                self.finish_reason = choice["finish_reason"]
