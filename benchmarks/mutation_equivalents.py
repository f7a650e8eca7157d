"""Sort mutmut's surviving mutants of case-only string changes (SQL, row keys) and False -> None flags.

mutmut 3.x upper- and lower-cases every string literal, and no option turns only those two
mutations off (boxed/mutmut#577; ``do_not_mutate_patterns`` and ``# pragma: no mutate`` skip
every mutation of a line). In the storage modules most such survivors are equivalent:
SQLite reads keywords, table and column names case-insensitively, and so does a
``sqlite3.Row`` lookup by column name. This script reads mutmut's results (``mutants/``) and,
for each survivor, compares the mutant function with the original (both are in the
trampolined file mutmut writes) and reports one category:

``sql``
    exactly one string literal differs, only in letter case; the string is SQL (a keyword
    such as ``SELECT`` / ``WHERE`` / ``AND`` as a word, or a ``?`` placeholder) or a separator
    joined into an SQL f-string (``' OR '.join(...)``); and every single-quoted SQL literal
    inside it (``'flagged'``, ``'summary'`` ...) is unchanged - a case change of such a value
    is a real fault, and so is not in this category.
``row-key``
    exactly one string literal differs, only in letter case, and it is a subscript key
    (``r["ts"]`` -> ``r["TS"]``): equivalent when the subscripted value is a ``sqlite3.Row``;
    the expression is printed so that this can be checked by reading the code.
``false-none``
    exactly one keyword argument ``False`` became ``None`` (``json.dumps(..., ensure_ascii=None)``,
    ``check_id(..., required=None)``): equivalent when the callee only tests the flag's truth,
    as ``json.dumps`` and every function of this package do; the call is printed so that this
    can be checked by reading the callee.
``other``
    anything else: a real gap to kill with a test, or an equivalent mutant to explain by hand.

Usage (from the repo root, after ``mutmut run``)::

    python benchmarks/mutation_equivalents.py                     # the storage modules
    python benchmarks/mutation_equivalents.py nova_memory_integrations/storage/rows.py -v

Prints a summary per module (survivors, ``sql``, ``row-key``, ``other``; ``-v`` also lists
each mutant) and, as the last line, one JSON object with the counts per module.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

STORAGE = [f"nova_memory_integrations/storage/{m}.py" for m in ("episodes", "facts", "records", "sqlite", "rows")]
SQL_WORD = re.compile(
    r"\b(SELECT|INSERT|UPDATE|DELETE|REPLACE|FROM|WHERE|AND|OR|NOT|IN|IS|NULL|SET|VALUES|INTO|ORDER|GROUP|BY|"
    r"LIMIT|JOIN|ON|AS|DESC|ASC|COUNT|MAX|MIN|DISTINCT|EXISTS|CONFLICT|DO|NOTHING|COALESCE)\b",
    re.IGNORECASE,
)
SQL_LITERAL = re.compile(r"'[^']*'")
CATEGORIES = ("sql", "row-key", "false-none", "other")
SURVIVED = 0  # mutmut's exit code of a surviving mutant (mutmut.stats.status_by_exit_code)


def survivors(meta: Path) -> list[str]:
    """Names of the surviving mutants recorded in one ``.meta`` file."""
    codes: dict[str, int | None] = json.loads(meta.read_text())["exit_code_by_key"]
    return sorted(k for k, v in codes.items() if v == SURVIVED)


def functions(tree: ast.AST) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    return {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def strings(fn: ast.AST) -> list[ast.Constant]:
    """The string constants of a function (not its docstring), in source order."""
    out = [n for n in ast.walk(fn) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


def in_sql_fstring(node: ast.AST, up: dict[ast.AST, ast.AST]) -> bool:
    """Whether ``node`` is inside an f-string whose literal text is SQL."""
    while node in up:
        node = up[node]
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
            if SQL_WORD.search(text) or "?" in text:
                return True
    return False


def false_to_none(orig: ast.AST, mutant: ast.AST) -> str | None:
    """``f(..., flag=None)`` when the only change is one keyword argument ``False`` -> ``None``."""
    before = [n for n in ast.walk(orig) if isinstance(n, ast.keyword)]
    after = [n for n in ast.walk(mutant) if isinstance(n, ast.keyword)]
    if len(before) != len(after):
        return None
    changed = [(x, y) for x, y in zip(before, after)  # keywords whose own value changed (not a call around it)
               if isinstance(x.value, ast.Constant) and ast.dump(x.value) != ast.dump(y.value)]
    if len(changed) != 1:
        return None
    x, y = changed[0]
    if not (isinstance(x.value, ast.Constant) and x.value.value is False
            and isinstance(y.value, ast.Constant) and y.value.value is None):
        return None
    y.value.value = False  # put it back: nothing else may differ
    same = [ast.dump(n) for n in orig.body] == [ast.dump(n) for n in mutant.body]  # type: ignore[attr-defined]
    y.value.value = None
    if not same:
        return None
    call = parents(mutant).get(y)
    return f"{ast.unparse(call.func) if isinstance(call, ast.Call) else '?'}(..., {y.arg}=None)"


def classify(orig: ast.AST, mutant: ast.AST) -> tuple[str, str]:
    """(category, detail) of one mutant function against its original."""
    flag = false_to_none(orig, mutant)
    if flag is not None:
        return "false-none", flag
    before, after = strings(orig), strings(mutant)
    if len(before) != len(after):
        return "other", "not a string change"
    changed = [(a, b) for a, b in zip(before, after) if a.value != b.value]
    if len(changed) != 1:
        return "other", "not exactly one string changed"
    a, b = changed[0]
    old, new = a.value, b.value
    if old.casefold() != new.casefold():
        return "other", f"{old!r} -> {new!r}"
    if SQL_LITERAL.findall(old) != SQL_LITERAL.findall(new):
        return "other", f"a quoted SQL literal changed: {old!r} -> {new!r}"
    up = parents(mutant)
    parent = up.get(b)
    if isinstance(parent, ast.Subscript) and parent.slice is b:
        return "row-key", ast.unparse(parent)
    if SQL_WORD.search(old) or "?" in old or in_sql_fstring(b, up):
        return "sql", f"{old.strip()[:60]!r}"
    return "other", f"case only, not SQL: {old!r} -> {new!r}"


def check_module(path: str, mutants: Path) -> list[tuple[str, str, str]]:
    """(mutant, category, detail) of every survivor of one source module."""
    meta = mutants / f"{path}.meta"
    if not meta.exists():
        sys.exit(f"{meta} not found: run `mutmut run` first")
    tree = ast.parse((mutants / path).read_text())
    defs = functions(tree)
    out = []
    for key in survivors(meta):
        name = key.rpartition(".")[2]  # x_fn__mutmut_3 or xǁClassǁmethod__mutmut_3
        orig = defs.get(name.rpartition("__mutmut_")[0] + "__mutmut_orig")
        mutant = defs.get(name)
        if orig is None or mutant is None:
            out.append((name, "other", "function not found in the mutated file"))
            continue
        category, detail = classify(orig, mutant)
        if detail.startswith("not "):
            detail = f"{detail}: {diff(orig, mutant)}"
        out.append((name, category, detail))
    return out


def diff(orig: ast.AST, mutant: ast.AST) -> str:
    """A one-line unified diff of two function bodies (for ``-v``)."""
    a, b = ast.unparse(orig).splitlines()[1:], ast.unparse(mutant).splitlines()[1:]
    lines = [d for d in difflib.unified_diff(a, b, lineterm="", n=0) if d[:1] in "+-" and d[:3] not in ("---", "+++")]
    return " | ".join(line.strip() for line in lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("modules", nargs="*", default=STORAGE, help="source files (default: the storage modules)")
    parser.add_argument("--mutants", type=Path, default=Path("mutants"), help="mutmut's output directory")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every survivor with its category")
    args = parser.parse_args(argv)
    summary: dict[str, Any] = {}
    for path in args.modules:
        rows = check_module(path, args.mutants)
        counts = Counter(category for _, category, _ in rows)
        per_function: dict[str, Counter[str]] = {}
        for name, category, _ in rows:
            per_function.setdefault(category, Counter())[name.rpartition("__mutmut_")[0]] += 1
        summary[path] = {"survived": len(rows), **{c: counts[c] for c in CATEGORIES}}
        print(f"{path}: {len(rows)} survivors: {counts['sql']} sql, {counts['row-key']} row-key, "
              f"{counts['false-none']} false-none, {counts['other']} other")
        for category in CATEGORIES[:-1]:
            if per_function.get(category):
                print(f"  {category}: " + ", ".join(f"{f} ({n})" for f, n in sorted(per_function[category].items())))
        for name, category, detail in rows:
            if args.verbose or category == "other":
                print(f"  {category:8} {name}: {detail}")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
