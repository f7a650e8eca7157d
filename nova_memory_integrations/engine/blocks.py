"""Pinned blocks: named texts per user that every context carries, whatever the query.

Letta's core memory and LlamaIndex's static block: ``"human"`` (what the agent keeps about the
user), ``"persona"`` (about itself) or any name the app chooses. The app reads and edits them
through ``NovaStore`` (:class:`BlocksAPI`, a mixin of the facade), the agent through the memory
tools (:mod:`.agent_tools`), MCP and REST. Each block has a size limit in characters (default
``limits.block_chars``); a text over it is refused with a typed error, never cut. Every edit is a
new version (:mod:`..storage.blocks`): the history stays readable (``block_history``) and nothing
is destroyed but by erasure. Every read and write is scoped by user.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from .._time import to_epoch, utcnow
from ..errors import InvalidInputError
from ..types import ContextItem, PinnedBlock, new_id
from .validation import check_content, check_positive_int, check_timestamp, check_user

if TYPE_CHECKING:
    from .components import Components

__all__ = ["AUTHORS", "BLOCK_NAME", "BlocksAPI", "block_items", "check_block_name"]

BLOCK_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
"""A block's name: a letter, then up to 63 letters, digits, ``_``, ``.`` or ``-`` ("human", "persona")."""
Author = Literal["app", "agent"]
AUTHORS: tuple[Author, ...] = ("app", "agent")


def check_block_name(name: object) -> str:
    """``name`` if it is a block name (:data:`BLOCK_NAME`).

    Raises:
        InvalidInputError: anything else.
    """
    if not isinstance(name, str) or not BLOCK_NAME.match(name):
        raise InvalidInputError(f"a block name is a letter then up to 63 letters, digits, '_', '.' or '-', "
                                f"not {str(name)[:80]!r}", field="name")
    return name


def write(components: Components, user_id: str, name: str, content: str, *, limit: int | None,
          author: Author) -> PinnedBlock:
    """Write the next version of the block ``name`` (its limit kept unless ``limit`` is given).

    Raises:
        InvalidInputError: a bad name, limit or text, or a text over the block's limit.
    """
    limits = components.config.limits
    name = check_block_name(name)
    content = check_content(content, limits, "content") if content.strip() else content
    current = components.db.pinned_blocks(user_id, name=name)
    size = check_positive_int(limit, "limit") if limit is not None else (
        current[0].limit if current else limits.block_chars)
    if len(content) > size:
        raise InvalidInputError(f"block {name!r} holds at most {size} characters; this text has {len(content)}"
                                " (shorten it, or raise the block's limit)", field="content")
    now = utcnow()
    block = PinnedBlock(id=new_id("pb"), user_id=user_id, name=name, content=content, limit=size, author=author,
                        valid_from=now, ingested_at=now)
    components.db.write_block(block, to_epoch(now) or 0.0)
    return block


def block_items(components: Components, user_id: str, *, as_of: datetime | None) -> list[ContextItem]:
    """The user's pinned blocks as context items (guaranteed slots, before any fact)."""
    at = None if as_of is None else to_epoch(as_of)
    return [ContextItem(kind="block", id=b.id, text=b.content, score=1.0, timestamp=b.valid_from,
                        metadata={"name": b.name, "author": b.author, "limit": b.limit},
                        reason=f"guaranteed slot: pinned block {b.name!r}")
            for b in components.db.pinned_blocks(user_id, at=at) if b.content.strip()]


class BlocksAPI:
    """``NovaStore``'s pinned-block methods (a mixin: ``self.components`` and ``_check_open`` are the facade's)."""

    components: Components

    def _check_open(self) -> None: ...

    def set_block(self, user_id: str, name: str, content: str, *, limit: int | None = None,
                  author: Author = "app") -> PinnedBlock:
        """Write the block ``name`` of ``user_id`` (created if new); the version it replaces is kept.

        ``limit`` (characters) is the block's size limit from now on (default: the current
        version's, or ``limits.block_chars`` for a new block).

        Raises:
            InvalidInputError: a bad name or limit, or ``content`` over the limit.
        """
        self._check_open()
        if author not in AUTHORS:
            raise InvalidInputError(f"author must be one of {', '.join(AUTHORS)}", field="author")
        if not isinstance(content, str):
            raise InvalidInputError(f"content must be a string, got {type(content).__name__}", field="content")
        return write(self.components, self._block_user(user_id), name, content, limit=limit, author=author)

    def append_to_block(self, user_id: str, name: str, text: str, *, author: Author = "app") -> PinnedBlock:
        """Add ``text`` as a new line at the end of the block ``name`` (created if new)."""
        self._check_open()
        uid = self._block_user(user_id)
        text = check_content(text, self.components.config.limits, "text")
        current = self.components.db.pinned_blocks(uid, name=check_block_name(name))
        before = current[0].content if current else ""
        return self.set_block(uid, name, f"{before}\n{text}" if before.strip() else text, author=author)

    def block(self, user_id: str, name: str, *, as_of: datetime | str | None = None) -> PinnedBlock | None:
        """The block ``name`` as it is now (or was at ``as_of``); ``None`` if there is none."""
        found = self.blocks(user_id, as_of=as_of, name=name)
        return found[0] if found else None

    def blocks(self, user_id: str, *, as_of: datetime | str | None = None, name: str | None = None
               ) -> list[PinnedBlock]:
        """The user's blocks as they are now (or were at ``as_of``), by name."""
        self._check_open()
        at = check_timestamp(as_of, "as_of")
        return self.components.db.pinned_blocks(self._block_user(user_id),
                                                name=None if name is None else check_block_name(name),
                                                at=None if at is None else to_epoch(at))

    def block_history(self, user_id: str, name: str) -> list[PinnedBlock]:
        """Every version of the block ``name``, oldest first (closed ones with ``valid_to``)."""
        self._check_open()
        return self.components.db.pinned_blocks(self._block_user(user_id), name=check_block_name(name), history=True)

    def delete_block(self, user_id: str, name: str) -> bool:
        """Remove the block ``name`` from every context from now on (its history is kept); whether it existed."""
        self._check_open()
        return self.components.db.close_block(self._block_user(user_id), check_block_name(name),
                                              to_epoch(utcnow()) or 0.0)

    def _block_user(self, user_id: str) -> str:
        return check_user(user_id, self.components.config.limits)
