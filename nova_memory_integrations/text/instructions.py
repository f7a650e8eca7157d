"""Standing instructions about the assistant's replies: "use bullet points", "shorter please".

A user who tells the assistant how to reply in session after session is teaching it a rule
(:mod:`..consolidation.learning` turns repeats into procedural rules). This module only reads one
turn: which of :data:`INSTRUCTIONS` it gives, in the user's own words. It reads an instruction
where one is given to the listener about its replies: an imperative opening a sentence ("Keep it
short", "Please use bullet points"), a fragment ("Shorter, please.", "No emojis!"), or a stated
preference about replies ("I prefer short answers"). It does not read a question ("Should I use
bullet points?"), someone else's wish ("My boss wants me to keep it short"), a request about one
piece of content ("Use bullet points for the Q3 slide"), nor a negated one. Pure: English only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .sentences import sentences_of

__all__ = ["INSTRUCTIONS", "Instruction", "instructions_in"]


@dataclass(frozen=True)
class Instruction:
    """One kind of standing instruction: its ``key``, the rule it becomes (``condition`` ->
    ``action``), and the phrasings that give it."""

    key: str
    condition: str
    action: str
    pattern: re.Pattern[str]


_LEAD = (r"^\s*(?:(?:please|pls|and|so|also|again|just|ok(?:ay)?|hey|oh|from\s+now\s+on|in\s+(?:the\s+)?future|"
         r"going\s+forward|next\s+time|always|can\s+you|could\s+you|would\s+you|will\s+you|i\s+asked\s+you\s+to|"
         r"remember\s+to|try\s+to)[,]?\s+)*")
"""What may open an instruction before its verb ("Please, from now on, ...", "Could you ...")."""
_END = (r"(?:\s*(?:,\s*)?(?:please|pls|thanks|thank\s+you|from\s+now\s+on|next\s+time|this\s+time|again|ok(?:ay)?))*"
        r"(?:\s*[,;\u2013\u2014-]?\s*(?:it'?s|that'?s|they'?re|because|since|as|so)\s[^.!?]*)?\s*[.!]*\s*$")
"""What may close it: polite words, then a reason ("..., it's easier to skim"); nothing else (the
whole sentence is the instruction)."""
_POLITE_ASK = re.compile(r"^\s*(?:(?:please|so|ok(?:ay)?)[,]?\s+)*(?:can|could|would|will)\s+you\s+(?:please\s+)?"
                         r"(?!tell|explain|remember|recall|help)", re.IGNORECASE)
"""A question that is a polite imperative ("Could you keep it short?"), not one about something."""
_REPLIES = r"(?:it|that|this|them|things|(?:your\s+)?(?:answers?|repl(?:y|ies)|responses?|messages?))"
_PREFER = r"^\s*i(?:'d|\s+would)?\s+(?:really\s+)?(?:prefer|like|want|need)\s+"


def _either(*parts: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in parts), re.IGNORECASE)


_BULLETS = r"(?:bullet(?:ed)?\s+points?|bullets|(?:a\s+)?bullet(?:ed)?\s+lists?|bullet\s+form)"
_SHORT = r"(?:short(?:er)?|brief(?:er)?|concise|succinct|to\s+the\s+point)"
_EMOJI = r"(?:emojis?|emoticons?|smileys?)"
_METRIC = r"(?:(?:the\s+)?metric(?:\s+(?:units?|system))?|kilomet(?:er|re)s|celsius|kilograms|kg|km)"

INSTRUCTIONS: tuple[Instruction, ...] = (
    Instruction("bullets", "replying to the user", "Format replies as bullet points.", _either(
        rf"{_LEAD}(?:use|give\s+me|put\s+{_REPLIES}\s+in(?:to)?|format\s+{_REPLIES}\s+(?:as|in(?:to)?)|answer\s+in|"
        rf"reply\s+in|respond\s+in|write\s+{_REPLIES}\s+in|list\s+{_REPLIES}\s+as)\s+{_BULLETS}{_END}",
        rf"{_LEAD}{_BULLETS}{_END}",
        rf"{_PREFER}(?:{_BULLETS}|(?:answers|replies|responses)\s+(?:in|as)\s+{_BULLETS}){_END}")),
    Instruction("short", "replying to the user", "Keep replies short.", _either(
        rf"{_LEAD}(?:keep|make)\s+{_REPLIES}\s+(?:(?:a\s+(?:lot|bit)\s+)?(?:much|way|more|a\s+bit|a\s+little)\s+)?{_SHORT}{_END}",
        rf"{_LEAD}be\s+(?:more\s+)?(?:brief|concise|succinct){_END}",
        rf"{_LEAD}(?:(?:much|way|a\s+bit)\s+)?shorter(?:\s+{_REPLIES})?{_END}",
        rf"{_LEAD}(?:that\s+was\s+|that's\s+|it's\s+)?(?:way\s+|much\s+)?too\s+long{_END}",
        rf"{_LEAD}(?:less|fewer)\s+(?:text|words|rambling|detail){_END}",
        rf"{_PREFER}{_SHORT}\s+(?:answers|replies|responses|messages){_END}")),
    Instruction("no_emoji", "replying to the user", "Do not use emojis in replies.", _either(
        rf"{_LEAD}(?:no|stop\s+(?:using|with)\s+(?:the\s+)?|(?:don'?t|do\s+not)\s+use\s+(?:any\s+)?|lose\s+the|drop\s+the|"
        rf"without(?:\s+any)?|skip\s+the|enough\s+with\s+the)\s*{_EMOJI}(?:\s+in\s+{_REPLIES})?{_END}",
        rf"{_PREFER}(?:replies|answers|responses)\s+without\s+{_EMOJI}{_END}")),
    Instruction("metric", "giving measurements", "Use metric units.", _either(
        rf"{_LEAD}(?:use|give\s+me|switch\s+to|stick\s+to|answer\s+in|put\s+{_REPLIES}\s+in|in)\s+{_METRIC}{_END}",
        rf"{_PREFER}{_METRIC}(?:\s+units?)?{_END}")),
)
"""Every instruction the store learns from, by key."""


def instructions_in(text: str) -> list[str]:
    """The keys of the :data:`INSTRUCTIONS` that ``text`` gives (each once, in table order): a
    sentence that is wholly one of their phrasings; none in a question but a polite imperative
    ("Could you keep it short?")."""
    found: set[str] = set()
    for sentence in sentences_of(text):
        if sentence.rstrip().endswith("?"):
            if not _POLITE_ASK.match(sentence):
                continue  # "Should I use bullet points?" asks; "Can you use bullet points?" tells
            sentence = sentence.rstrip().rstrip("?")
        found.update(i.key for i in INSTRUCTIONS if i.pattern.search(sentence))
    return [i.key for i in INSTRUCTIONS if i.key in found]
