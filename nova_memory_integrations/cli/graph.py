"""``nova-memory graph export``: a user's fact graph as GraphML, JSON or Graphviz DOT."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal, get_args

from ..engine.validation import printable
from ..memory.graph import FactGraph
from ..memory.temporal import normalize_value
from ..types import Fact

__all__ = ["GRAPH_FORMATS", "GraphFormat", "render_graph"]

GraphFormat = Literal["graphml", "json", "dot"]
GRAPH_FORMATS: tuple[GraphFormat, ...] = get_args(GraphFormat)


def _edge_attrs(f: Fact) -> dict[str, Any]:
    return {
        "id": f.id,
        "lineage_id": f.lineage_id,
        "predicate": f.predicate,
        "confidence": f.confidence,
        "valid_from": f.valid_from.isoformat(),
        "valid_to": f.valid_to.isoformat() if f.valid_to else "",
        "occurrence_count": f.occurrence_count,
    }


def render_graph(facts: Sequence[Fact], fmt: GraphFormat) -> str:
    """Serialise facts as a graph: entities are nodes, each fact version an edge."""
    if fmt == "json":
        nodes: dict[str, str] = {}
        edges = []
        for f in facts:
            s, o = normalize_value(f.subject), normalize_value(f.object)
            nodes.setdefault(s, f.subject)
            nodes.setdefault(o, f.object)
            edges.append({"source": s, "target": o, **_edge_attrs(f), "valid_to": _iso(f.valid_to)})
        return json.dumps({"directed": True, "multigraph": True,
                           "nodes": [{"id": k, "label": v} for k, v in nodes.items()], "edges": edges},
                          ensure_ascii=False, indent=2)
    if fmt == "dot":
        lines = ["digraph memory {", "  rankdir=LR;"]
        seen: set[str] = set()
        for f in facts:
            for node, label in ((normalize_value(f.subject), f.subject), (normalize_value(f.object), f.object)):
                if node not in seen:
                    seen.add(node)
                    lines.append(f"  {_dot(node)} [label={_dot(label)}];")
            until = f" until {f.valid_to:%Y-%m-%d}" if f.valid_to else ""
            label = f"{f.predicate} (from {f.valid_from:%Y-%m-%d}{until})"
            lines.append(f"  {_dot(normalize_value(f.subject))} -> {_dot(normalize_value(f.object))}"
                         f" [label={_dot(label)}, id={_dot(f.id)}];")
        lines.append("}")
        return "\n".join(lines) + "\n"
    if fmt == "graphml":
        import networkx as nx

        # stored values keep what was given; XML forbids control characters and non-characters,
        # so the export drops them (networkx's lxml writer refuses such a graph, its plain
        # writer emits XML no parser reads)
        g = FactGraph.build(facts)
        out: nx.MultiDiGraph[Any] = nx.MultiDiGraph()
        for node, data in g.nodes(data=True):
            out.add_node(printable(node), label=printable(str(data.get("label", node))))
        for u, v, key, data in g.edges(keys=True, data=True):
            attrs = {k: printable(a) if isinstance(a, str) else a for k, a in _edge_attrs(data["fact"]).items()}
            out.add_edge(printable(u), printable(v), key=printable(key), **attrs)
        buf = io.BytesIO()
        nx.write_graphml(out, buf)
        return buf.getvalue().decode("utf-8")
    raise ValueError(f"unknown graph format {fmt!r}: use {', '.join(GRAPH_FORMATS)}")


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _dot(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'
