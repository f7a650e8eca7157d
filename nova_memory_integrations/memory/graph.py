"""The fact graph: a networkx view of one user's believed facts, rebuilt from SQLite.

Nodes are normalised entity names (subjects, and objects of facts); each edge is one
fact version keyed by its id, carrying its validity. The graph is a cache: it is built
lazily per user and dropped whenever that user's facts change.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

import networkx as nx

from ..types import Fact
from .temporal import normalize_value

__all__ = ["FactGraph"]


class FactGraph:
    """Per-user ``MultiDiGraph`` cache with temporal traversal."""

    def __init__(self, load: Callable[[str], list[Fact]],
                 revision: Callable[[str], int | None] | None = None) -> None:
        """``load`` reads a user's believed facts; ``revision``, when other processes write the same
        database, reads the user's revision, and a graph built after reading one is used only while
        it is unchanged (``None``, or a revision of ``None``: only :meth:`invalidate` drops it)."""
        self._load = load
        self._revision = revision
        self._graphs: dict[str, tuple[int | None, nx.MultiDiGraph[Any]]] = {}
        self._lock = threading.Lock()

    def invalidate(self, user_id: str | None = None) -> None:
        """Drop the cached graph of one user (or all)."""
        with self._lock:
            if user_id is None:
                self._graphs.clear()
            else:
                self._graphs.pop(user_id, None)

    def graph(self, user_id: str) -> nx.MultiDiGraph[Any]:
        """The user's graph (built on first use after a change). Do not mutate it."""
        revision = None if self._revision is None else self._revision(user_id)  # before the facts
        with self._lock:
            cached = self._graphs.get(user_id)
        if cached is not None and cached[0] == revision:
            return cached[1]
        g = self.build(self._load(user_id))
        with self._lock:
            self._graphs[user_id] = (revision, g)
        return g

    @staticmethod
    def build(facts: Iterable[Fact]) -> nx.MultiDiGraph[Any]:
        """Build a graph from facts (pure)."""
        g: nx.MultiDiGraph[Any] = nx.MultiDiGraph()
        for f in facts:
            s, o = normalize_value(f.subject), normalize_value(f.object)
            g.add_node(s, label=f.subject)
            g.add_node(o, label=f.object)
            g.add_edge(s, o, key=f.id, fact=f, predicate=f.predicate)
        return g

    def traverse(
        self,
        user_id: str,
        start: str,
        *,
        max_hops: int = 2,
        predicates: Iterable[str] | None = None,
        as_of: datetime | None = None,
    ) -> list[tuple[int, Fact]]:
        """Facts reachable from ``start`` within ``max_hops`` edges, in either direction.

        Returns ``(hop, fact)`` pairs, nearest first. Only facts valid at ``as_of`` are
        followed when it is given.
        """
        g = self.graph(user_id)
        node = normalize_value(start)
        if node not in g:
            return []
        wanted = set(predicates) if predicates is not None else None
        seen_nodes = {node}
        seen_edges: set[str] = set()
        out: list[tuple[int, Fact]] = []
        frontier: deque[tuple[str, int]] = deque([(node, 0)])
        while frontier:
            current, depth = frontier.popleft()
            if depth >= max_hops:
                continue
            edges = list(g.out_edges(current, keys=True, data=True)) + list(
                g.in_edges(current, keys=True, data=True)
            )
            for u, v, key, data in edges:
                fact: Fact = data["fact"]
                if key in seen_edges or (wanted is not None and fact.predicate not in wanted):
                    continue
                if as_of is not None and not fact.is_valid_at(as_of):
                    continue
                seen_edges.add(key)
                out.append((depth + 1, fact))
                nxt = v if u == current else u
                if nxt not in seen_nodes:
                    seen_nodes.add(nxt)
                    frontier.append((nxt, depth + 1))
        return out
