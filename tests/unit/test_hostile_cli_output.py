"""The CLI never prints a terminal escape sequence found in the data (#20)."""

from __future__ import annotations

import io
import json

from rich.table import Table

from nova_memory_integrations.cli._common import SafeConsole, json_text

HOSTILE = "before\x1b[2J\x1b]0;owned\x07\x9b31mafter \ud800"


def test_the_console_prints_no_escape_from_data_but_keeps_its_styles() -> None:
    buf = io.StringIO()
    console = SafeConsole(file=buf, force_terminal=True, color_system="standard", width=200)
    console.print(HOSTILE, markup=False, highlight=False)
    table = Table("text")
    table.add_row(HOSTILE)
    console.print(table)
    console.print("[red]styled[/red]")
    out = buf.getvalue()
    assert "\x1b[2J" not in out and "\x1b]0" not in out and "\x07" not in out and "\x9b" not in out
    assert "before[2J]0;owned31mafter \ufffd" in out
    assert "\x1b[31mstyled" in out  # rich's own colour codes still work
    out.encode("utf-8")


def test_json_output_escapes_c1_and_surrogates_and_stays_valid() -> None:
    text = json_text({"text": HOSTILE})
    assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text
    text.encode("utf-8")
    assert json.loads(text)["text"].startswith("before\x1b[2J")  # the data itself, escaped, not lost
