"""Check a clause file, as the writers did: ``python3 validate.py FILE`` prints counts, lists bad lines, exits 1 if
any (the brief's VALIDATOR; the writers' copy had the same checks, written more tersely)."""

import collections
import json
import sys

LABELS = {"state", "ended", "changed", "corrected", "other"}


def problems(r: dict, seen: set[str]) -> list[str]:
    """What is wrong with one parsed line."""
    out = []
    if set(r) != {"text", "label", "whose", "thing", "new"}:
        out.append(f"keys must be exactly text,label,whose,thing,new (got {sorted(r)})")
    t = r.get("text") or ""
    if not isinstance(t, str) or len(t.split()) < 3:
        out.append("text missing or under 3 words")
    if r.get("label") not in LABELS:
        out.append(f"label {r.get('label')!r} not one of {sorted(LABELS)}")
    if not isinstance(r.get("whose"), str) or not r.get("whose"):
        out.append("whose must be 'user' or the person's words")
    th = r.get("thing")
    if not isinstance(th, str):
        out.append("thing must be a string ('' only for label other with no state named)")
    elif th and th.lower() not in t.lower():
        out.append(f"thing {th!r} is not copied from the text")
    elif not th and r.get("label") != "other":
        out.append("thing may be empty only for label other")
    nw = r.get("new")
    if r.get("label") in ("changed", "corrected"):
        if not isinstance(nw, str) or not nw or nw.lower() not in t.lower():
            out.append(f"new {nw!r} must be copied from the text for changed/corrected")
    elif nw is not None:
        out.append("new must be null unless label is changed or corrected")
    if t.lower() in seen:
        out.append("duplicate text")
    seen.add(t.lower())
    return out


def main(path: str) -> int:
    """Check ``path``; 0 when every line is good."""
    bad = 0
    counts: collections.Counter[str] = collections.Counter()
    whose: collections.Counter[str] = collections.Counter()
    seen: set[str] = set()
    with open(path, encoding="utf-8") as lines:
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except ValueError as e:
                print(f"line {n}: not JSON ({e})")
                bad += 1
                continue
            found = problems(r, seen)
            if found:
                bad += 1
                print(f"line {n}: " + "; ".join(found))
            else:
                counts[r["label"]] += 1
                whose["user" if r["whose"] == "user" else "other person"] += 1
    print(dict(counts), "total", sum(counts.values()), dict(whose), "bad", bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
