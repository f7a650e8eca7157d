"""How often the store never learns a scenario's first state: the capture failures of the belief sets.

    .venv/bin/python benchmarks/belief_capture.py                  # all three sets, counts only
    .venv/bin/python benchmarks/belief_capture.py --show holdout   # also each missed scenario's first turn

A scenario "never captures its first state" when a ``current`` check dated before its second user turn
finds no matching fact at all (0 matches, not a wrong count): the change layer then has nothing to end,
replace or correct, whatever it does. This is the capture side's own measure (issue #38); the scenario
scores stay ``benchmarks/beliefs.py``'s. Prints one JSON line last: per set, the scenarios missed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import emit, log  # noqa: E402
from belief_scoring import (  # noqa: E402
    SETS,
    Outcome,
    _date,
    load_scenarios,
    run_scenario,
)

from nova_memory_integrations import NovaStore  # noqa: E402
from nova_memory_integrations.config import NovaConfig  # noqa: E402


def never_captured(outcome: Outcome) -> bool:
    """Whether a ``current`` check before the second user turn found nothing."""
    users = [t for t in outcome.scenario.turns if t.get("role", "user") == "user"]
    second = _date(users[1]["timestamp"]) if len(users) > 1 else None
    return any(check.expect == "current" and n == 0 and (second is None or check.at < second)
               for check, n in outcome.failed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--show", action="append", default=[], choices=tuple(SETS),
                        help="print each missed scenario of this set: its first turn and what was stored")
    args = parser.parse_args()
    config = NovaConfig.model_validate({"consolidation": {"mode": "manual"}})
    counts: dict[str, dict[str, int | list[str]]] = {}
    with tempfile.TemporaryDirectory() as tmp, NovaStore(Path(tmp) / "store", config=config) as store:
        for name, path in SETS.items():
            missed = []
            for i, scenario in enumerate(load_scenarios(path)):
                user_id = f"{name}{i:04d}"
                first: list[str] = []

                def stored(s: NovaStore, _sc: object, u: str, first: list[str] = first) -> None:
                    first.extend(f"{f.subject} {f.predicate} {f.object!r}" for f in s.facts(u))

                outcome = run_scenario(store, scenario, user_id, after_first=stored)
                if never_captured(outcome):
                    missed.append(scenario.id)
                    if name in args.show:
                        wanted = [(c.about, c.terms) for c, n in outcome.failed if c.expect == "current" and not n]
                        log(f"{scenario.id} ({scenario.kind}) wants {wanted[0]}\n  turn: "
                            f"{scenario.turns[0]['content']}\n  stored: {'; '.join(first) or '-'}")
            counts[name] = {"never_captured": len(missed), "ids": missed}
    for name, c in counts.items():
        log(f"{name:8s} never captured {c['never_captured']}")
    emit({"benchmark": "belief_capture", **{k: v["never_captured"] for k, v in counts.items()},
          "ids": {k: v["ids"] for k, v in counts.items()}})


if __name__ == "__main__":
    main()
