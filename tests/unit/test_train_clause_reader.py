"""The clause reader's trainer (``benchmarks/train_clause_reader.py``): what it trains on and how it fits, without
MiniLM (the embedding and the cross-writer run are the benchmark's own; ``test_changes_clause_reader`` checks the
shipped weights against the corpus they record)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from train_clause_reader import CORPUS, clause_of, fit, fit_network, head_word, load, predict, predict_network, variants

from nova_memory_integrations.changes.clause_reader import LABELS


def test_each_line_trains_three_masked_texts() -> None:
    row = {"text": "Honestly the commute is brutal, but I flogged the old Peugeot last week", "label": "ended",
           "thing": "the old Peugeot"}
    got = variants(row)
    assert got["line"] == "Honestly the commute is brutal, but I flogged it last week"
    assert got["clause"].endswith("I flogged it last week") and "commute" not in got["clause"]
    assert got["head"] == "Honestly the commute is brutal, but I flogged the old it last week"
    assert head_word("my little allotment plot") == "plot"
    assert clause_of("No thing named here.", "") == "No thing named here."


def test_the_fit_learns_a_separable_problem_and_l2_shrinks_it() -> None:
    rng = np.random.default_rng(0)
    centres = np.eye(len(LABELS), 16) * 3
    y = rng.integers(0, len(LABELS), 300)
    x = centres[y] + rng.normal(scale=0.5, size=(300, 16))
    w, b = fit(x, y, l2=1e-4, steps=200)
    assert (predict(w, b, x).argmax(1) == y).mean() > 0.95
    strong, _ = fit(x, y, l2=1.0, steps=200)
    assert np.abs(strong).sum() < np.abs(w).sum()


def test_the_network_learns_what_no_linear_layer_can_and_is_reproducible() -> None:
    # labels by quadrant of two coordinates (an XOR-like split): no linear layer separates state from ended
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, size=(400, 2))
    y = np.where((x[:, 0] > 0) == (x[:, 1] > 0), 0, 1)
    w, b = fit(x, y, l2=1e-4, steps=300)
    assert (predict(w, b, x).argmax(1) == y).mean() < 0.8
    net = fit_network(x, y, hidden=32, steps=400, rate=0.05)
    assert (predict_network(net, x).argmax(1) == y).mean() > 0.95
    again = fit_network(x, y, hidden=32, steps=400, rate=0.05)
    assert all(np.array_equal(a, b_) for a, b_ in zip(net, again, strict=True))  # seeded: the same weights


def test_a_corpus_line_without_a_known_label_stops_the_trainer(tmp_path: Path) -> None:
    bad = tmp_path / "c.jsonl"
    bad.write_text(json.dumps({"text": "sold it", "label": "finished", "thing": "it"}) + "\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="known label"):
        load(bad)


def test_the_shipped_corpus_is_twelve_writers_of_every_label() -> None:
    assert len(CORPUS) == 12
    for path in CORPUS:
        rows = load(path)
        assert len(rows) >= 400
        assert {r["label"] for r in rows} == set(LABELS)
