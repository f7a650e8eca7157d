"""What the store believes after ordinary speech: the blind belief sets, scored per kind.

    .venv/bin/python benchmarks/beliefs.py                      # the tuning set (tests/data/beliefs_tuning.jsonl)
    .venv/bin/python benchmarks/beliefs.py --set test           # the test set, written after the work
    .venv/bin/python benchmarks/beliefs.py --set holdout        # the third set (run once: 55/120)
    .venv/bin/python benchmarks/beliefs.py --set fourth         # the fourth set (run once: 49/120)
    .venv/bin/python benchmarks/beliefs.py --set fifth          # the fifth set (run once: 45/120)
    .venv/bin/python benchmarks/beliefs.py --set sixth_a        # the sixth sets, two writers (run once: 59/120
    .venv/bin/python benchmarks/beliefs.py --set sixth_b        # and 67/120, together 126/240)
    .venv/bin/python benchmarks/beliefs.py --set seventh_a      # the seventh sets, two writers (run once: 64/120
    .venv/bin/python benchmarks/beliefs.py --set seventh_b      # and 67/120, together 131/240)
    .venv/bin/python benchmarks/beliefs.py --set eighth_a       # the eighth sets, two writers (run once: 75/120
    .venv/bin/python benchmarks/beliefs.py --set eighth_b       # and 72/120, together 147/240)
    .venv/bin/python benchmarks/beliefs.py --set ninth_a        # the ninth sets, two writers (run once: 67/120
    .venv/bin/python benchmarks/beliefs.py --set ninth_b        # and 68/120, together 135/240)
    .venv/bin/python benchmarks/beliefs.py --set tenth_a        # the tenth sets, two writers (run once: 76/120
    .venv/bin/python benchmarks/beliefs.py --set tenth_b        # and 80/120, together 156/240)
    .venv/bin/python benchmarks/beliefs.py --set eleventh_a     # the eleventh sets, two writers (run once: 85/120
    .venv/bin/python benchmarks/beliefs.py --set eleventh_b     # and 71/120, together 156/240)
    .venv/bin/python benchmarks/beliefs.py --set thirteenth_a   # the thirteenth sets, two writers (run once: 76/120
    .venv/bin/python benchmarks/beliefs.py --set thirteenth_b   # and 75/120, together 151/240)
    .venv/bin/python benchmarks/beliefs.py --set fourteenth_a   # the fourteenth sets, two writers (run once: 72/120
    .venv/bin/python benchmarks/beliefs.py --set fourteenth_b   # and 79/120, together 151/240)
    .venv/bin/python benchmarks/beliefs.py --set fifteenth_a    # the fifteenth sets, two writers (run once: 73/120
    .venv/bin/python benchmarks/beliefs.py --set fifteenth_b    # and 67/120, together 140/240)
    .venv/bin/python benchmarks/beliefs.py --failures 20        # also print 20 failed scenarios
    .venv/bin/python benchmarks/beliefs.py --seed-first         # diagnostic: first state asserted directly
    .venv/bin/python benchmarks/beliefs.py --unwanted           # every change no not_current check asked for

Each scenario plays its user turns into one user of a fresh store (offline extractor unless
``--llm`` names a scripted model), consolidating after each turn, then asks
``facts(as_of=..., known_at=...)`` at the dates its writer labelled. Scoring:
``tests/belief_scoring.py``. Prints one JSON line last: per kind, scenarios, right,
recall, precision of the store's changes, false changes (no_change kind), and the time.

``--seed-first`` is a diagnostic of the change layer alone, never a benchmark figure: the first
state of each scenario is asserted with ``store.add_fact`` after the first turn
(``benchmarks/_belief_seed.py``), so a later turn has something to end or correct even where the
extractor missed the first statement. It also prints how many ``not_current`` checks after a
change passed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _belief_seed import seed_first_state  # noqa: E402
from _common import emit, log  # noqa: E402
from belief_scoring import (  # noqa: E402
    CHANGE_KINDS,
    SETS,
    Outcome,
    _date,
    describe,
    load_scenarios,
    run_scenario,
    score,
)

from nova_memory_integrations import NovaStore  # noqa: E402
from nova_memory_integrations.config import NovaConfig  # noqa: E402


def explain_change(store: NovaStore, user_id: str, outcome: Outcome, fact: Any) -> str:
    """One unwanted change: the scenario, the closed fact, the decision that closed it and its turn."""
    versions = {f.id for f in store.fact_history(user_id, fact.id)}
    made = [d for d in store.decisions(user_id, limit=1000)
            if d.op != "ADD" and (d.fact_id in versions or d.replaced_fact_id in versions)]
    lines = [f"UNWANTED {outcome.scenario.id} ({outcome.scenario.kind}): {fact.subject} {fact.predicate} "
             f"{fact.object!r} valid {fact.valid_from:%Y-%m-%d} .. {fact.valid_to:%Y-%m-%d}"]
    for d in made:
        turns = store.get_episodes(user_id, list(d.episode_ids))
        lines.append(f"  {d.op}: {d.reason}")
        lines += [f"    turn {e.timestamp:%Y-%m-%d}: {e.content}" for e in turns if e.role == "user"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", choices=tuple(SETS), default="tuning")
    parser.add_argument("--path", type=Path, help="another scenarios file")
    parser.add_argument("--failures", type=int, default=0, help="print this many failed scenarios")
    parser.add_argument("--only", help="comma-separated scenario ids or kinds")
    parser.add_argument("--seed-first", action="store_true",
                        help="diagnostic: assert each scenario's first state directly (not a benchmark figure)")
    parser.add_argument("--unwanted", action="store_true",
                        help="print every belief change no not_current check asked for: the fact, the decision's "
                             "reason and the turn that made it")
    args = parser.parse_args()
    path = args.path or SETS[args.set]
    scenarios = load_scenarios(path)
    if args.only:
        wanted = set(args.only.split(","))
        scenarios = [s for s in scenarios if s.id in wanted or s.kind in wanted]
    config = NovaConfig.model_validate({"consolidation": {"mode": "manual"}})
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, NovaStore(Path(tmp) / "store", config=config) as store:
        after_first = seed_first_state if args.seed_first else None
        outcomes = [run_scenario(store, s, f"b{i:04d}", after_first=after_first) for i, s in enumerate(scenarios)]
        if args.unwanted:
            for i, o in enumerate(outcomes):
                for fact in o.unwanted:
                    log(explain_change(store, f"b{i:04d}", o, fact))
    elapsed = time.perf_counter() - started
    kinds = score(outcomes)
    failed = [o for o in outcomes if not o.passed]
    for o in failed[: args.failures]:
        log(describe(o))
    for kind, s in kinds.items():
        if s.scenarios:
            log(f"{kind:12s} {s.passed:3d}/{s.scenarios:<3d} recall {s.recall:.3f}  precision "
                f"{'  n/a' if s.precision is None else format(s.precision, '.3f')}"
                f"  changes {s.changes:3d}  false changes {s.false_changes}")
    negatives = [(o, c) for o in outcomes for c in o.scenario.checks if c.expect == "not_current"
                 and c.at > min(_date(t["timestamp"]) for t in o.scenario.turns[1:] or o.scenario.turns)]
    failed_negatives = sum(1 for o, c in negatives if any(c is f for f, _ in o.failed))
    log(f"not_current checks after the first turn: {len(negatives) - failed_negatives}/{len(negatives)} pass"
        f"{'  (seeded first state: diagnostic only)' if args.seed_first else ''}")
    change = [kinds[k] for k in CHANGE_KINDS if kinds[k].scenarios]
    emit({
        "benchmark": "beliefs", "set": path.name, "scenarios": len(scenarios),
        "right": sum(o.passed for o in outcomes),
        "min_change_recall": round(min((s.recall for s in change), default=0.0), 3),
        "change_precision": (round(sum(s.wanted_changes for s in change) / sum(s.changes for s in change), 3)
                             if any(s.changes for s in change) else None),
        "false_changes": kinds["no_change"].false_changes,
        "kinds": {k: s.as_dict() for k, s in kinds.items() if s.scenarios},
        "seconds": round(elapsed, 1),
        **({"diagnostic": "seed-first"} if args.seed_first else {}),
    })


if __name__ == "__main__":
    main()
