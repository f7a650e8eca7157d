"""Structure check for a belief scenario file (not a score: it knows nothing of any memory system)."""
import json
import sys
from collections import Counter
from datetime import date, datetime

PATH, PREFIX = sys.argv[1], sys.argv[2]
WANT = {"ending": 30, "transition": 24, "third_party": 20, "correction": 16, "repeat": 8, "no_change": 22}
errors, rows = [], []
with open(PATH, encoding="utf-8") as f:
    lines = f.readlines()
for n, line in enumerate(lines, 1):
    if not line.strip():
        continue
    try:
        r = json.loads(line)
    except Exception as e:
        errors.append(f"line {n}: not JSON ({e})")
        continue
    rows.append(r)
    rid = r.get("id", f"line {n}")
    if not str(r.get("id", "")).startswith(PREFIX):
        errors.append(f"{rid}: id must start with {PREFIX}")
    if r.get("kind") not in WANT:
        errors.append(f"{rid}: kind must be one of {sorted(WANT)}")
    turns = r.get("turns") or []
    stamps = []
    for t in turns:
        if t.get("role") not in ("user", "assistant") or not str(t.get("content", "")).strip():
            errors.append(f"{rid}: each turn needs role user|assistant and content")
        try:
            ts = datetime.fromisoformat(t["timestamp"])
            if ts.tzinfo is None:
                errors.append(f"{rid}: timestamp needs a UTC offset")
            stamps.append(ts)
        except Exception:
            errors.append(f"{rid}: bad timestamp {t.get('timestamp')!r}")
    if stamps != sorted(stamps):
        errors.append(f"{rid}: turns out of time order")
    user_days = {datetime.fromisoformat(t["timestamp"]).date() for t in turns if t.get("role") == "user" and "timestamp" in t}
    if len(user_days) < 2:
        errors.append(f"{rid}: needs user turns on at least two different dates")
    text = " ".join(t.get("content", "") for t in turns).lower()
    checks = r.get("checks") or []
    if not checks:
        errors.append(f"{rid}: no checks")
    for c in checks:
        try:
            date.fromisoformat(c["at"])
            if "known_at" in c:
                date.fromisoformat(c["known_at"])
        except Exception:
            errors.append(f"{rid}: check dates must be YYYY-MM-DD")
            continue
        if c.get("expect") not in ("current", "not_current"):
            errors.append(f"{rid}: expect must be current|not_current")
        if not c.get("about") or not c.get("terms"):
            errors.append(f"{rid}: each check needs about and terms")
        elif not any(str(term).lower() in text for term in c["terms"]):
            errors.append(f"{rid}: none of the terms {c['terms']} occurs in the conversation")
        if "count" in c and c.get("expect") != "current":
            errors.append(f"{rid}: count only with expect current")
    kind = r.get("kind")
    if kind in ("ending", "transition", "third_party", "correction") and \
            not any(c.get("expect") == "not_current" for c in checks):
        errors.append(f"{rid}: a change needs a not_current check")
    if kind == "correction" and not any("known_at" in c for c in checks):
        errors.append(f"{rid}: a correction needs a known_at check (what was believed before it)")
    if kind == "repeat" and not any("count" in c for c in checks):
        errors.append(f"{rid}: a repeat needs a count check")
    if kind == "no_change" and any(c.get("expect") == "not_current" for c in checks):
        errors.append(f"{rid}: no_change checks are all current")
ids = Counter(r.get("id") for r in rows)
errors += [f"duplicate id {i}" for i, k in ids.items() if k > 1]
kinds = Counter(r.get("kind") for r in rows)
for k, v in WANT.items():
    if kinds.get(k, 0) != v:
        errors.append(f"kind {k}: {kinds.get(k, 0)} scenarios, want {v}")
print("\n".join(errors[:60]) if errors else f"OK: {len(rows)} scenarios, {dict(kinds)}")
sys.exit(1 if errors else 0)
