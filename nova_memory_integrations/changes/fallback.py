"""A cue by meaning (pure): a clause with no cue word that names a held fact and *means* it ended.

The lexicon and the ending verbs (:mod:`.lexicon`, :mod:`.verbs`) find "sold", "quit", "split up"; people
also say "we handed the club over to Jo", "the nurse has taken me off the tablets", words no list holds.
This fallback reads only clauses that hold no cue, are told as done or as "now" (a plain present restates
a state: :func:`may_mean_an_ending`, the cheap test run before any fact is read), hold no continuation
word ("still", "again") and name exactly one of the actor's held states (by a word of the fact, else by a
pronoun whose antecedent in the message is that fact). The named words are masked ("we had to let *it*
go") so that the clause's *predicate* is read, two ways, each one embedding per candidate clause (the
store's MiniLM; a clause embedded once serves both): the learned clause reader (:mod:`.clause_reader`, a
small network trained on twelve independent writers' clauses, ``tests/data/clause_corpus/``) gives its
probabilities of ``state`` / ``ended`` / ``changed`` / ``corrected`` / ``other``, and the clause means an
ending when ``ended`` and ``changed`` together reach :data:`ENDED_PROBABILITY`; else two small sets of
prototypes in our own words, "it has ended / is gone / is someone else's now" against "it goes on / an
ordinary mention / a plan", decide: the best ending prototype must reach :data:`ENDED_COSINE` *and* lead
the best going-on one by :data:`ENDED_MARGIN`. Either suffices; each alone is calibrated to fire on no
must-not-fire sentence. The guards of :mod:`.guards` (questions, reported speech, dreams,
memories, denials, plans, pauses) run on it as on a cue. Precision first: a clause naming two states, a
relationship (ended only by a cue naming the person), someone else's news about their own things, all
leave every fact alone.

Why both: across writers the reader is right about 0.75 of the time over five labels (leave one writer out,
``benchmarks/train_clause_reader.py``; the change side at the threshold: precision 0.92, recall 0.65), and a
one-off past event about a held thing ("it finally passed its MOT") can still read as an ending, so its
threshold is high; the prototypes find a few endings it misses.

Calibrated on the tuning and test sets and on the must-not-fire set of
``tests/unit/test_changes_fallback.py`` (our own sentences: with the reader two of its 46 fire, a finding
recorded there), checked on the development belief sets (``benchmarks/beliefs.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from .cues import CueHit, find_corrections_cues, find_cues
from .guards import Actor, Known, check
from .lexicon import ANY, CONTINUING, PAST_FORMS, STOPWORDS, Cue
from .planner import Similarity
from .segments import Clause, Sentence, Word, normalize_text, segment, words
from .targets import FactInfo, name_evidence

__all__ = ["ENDED", "ENDED_COSINE", "ENDED_MARGIN", "ENDED_PROBABILITY", "GOING_ON", "MeantEnding", "ReadClauses",
           "ending_probability", "may_mean_an_ending", "meant_endings", "scores"]

ReadClauses = Callable[[list[str]], Sequence[dict[str, float]]]
"""Masked clauses -> per clause ``{label: probability}`` (:meth:`.clause_reader.ClauseReader.read` over the
store's embedder)."""

ENDED: tuple[str, ...] = (
    "it is over now",
    "it is gone and we do not have it any more",
    "I do not do it any more",
    "I stopped it for good",
    "we got rid of it",
    "it went to someone else, it is theirs now",
    "I handed it over to someone else",
    "I sold it",
    "it died and we said goodbye",
    "I am no longer part of it",
    "I left it for good",
    "it has come to an end",
    "it was taken off me for good",
    "I am finished with it",
    "I am off it now",
    "it has a new owner now",
    "I pulled out of it",
    "that was the very last time",
)
"""Ways of saying a state ended, with the thing masked as "it" (our own wording, no set's sentences)."""
GOING_ON: tuple[str, ...] = (
    "I still have it",
    "it is still going",
    "it survived",
    "still doing it",
    "it is going well",
    "I love it",
    "I am doing it again this week",
    "it is great",
    "what do you think about it",
    "I am thinking about getting rid of it",
    "it is broken and needs fixing",
    "I might sell it one day",
    "I use it every day",
    "it was fun yesterday",
    "I went there at the weekend",
    "it needs a new part",
    "we had a lovely time with it",
    "it is driving me mad",
    "I got it back",
    "I miss it when I am away",
    "it did something naughty today",
    "I took it to the vet",
    "it is away for a few days",
    "I forgot it today",
    "I am learning it",
    "I work there",
    "I went out for a ride on it",
)
"""Ways of mentioning a state that goes on (or only might change): the rivals the margin is measured against."""
ENDED_COSINE = 0.4
"""Lowest cosine of the masked clause and an ending prototype at which the clause may mean an ending."""
ENDED_MARGIN = 0.1
"""How far the best ending prototype must lead the best going-on one."""
ENDED_PROBABILITY = 0.9
"""Lowest probability of ``ended`` and ``changed`` together (the clause reader) at which a masked clause means
its state ended: the lowest that fires on no sentence of the must-not-fire set (whose highest reads 0.89)."""
MAX_CLAUSES = 4
"""At most this many candidate clauses of one message are embedded."""

_MEANING_CUE = Cue("meaning", r"(?!)", frozenset({ANY}))
"""What a meant ending is checked by the guards as (never matched as text: :data:`~.lexicon.CUES` lacks it)."""
_MASKED = "it"
_OBJECT_PRONOUNS = frozenset({"it", "her", "him", "them"})
_TO_USER = re.compile(r"(?<=\w )(?:me|us)\b|\b(?:my|our)\s+$", re.IGNORECASE)
"""The user as the object of someone's act before the mention ("she took *me* off", "sold *my* bike")."""
_NOW = frozenset({"now", "anymore"})


_FEELING_BEFORE = frozenset("just so very really too bit feel feeling felt get getting am i'm are we're".split())
"""Before an "-ed" word, these make it a feeling or a state ("just *tired*", "I'm *bored*"), not a deed."""


def _tells_a_change(span: Sequence[Word]) -> bool:
    """Whether a clause is told as done or as a new present (see :data:`~.lexicon.PAST_FORMS`)."""
    return any(w.low in PAST_FORMS or w.low in _NOW or (
        len(w.low) > 4 and w.low.endswith("ed") and not (i and span[i - 1].low in _FEELING_BEFORE))
        for i, w in enumerate(span))


def _readable(sentence: Sentence, span: Sequence[Word]) -> bool:
    """Whether a clause may be read at all: a statement, told as done or as now, with no continuation word."""
    return not sentence.question and _tells_a_change(span) and not any(w.low in CONTINUING for w in span)


def may_mean_an_ending(text: str) -> bool:
    """The cheap test run on a turn with no cue before any fact is read: some clause :func:`_readable`."""
    norm = normalize_text(text)
    every = words(norm)
    return any(_readable(s, [w for w in every if c.start <= w.start < c.end])
               for s in segment(norm) for c in s.clauses)


@dataclass(frozen=True)
class MeantEnding:
    """A held fact a clause means has ended, and the evidence: the masked clause, its two best prototype
    cosines and the clause reader's probabilities (empty without a reader)."""

    info: FactInfo
    clause: str
    ended: float
    going_on: float
    read: dict[str, float] = field(default_factory=dict)

    @property
    def why(self) -> str:
        """The decision's reason."""
        told = f", read as ended or changed {ending_probability(self.read):.2f}" if self.read else ""
        return f"meaning: {self.clause!r} is like an ending {self.ended:.2f} vs going on {self.going_on:.2f}{told}"


@dataclass(frozen=True)
class _Candidate:
    sentence: int
    clause: int
    info: FactInfo
    masked: str


def _named(infos: Sequence[FactInfo], span: Sequence[Word]) -> list[tuple[FactInfo, list[Word]]]:
    """The facts ``span`` names by a word of their own (evidence 0.8 or more), with the words naming each."""
    out = []
    for info in infos:
        hits = [w for w in span if w.low not in STOPWORDS and name_evidence(info, [w]) >= 0.8]
        if hits or (len(span) > 1 and name_evidence(info, span) >= 1.0 and " " in info.phrase):
            out.append((info, hits or [w for w in span if w.low in info.phrase.split()]))
    return out


def _mask(text: str, clause: Clause, hidden: Sequence[Word]) -> str:
    """The clause with the words that name the fact (and a determiner or possessive before them) as "it"."""
    out, pos = [], clause.start
    for w in sorted(hidden, key=lambda w: w.start):
        if w.start < pos:
            continue
        head = text[pos:w.start]
        head = re.sub(r"\b(?:the|my|our|his|her|their|a|an)\s+$", "", head, flags=re.IGNORECASE)
        out.append(head)
        if not out[-1].endswith(f"{_MASKED} ") and not (out and out[-1].rstrip().endswith(_MASKED)):
            out.append(_MASKED)
        pos = w.end
    out.append(text[pos:clause.end])
    masked = re.sub(rf"\b{_MASKED}(?:\s+{_MASKED})+\b", _MASKED, "".join(out))
    return re.sub(r"\s+", " ", masked).strip(" ,;-")


def _in_scope(info: FactInfo, actor: Actor, done_to_user: bool) -> bool:
    """Whether the clause's actor can end the fact: the user's own states for the user (or no subject, or
    someone unnamed acting on the user's thing, or the thing itself as subject: "the Corolla is gone"), a
    third party's own states (or their thing's) for that person; anyone's act done to the user ("she took
    *me* off the tablets", "Dad sold *my* bike") for the user's states; else a pronoun subject never."""
    if info.category == "relationship":
        return False  # ended by naming the person with a cue, never by likeness
    if done_to_user:
        return info.fact.subject == "user"
    if actor.kind == "thing" and actor.owner:
        return info.fact.subject.lower() == actor.owner.lower()
    if actor.kind in ("user", "implicit", "indefinite", "thing"):
        return info.fact.subject == "user"
    if actor.kind == "third":
        return info.fact.subject.lower() == actor.name.lower()
    return False


def _candidates(text: str, sentences: list[Sentence], infos: Sequence[FactInfo], cued: set[tuple[int, int]],
                skip: set[int]) -> list[tuple[_Candidate, CueHit]]:
    """The clauses the fallback may read (see the module docstring), each with the one state it names and a
    stand-in cue at the naming words (for the guards and the actor)."""
    every = words(text)
    spans = {(si, ci): [w for w in every if c.start <= w.start < c.end]
             for si, sentence in enumerate(sentences) for ci, c in enumerate(sentence.clauses)}
    readable = [k for k, span in spans.items() if k not in cued and k[0] not in skip
                and _readable(sentences[k[0]], span)]
    out: list[tuple[_Candidate, CueHit]] = []
    last_named: list[FactInfo] = []
    for si, sentence in enumerate(sentences):
        for ci, clause in enumerate(sentence.clauses):
            if not readable or (si, ci) > readable[-1]:
                return out  # no clause left to read (names are looked for up to the last one, for pronouns)
            span = spans[(si, ci)]
            named = _named(infos, span)
            pronoun = None
            if not named and len(last_named) == 1:  # "we let *her* go" after "Pepper"
                pronoun = next((w for w in span[1:] if w.low in _OBJECT_PRONOUNS), None)
                if pronoun is not None:
                    named = [(last_named[0], [pronoun])]
            if named:
                last_named = [i for i, _ in named] if pronoun is None else last_named
            if (si, ci) not in readable or len({i.state for i, _ in named}) != 1:
                continue
            info, hidden = named[0]
            first = min(w.start for w in hidden)
            hit = CueHit(_MEANING_CUE, first, max(w.end for w in hidden), si, ci)
            out.append((_Candidate(si, ci, info, _mask(text, clause, hidden)), hit))
    return out


def ending_probability(read: dict[str, float]) -> float:
    """How likely a read clause ends its state: ``ended`` and ``changed`` (a change ends the old value too)."""
    return read.get("ended", 0.0) + read.get("changed", 0.0)


def meant_endings(text: str, *, infos: Sequence[FactInfo], known: Known, similarity: Similarity,
                  read: ReadClauses | None = None, ended: Collection[str] = (),
                  handled: Sequence[str] = ()) -> list[MeantEnding]:
    """The held facts (``infos``: the user's facts current at the message's time, not its own) that a clause
    of ``text`` with no cue means ended (see the module docstring). ``read``: the clause reader over the
    store's embedder (called once, with every candidate clause), ``None``: the prototypes alone decide;
    ``ended``: fact ids the cues already end; ``handled``: sentences where the extractor already ended or
    replaced a fact (not read again)."""
    norm = normalize_text(text)
    sentences = segment(norm)
    if not sentences or not infos:
        return []
    cued = {(h.sentence, h.clause) for h in find_cues(norm, sentences)}
    skip = {h.sentence for h in find_corrections_cues(norm, sentences)}
    marks = [normalize_text(h).strip(" .!?") for h in handled if h]
    skip |= {i for i, s in enumerate(sentences) if any(s.text.strip(" .!?") in m or m in s.text for m in marks)}
    done = set(ended)
    found: list[_Candidate] = []
    for cand, hit in _candidates(norm, sentences, [i for i in infos if i.fact.id not in done], cued, skip):
        sentence = sentences[cand.sentence]
        verdict = check(norm, sentence, cand.clause, hit, known)
        clause = sentence.clauses[cand.clause]
        done_to_user = _TO_USER.search(norm, clause.start, hit.start) is not None
        if verdict.guard is None and _in_scope(cand.info, verdict.actor, done_to_user):
            found.append(cand)
    found = found[:MAX_CLAUSES]
    if not found:
        return []
    readings = list(read([c.masked for c in found])) if read is not None else [{} for _ in found]
    out: list[MeantEnding] = []
    for cand, reading in zip(found, readings, strict=True):
        end, going = scores(cand.masked, similarity)
        by_reader = ending_probability(reading) >= ENDED_PROBABILITY
        if (by_reader or (end >= ENDED_COSINE and end - going >= ENDED_MARGIN)) and cand.info.fact.id not in done:
            out.append(MeantEnding(cand.info, cand.masked, end, going, dict(reading)))
            done.add(cand.info.fact.id)
    return out


def scores(masked: str, similarity: Similarity) -> tuple[float, float]:
    """The best ending and the best going-on cosine of a masked clause."""
    cosines = similarity(masked, [*ENDED, *GOING_ON])
    return max(cosines[:len(ENDED)]), max(cosines[len(ENDED):])
