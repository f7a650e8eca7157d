"""What the inspector pages show, as plain data: users, the belief timeline, the fact graph.

Every function reads through the public ``NovaStore`` API with a user the caller has
already resolved (:mod:`.access`), so the tenancy rules are the store's own. Geometry
(bar positions, node positions) is computed here, in Python, so the page needs no
charting script and renders the same with JavaScript off.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ..._time import to_epoch, utcnow
from ...types import Fact

if TYPE_CHECKING:
    from ... import NovaStore

__all__ = ["Bar", "GraphView", "Timeline", "UserRow", "graph_view", "timeline", "users_overview"]

MAX_BARS = 300
"""Most fact versions drawn on one timeline (the newest by valid time are kept)."""
CHART_WIDTH = 960
LABEL_WIDTH = 300
ROW_HEIGHT = 22
AXIS_HEIGHT = 28
GRAPH_SIZE = 560
MAX_GRAPH_NODES = 40


@dataclass(frozen=True)
class UserRow:
    user_id: str
    episodes: int
    facts: int
    rules: int
    hidden: int
    last_activity: datetime | None


def users_overview(store: NovaStore, users: list[str]) -> list[UserRow]:
    """Counts and the newest turn's time of each user in ``users`` (already filtered by the caller's key)."""
    rows = []
    for uid in users:
        stats = store.stats(uid)
        newest = store.episodes(uid, limit=1, newest_first=True)
        rows.append(UserRow(uid, stats["episodes"], stats["facts"], stats["rules"], stats["hidden"],
                            newest[0].timestamp if newest else None))
    return rows


@dataclass(frozen=True)
class Bar:
    """One fact version: a bar over its valid time, its learnt / superseded moments on the same axis."""

    fact: Fact
    y: float
    x: float
    width: float
    learnt: datetime
    learnt_x: float
    superseded: datetime | None
    superseded_x: float | None
    valid_at_as_of: bool

    @property
    def episode_id(self) -> str | None:
        return self.fact.provenance[0] if self.fact.provenance else None  # the first: where it was learnt


@dataclass
class Timeline:
    """The belief timeline of one user as believed at ``known_at``, highlighting what was valid at ``as_of``."""

    bars: list[Bar]
    start: datetime
    end: datetime
    as_of: datetime
    known_at: datetime
    as_of_x: float
    ticks: list[tuple[float, str]] = field(default_factory=list)
    truncated: int = 0
    width: int = CHART_WIDTH
    label_width: int = LABEL_WIDTH

    @property
    def height(self) -> int:
        return AXIS_HEIGHT + ROW_HEIGHT * max(1, len(self.bars)) + 8

    @property
    def slider_min(self) -> int:
        return int(to_epoch(self.start) or 0)

    @property
    def slider_max(self) -> int:
        return int(to_epoch(self.end) or 0)


def _valid_at(fact: Fact, when: datetime) -> bool:
    return fact.valid_from <= when and (fact.valid_to is None or when < fact.valid_to)


def _lineage_moments(store: NovaStore, user: str, fact: Fact) -> tuple[datetime, datetime | None]:
    """When the lineage was first learnt, and when this version was superseded (None: still held).

    A superseded value is stored as a closed copy written at the moment of the change: its
    ``ingested_at`` is that moment, the lineage's first version says when it was learnt.
    """
    if fact.id == fact.lineage_id and fact.valid_to is None:
        return fact.ingested_at, None
    versions = store.fact_history(user, fact.id)
    learnt = min((v.ingested_at for v in versions), default=fact.ingested_at)
    return learnt, (fact.ingested_at if fact.valid_to is not None else fact.expired_at)


def timeline(store: NovaStore, user: str, *, as_of: datetime | None, known_at: datetime | None) -> Timeline:
    """Every fact version believed at ``known_at`` (default now), one bar each, grouped by subject and predicate."""
    now = utcnow()
    known = known_at or now
    when = as_of or now
    versions = store.facts(user, include_history=True, known_at=known)
    versions.sort(key=lambda f: (f.valid_from, f.id))
    truncated = max(0, len(versions) - MAX_BARS)
    versions = versions[truncated:]
    versions.sort(key=lambda f: (f.subject.lower(), f.predicate, f.valid_from, f.id))
    moments = {f.id: _lineage_moments(store, user, f) for f in versions}
    times = [f.valid_from for f in versions] + [m[0] for m in moments.values()]
    start = min(times, default=now - timedelta(days=30))
    end = max([now, when, known, *times])
    start = min(start, when, known)
    span = max((end - start).total_seconds(), 1.0)
    pad = span * 0.02
    start, end = start - timedelta(seconds=pad), end + timedelta(seconds=pad)
    span = (end - start).total_seconds()
    plot = CHART_WIDTH - LABEL_WIDTH

    def x_of(t: datetime) -> float:
        return round(LABEL_WIDTH + plot * (t - start).total_seconds() / span, 1)

    bars = []
    for row, fact in enumerate(versions):
        learnt, superseded = moments[fact.id]
        x0, x1 = x_of(fact.valid_from), x_of(fact.valid_to or end)
        bars.append(Bar(fact, AXIS_HEIGHT + row * ROW_HEIGHT, x0, max(2.0, x1 - x0), learnt, x_of(learnt),
                        superseded, None if superseded is None else x_of(superseded), _valid_at(fact, when)))
    return Timeline(bars, start, end, when, known, x_of(when), _ticks(start, end, x_of), truncated)


def _ticks(start: datetime, end: datetime, x_of: object) -> list[tuple[float, str]]:
    """Five evenly spaced dates along the axis."""
    span = end - start
    fmt = "%Y-%m-%d %H:%M" if span < timedelta(days=3) else "%Y-%m-%d"
    points = [start + span * (i / 5) for i in range(1, 5)]
    return [(x_of(t), t.strftime(fmt)) for t in points]  # type: ignore[operator]


@dataclass(frozen=True)
class Node:
    name: str
    x: float
    y: float
    centre: bool


@dataclass(frozen=True)
class Edge:
    fact: Fact
    x1: float
    y1: float
    x2: float
    y2: float

    @property
    def label_x(self) -> float:
        return round((self.x1 + self.x2) / 2, 1)

    @property
    def label_y(self) -> float:
        return round((self.y1 + self.y2) / 2 - 4, 1)


@dataclass
class GraphView:
    entity: str
    hops: int
    nodes: list[Node]
    edges: list[Edge]
    entities: list[str]
    size: int = GRAPH_SIZE


def graph_view(store: NovaStore, user: str, entity: str | None, *, hops: int, as_of: datetime | None) -> GraphView:
    """The facts within ``hops`` of ``entity`` as a star-and-ring layout (the entity in the centre)."""
    as_of = as_of or utcnow()  # traverse without as_of walks every version, ended ones too
    current = store.facts(user, as_of=as_of)
    entities = sorted({f.subject for f in current} | {f.object for f in current}, key=str.lower)
    entity = entity or (current[0].subject if current else "")
    facts = store.traverse(user, entity, max_hops=hops, as_of=as_of) if entity else []
    names: list[str] = [entity] if entity else []
    for f in facts:
        for name in (f.subject, f.object):
            if name not in names:
                names.append(name)
    names = names[:MAX_GRAPH_NODES]
    centre = GRAPH_SIZE / 2
    radius = GRAPH_SIZE / 2 - 70
    positions: dict[str, Node] = {}
    ring = [n for n in names if n != entity]
    for i, name in enumerate(ring):
        angle = 2 * math.pi * i / max(1, len(ring)) - math.pi / 2
        positions[name] = Node(name, round(centre + radius * math.cos(angle), 1),
                               round(centre + radius * math.sin(angle), 1), False)
    if entity:
        positions[entity] = Node(entity, centre, centre, True)
    edges = [Edge(f, positions[f.subject].x, positions[f.subject].y, positions[f.object].x, positions[f.object].y)
             for f in facts if f.subject in positions and f.object in positions]
    return GraphView(entity, hops, list(positions.values()), edges, entities)
