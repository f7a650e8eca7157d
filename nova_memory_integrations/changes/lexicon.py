"""The data of change detection: cues, the categories of state they end, and the words guards read.

Everything here is a table with named fields; :mod:`.cues`, :mod:`.guards`, :mod:`.targets` and
:mod:`.corrections` compile it once at import. A cue names *that* a state ended or changed, never *which*
one: the target is resolved against the user's current facts (:mod:`.targets`). Patterns are regular
expressions matched case-insensitively on text whose curly quotes were straightened.

Categories of state: ``possession``, ``job``, ``relationship``, ``membership``, ``habit``, ``pet``,
``home``, ``study``; ``any`` for a cue that can end anything (``no longer``, ``is history``). A fact's
category comes from its predicate (:data:`PREDICATE_CATEGORIES`), else from the words of its object
(:data:`OBJECT_CATEGORY_WORDS`), else ``any``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from ..memory.entailments import CAR_MAKES
from ..text.lexicon import PET_RE

__all__ = [
    "ANCHORS",
    "ANY",
    "CATEGORIES",
    "CORRECTION_CUES",
    "CUES",
    "GENERIC_WORDS",
    "IDENTITY",
    "INDEFINITE_ACTORS",
    "KIND_WORDS",
    "NEGATORS",
    "OBJECT_CATEGORY_WORDS",
    "PREDICATE_CATEGORIES",
    "PREDICATE_SUFFIX_CATEGORIES",
    "RELATIONS",
    "SAME_NOUNS",
    "ROLE_PREDICATES",
    "STOPWORDS",
    "Cue",
    "CorrectionCue",
    "Relation",
    "negates",
]

ANY = "any"
CATEGORIES = frozenset({"possession", "job", "relationship", "membership", "habit", "pet", "home", "study", ANY})

_POS, _JOB, _REL, _MEM, _HAB, _PET, _HOME, _STUDY = (
    "possession", "job", "relationship", "membership", "habit", "pet", "home", "study")


def _cats(*names: str) -> frozenset[str]:
    return frozenset(names)


@dataclass(frozen=True)
class Cue:
    """One way of saying that a state ended or changed.

    Attributes:
        name: short label, recorded in the decision's reason (``ended: cue 'sold'``).
        pattern: regular expression of the cue's words (case-insensitive).
        categories: the kinds of state it can end.
        strength: how surely the words mean an ending, in ``(0, 1]``; a weak cue ("left", "lost")
            needs its target named to reach the decision threshold.
        kind: ``end`` (the state is over), ``change`` (replaced by another, e.g. "switched"),
            ``announce`` (will end later: "handed in my notice"; never ends a state now).
        negated: the cue carries its own negation ("no longer", "didn't renew"): the negation
            guard does not read it as a denial.
        noun: a noun form ("the breakup", "my resignation", "retirement"): no verb, no actor;
            the state ended for the user unless a third party owns the noun ("Katie's divorce").
    """

    name: str
    pattern: str
    categories: frozenset[str]
    strength: float = 1.0
    kind: Literal["end", "change", "announce"] = "end"
    negated: bool = False
    noun: bool = False
    ends_actor: bool = False
    """Said of a person ("Nan passed away"), it ends every state of theirs, named or not."""
    needs_name: bool = False
    """Only a fact the clause names can be its target ("my ex" is someone else than the current partner)."""
    object_after: bool = False
    """The cue ends with the preposition that introduces *what* ended ("said goodbye to *the van*", "done with
    *the gym*", "found a home for *the cats*"): the words after it are never the new state."""
    ends_roles: bool = False
    """It ends what someone works *as* too (:data:`ROLE_PREDICATES`): "retired"; leaving one employer, or
    being out of work, ends the employment only (the pharmacist between jobs is still a pharmacist)."""


_ANYTHING = _cats(_POS, _JOB, _REL, _MEM, _HAB, _PET, _HOME, _STUDY, ANY)
_BE_WORDS = (r"\bis", "'s", r"\bare", "'re", r"\bwas", r"\bwere", r"\bhas", r"\bhave", "'ve", r"\bnow", r"\ball",
             r"\blong", r"\bso", r"\bofficially", r"\btruly")
_BE = "(?:" + "|".join(f"(?<={w} )" for w in _BE_WORDS) + ")"
"""Right after a form of "be" or "have" (or an adverb after one): "the car's *gone*", "Bean There is *history*"."""
_OBJ = (r"(?:it|him|her|them|(?:the|my|our|his|her|their) [\w'&+-]+(?: [\w'&+-]+){0,3}"
        r"|(?-i:[A-Z])[\w'&+-]*(?: (?-i:[A-Z])[\w'&+-]*){0,3})")
"""A short object between a verb and its particle ("gave *the Yamaha* away", "let *it* go"); a name is capitalised
(the cues are read case-insensitively: "given *up my Sundays* to help" is no object)."""
_PET_OBJ = r"(?:him|her|them|(?-i:[A-Z])[\w'-]+|(?:the|my|our|his|her|their) (?:old |poor )?(?:" + PET_RE + r"))"
"""An animal put down: a pronoun, a name, or "the / our <pet word>" ("put *Biscuit* down"; never "put my name down")."""

_KIN = "nan|nana|gran|granny|grandma|grandad|grandpa|mum|mom|dad|mother|father|grandmother|grandfather"
"""Relatives one says one has lost ("we lost *our nan*"): a death, never a thing mislaid."""

# Ordered: at one position the first matching cue wins, so longer phrasings come before their parts.
CUES: tuple[Cue, ...] = (
    # -- announcements: the end is in the future
    Cue("notice", r"\b(?:handed|handing|hand|gave|giving|put) in (?:my|his|her|their) (?:notice|resignation)\b"
        r"|\bwork(?:ing)? (?:my|his|her|their) notice\b", _cats(_JOB), kind="announce"),
    # -- generic endings
    Cue("no longer", r"\bno longer\b|\bnot any longer\b", _ANYTHING, negated=True),
    Cue("not any more", r"\b(?:not|never|\w+n't)\b[^.;!?]{0,60}?\bany ?more\b|\bnot (?:mine|ours|his|hers|theirs)\b",
        _ANYTHING, negated=True),
    Cue("no more", r"\bno more\b", _cats(_HAB, _MEM, _POS, _JOB, ANY), strength=0.8, negated=True),
    Cue("used to", r"\bused to\b", _ANYTHING, strength=0.7),
    Cue("ex-", r"\bex-?(?:wife|husband|partner|boyfriend|girlfriend|fianc[eé]e?|employer|colleague|boss)\b"
        r"|\bmy ex\b", _cats(_REL, _JOB), noun=True, needs_name=True),
    Cue("former", r"\b(?:former|formerly|erstwhile)\b", _ANYTHING, strength=0.7, needs_name=True),
    Cue("is history", _BE + r"(?:history|a thing of the past|behind (?:me|us))\b",
        _ANYTHING),
    Cue("is over", _BE + r"(?:over|finished|done|through)(?! with)\b(?!\s+(?:the|a|an|my|our|\d))", _ANYTHING,
        strength=0.8),
    Cue("done with", r"\b(?:done|finished|through) with\b", _ANYTHING, strength=0.8, object_after=True),
    Cue("dead", _BE + r"dead(?: in the water)?\b", _cats(_HAB, _MEM, ANY), strength=0.7),
    Cue("gone", _BE + r"gone(?=\s*(?:[.,;!—-]|$|now\b|for good\b))|\bgone for good\b",
        _cats(_POS, _PET, _REL, _HAB, _JOB, ANY), strength=0.8),
    Cue("bit the dust", r"\b(?:bit|bites|biting|bitten) the dust\b|\bgave up the ghost\b|\bkicked the bucket\b",
        _cats(_POS, _PET, _HAB, _MEM, _JOB), strength=0.9),
    Cue("moved on", r"\bmoved on from\b", _ANYTHING, strength=0.8),
    Cue("said goodbye", r"\b(?:said|saying|bid|bade) (?:goodbye|farewell|good-bye) to\b", _cats(_POS, _PET, _JOB,
        _HOME, _MEM), strength=0.9, object_after=True),
    # -- possessions and pets
    Cue("sold up", r"\bsold up\b", _cats(_HOME, _JOB)),
    Cue("sold", r"\b(?:sold|flogged)\b", _cats(_POS, _HOME, _PET, _JOB)),
    Cue("gave away", r"\b(?:gave|given|giving) (?:away|" + _OBJ + r" (?:away|to|up for adoption))\b"
        r"|\bdonated\b|\bpassed (?:" + _OBJ + r" )?on to\b", _cats(_POS, _PET)),
    Cue("got rid of", r"\b(?:got|gotten|getting) rid of\b|\b(?:binned|chucked|ditched|scrapped)\b"
        r"|\bthrew (?:" + _OBJ + r" )?out\b", _cats(_POS, _MEM, _HAB)),
    Cue("scrapyard", r"\b(?:scrap ?yard|scrap heap|scrappers|breakers? yard)\b", _cats(_POS)),
    Cue("traded in", r"\b(?:traded|trading|part[- ]exchanged) (?:in|" + _OBJ + r" in)\b|\b(?:went|go(?:es|ne)?|going) "
        r"(?:in )?(?:as (?:a )?)?part[- ]?ex(?:change)?\b|\bpart[- ]?exed\b", _cats(_POS), kind="change"),
    Cue("written off", r"\b(?:(?:written|wrote|writing) (?:" + _OBJ + r" )?off|write-off|totall?ed|total loss|"
        r"beyond repair)\b", _cats(_POS)),
    Cue("stolen", r"\b(?:stolen|nicked|pinched|swiped|nabbed)\b", _cats(_POS)),
    Cue("handed back", r"\bhanded (?:" + _OBJ + r" )?back\b|\bgave (?:" + _OBJ + r" )?back\b", _cats(_POS, _HOME)),
    Cue("retired object", r"\bretired (?:the|my|our) (?:old )?\w+", _cats(_POS), strength=0.9),
    Cue("died", r"\b(?:died|passed away|passed on|put (?:" + _PET_OBJ + r" )?(?:down(?! (?:for|as)\b)|to sleep)|"
        r"crossed the rainbow bridge|was killed|got killed|lost (?:our|my|his|her) (?:battle|fight))\b",
        _cats(_PET, _REL, ANY), ends_actor=True),
    Cue("rehomed", r"\bre-?hom(?:ed|ing|e)\b|\bfound (?:a |an )?(?:\w+ ){0,2}(?:home|homes) for\b"
        r"|\bran away\b|\bwent missing\b", _cats(_PET), object_after=True),
    Cue("lost someone", r"\blost\b(?=\s+(?:(?:our|my)\s+)?(?:(?-i:Nan|Nana|Gran|Granny|Grandma|Grandad|Grandpa|Mum|"
        r"Mom|Dad)|(?<=our )(?:" + _KIN + r")|(?<=my )(?:" + _KIN + r"|husband|wife))\b(?!'s))", _cats(_REL, ANY),
        ends_actor=True),  # "we lost Nan on Sunday": died
    Cue("lost", r"\blost\b(?! (?:weight|track|touch|interest in (?:it|the)|my (?:mind|temper|voice|keys|way)))",
        _cats(_PET, _JOB, _POS, _REL), strength=0.6),
    # -- jobs
    Cue("resigned", r"\b(?:resigned|resignation|quit my job)\b|\bwalked out (?:of|on) (?:my|the|his|her|their) "
        r"(?:job|work|shift|employer)\b", _cats(_JOB, _MEM)),
    Cue("redundancy", r"\b(?:my|our|his|her|their|since|after|the) redundanc(?:y|ies)\b", _cats(_JOB), noun=True),
    Cue("laid off", r"\b(?:laid off|lay-?offs?|made redundant|redundanc(?:y|ies)|let go|let (?:me|us) go|"
        r"fired|sacked|got the sack|"
        r"got the boot|lost (?:my|his|her|their) job|downsized)\b", _cats(_JOB)),
    Cue("layoffs", r"\b(?:the|January|February|March|April|May|June|July|August|September|October|November|"
        r"December|recent|latest|big) lay-?offs\b", _cats(_JOB), noun=True),
    Cue("retirement", r"\b(?:my|his|her|their|since|after|into|first \w+ of|in) retirement\b|^retirement\b"
        r"|\bretirement (?:is|has|so far|suits)\b", _cats(_JOB, _MEM), noun=True, ends_roles=True),
    Cue("retired", r"(?<!\ba )(?<!\bthe )\b(?:retired|retirement)\b(?! (?:the|my|our) )", _cats(_JOB, _MEM),
        ends_roles=True),
    Cue("last day", r"\b(?:last|final) (?:day|shift)(?: (?:at|with)\b|(?! of\b))|\b(?:last|final) (?:monday|tuesday|"
        r"wednesday|thursday|friday|saturday|sunday|weekend|morning|evening|night) (?:at|with)\b",
        _cats(_JOB, _STUDY, _MEM), noun=True, object_after=True),  # "with the choir": what ended, never a new state
    Cue("last round", r"\b(?:was|is|be) (?:my|our) (?:last|final) (?:round|service|session|class|rota)\b"
        r"|\bhad (?:my|our) (?:last|final) (?:session|appointment|lesson|class) with\b|\blast ever (?:game|match|"
        r"session|class) (?:for|with|at)\b", _cats(_JOB, _STUDY, _MEM), noun=True,
        object_after=True),  # what follows "with" / "for" ended; never "my last round was 94"
    Cue("last dose", r"\b(?:took|had|take) (?:my|the) (?:very )?(?:last|final) (?:[\w-]+ )?(?:tablet|pill|dose|"
        r"injection|cigarette|fag|drink)\b", _cats(_HAB), needs_name=False),
    Cue("contract ended", r"\bcontract (?:has |had )?(?:ended|finished|wrapped(?: up)?|ran out|is up|expired|"
        r"was(?:n't| not) renewed)\b|\bwrapped up\b", _cats(_JOB), strength=0.8),
    Cue("not renewed", r"\b(?:did(?:n't| not)|won't|will not|decided not to|never) renew(?:ed)?\b|\bnot renewing\b"
        r"|\blease (?:on [^.;,]{1,40} )?(?:has |had )?(?:ended|expired|ran out|is up)\b",
        _cats(_MEM, _JOB, _HOME, _POS), negated=True),
    Cue("quit", r"\b(?:quit|quitting|quits)\b", _cats(_JOB, _MEM, _HAB)),
    Cue("stepped away", r"\bstepp(?:ed|ing) (?:away|back|down) from\b|\bstepp(?:ed|ing) down\b", _cats(_JOB, _MEM)),
    Cue("wound down", r"\bwound (?:down|up)\b|\bshut (?:" + _OBJ + r" )?down\b|\bclosed (?:" + _OBJ + r" )?down\b"
        r"|\b(?:went|gone) (?:bust|under)\b|\bhas shut\b|\bshut for\b", _cats(_JOB, _MEM, _HAB, _POS), strength=0.8),
    Cue("jumped ship", r"\bjumped ship\b", _cats(_JOB), kind="change"),
    Cue("not working", r"\b(?:not|no longer) (?:working|employed)\b|\bout of work\b|\bunemployed\b"
        r"|\bbetween jobs\b", _cats(_JOB), strength=0.9, negated=True, noun=True),
    # -- relationships
    Cue("breakup", r"\b(?:break-?up|separation|split)\b(?= (?:was|is|has|hit|went|last)\b|\s*[.,;!]|$)"
        r"|\b(?:the|our|my|since|after) (?:break-?up|separation|split)\b", _cats(_REL), noun=True),
    Cue("broke up", r"\b(?:broke|broken|breaking) (?:up|it off|off (?:the|our|my) engagement)\b"
        r"|\bsplit(?: up)?\b|\bseparated\b|\bcalled it (?:quits|a day)\b|\bended (?:it|things)\b"
        r"|\bdumped\b|\bout of the picture\b|\bsingle again\b|\bwalked out on (?:me|us|the kids|the family)\b"
        r"|\bleft (?:me|us) for\b", _cats(_REL, _MEM)),
    Cue("divorce", r"\b(?:post-)?divorc(?:e|ed|ing)\b", _cats(_REL), noun=True),
    Cue("engagement off", r"\b(?:the |our |my )?(?:engagement|wedding|relationship)(?:'s| is| was| has been)"
        r" (?:off|called off|over)\b|\bcalled off (?:the|our|my) (?:engagement|wedding)\b", _cats(_REL), noun=True),
    Cue("are done", r"\b(?:and (?:I|me)|we)(?: are|'re| were) (?:done|finished|over|through)\b(?! with\b)"
        r"|\b(?:are|'re|were)(?:n't| not) together any ?more\b|\bno longer together\b",
        _cats(_REL)),
    # -- memberships and subscriptions
    Cue("cancelled", r"\bcancel(?:l?ed|l?ing)\b|\bunsubscribed\b|\blapsed\b|\blet (?:" + _OBJ + r" )?lapse\b",
        _cats(_MEM, _POS, _HAB)),
    # "only me left", "nothing left", "two left": what remains, not who went
    Cue("left", r"(?<!\bme )(?<!\bus )(?<!\bone )(?<!\bnothing )(?<!\bnone )(?<!\bany )(?<!\bmuch )(?<!\bfew )"
                r"(?<!\d )\b(?:left|leaving)\b(?! (?:over|behind|alone|it|me|a message|a review|a comment)\b)",
        _cats(_JOB, _MEM, _HOME, _REL, _STUDY), strength=0.6),
    Cue("dropped out", r"\bdropped out\b|\bkicked (?:out|off)\b|\bwithdr(?:ew|awn)(?: from\b|(?=\s*[.,;!]|\s*$))"
        r"|\b(?:formally|officially) withdr(?:ew|awn)\b", _cats(_STUDY, _MEM, _HAB),
        strength=0.8),
    Cue("dropped", r"\bdropped\b(?! (?:off|by|in|round|the kids|him|her|them|me)\b)", _cats(_STUDY, _MEM, _HAB),
        strength=0.8, needs_name=True),
    Cue("out of", r"\b(?:I'm|I am|I'm now|now) out of (?:the )?", _cats(_MEM, _JOB, _REL), strength=0.7),
    Cue("replacement", r"\bfind (?:a )?(?:new|replacement|another) (?:\w+)\b", _cats(_MEM, _JOB), strength=0.5),
    # -- habits
    Cue("gave up", r"(?:\b(?:gave|given|giving)|(?:(?<=\bhad to )|(?<=\bdecided to )|(?<=\bneeded to ))give) up\b"
        r"(?! on\b)|\bkicked the habit\b|\bpacked (?:it )?in\b|\bcut out\b"
        r"|\bhung up (?:my|his|her|the) (?:boots|gloves|whistle|apron|racket|spikes)\b"
        r"|\bcut (?:" + _OBJ + r" )?out\b|\bfell off the (?:\w+ )?wagon\b|\b(?:now|been|stayed|getting) sober\b",
        _cats(_HAB, _MEM, _POS, _HOME), strength=0.9),  # "given up the allotment", "gave up the flat" too
    Cue("closed doors", r"\b(?:closed|shut) (?:the|our|its|my) doors\b|\bshut up shop\b|\bceased trading\b"
        r"|\bclosed (?:down )?for good\b", _cats(_POS, _JOB, _MEM)),
    Cue("off it", r"\b(?:I'm|I am|im|now|been|finally)\s+(?:completely |fully |totally |finally |now )?off "
        r"(?:the |my )?(?=[a-z])", _cats(_HAB, _MEM), strength=0.8, needs_name=True),  # "completely off the sertraline"
    Cue("gave up on", r"\b(?:gave|given|giving) up on\b", _cats(_HAB, _MEM, _STUDY, _POS), strength=0.8,
        needs_name=True),  # "given up on French": what it names only (never "given up on finding a seat")
    Cue("tore up", r"\b(?:tore|torn|ripped|cut) up (?:my|our) (?:[\w-]+ ){0,2}(?:card|membership)\b", _cats(_MEM)),
    Cue("stopped", r"\bstopped\b(?! (?:by|at|in|off|over|for|to|raining|working on))", _cats(_HAB, _MEM, _STUDY),
        strength=0.6),
    Cue("abstinent", r"\b(?:(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|"
        r"a couple(?: of)?|several|many) )?(?:(?:whole|full|entire|straight|solid) )?(?:days?|weeks?|months?|years?|"
        r"fortnight)(?: now)? (?:without|clean|sober|\w+-free|off (?:the|it)\b)"
        r"|\b(?:smoke|alcohol|booze|drink|caffeine|sugar|meat)[- ]free (?:for|since)\b", _cats(_HAB, _MEM),
        strength=0.9),
    Cue("haven't since", r"\b(?:haven't|have not|hasn't|has not) (?:had|done|been|touched|opened|smoked|played|"
        r"gone|drunk|used|seen)\b[^.;!?]{0,60}\b(?:since|in (?:years|ages|months|a long time))\b", _cats(_HAB, _MEM),
        negated=True, strength=0.8),
    # -- homes
    Cue("moved out", r"\bmoved (?:out|away|house)\b|\bmoving out\b", _cats(_HOME)),
    Cue("the move", r"\b(?:the|our|my) (?:big )?(?:move|relocation)\b(?! (?:to|is|will))|\bafter (?:the|our|my) "
        r"move\b", _cats(_HOME), noun=True, kind="change"),
    Cue("moved", r"\b(?:moved|relocated)(?=\s*(?:[.!,;)—-]|$)|\s+(?:house|home|flat|abroad|back|here|there|over|across|"
        r"away|to|in|into|for|down|up|cities|countries|last|this)\b)|\brelocating\b", _cats(_HOME), kind="change",
        strength=0.9),
    # -- a return ends a time away, only the one named ("back from paternity leave", "home from the Royal
    # Infirmary"); below the threshold for a job, club or home it names ("home from Tesco": where one was)
    Cue("back from", r"(?:" + _BE + r"|(?<='m )|(?<=\bam )|(?<=\bjust )|(?<=\bfinally )|(?<=\bcame )|(?<=\bgot ))"
        r"(?:back|home) from\b|\breturned from\b", _cats(ANY), strength=0.6, needs_name=True,
        object_after=True),
    # -- studies
    Cue("graduated", r"\bgraduated\b|\bfinished (?:at|uni|university|college|school|my degree)\b",
        _cats(_STUDY)),
    Cue("transferred", r"\btransferred\b", _cats(_STUDY, _JOB), kind="change", strength=0.7),
    # -- changes to something else
    Cue("switched", r"\b(?:switched|switching|swapped|changed) (?:from|over|to|out)\b|\bswapped\b"
        r"|\breplaced\b|\bupgraded from\b|\binstead of\b", _cats(_POS, _MEM, _JOB, _HAB, _HOME), kind="change",
        strength=0.7),
    # -- generic endings tried after the specific ones
    Cue("ended", r"\b(?:has |have |had )?(?:ended|came to an end|come to an end|finished)\b(?! (?:up|with)\b)",
        _cats(_JOB, _REL, _MEM, _HOME, _STUDY, ANY), strength=0.7),
)


ANCHORS = frozenset("""
longer more anymore used ex former formerly erstwhile history past behind over finished done through dead gone moved
goodbye farewell bade ended end came sold flogged gave given giving donated passed rid binned chucked ditched
scrapped threw scrapyard scrap scrappers breakers breaker traded trading exchanged written wrote write totalled totaled
total beyond stolen nicked pinched swiped nabbed handed retired died put crossed killed lost rehomed rehoming homed home
homes found ran went resigned resignation quit quits quitting walked laid lay layoff layoffs redundant redundancy
redundancies let fired sacked sack boot downsized retirement last contract wrapped renew renewed renewing lease
stepped stepping wound shut closed bust under jumped working employed work unemployed jobs notice broke broken breaking
break breakup split separated separation called dumped picture single divorce divorced divorcing cancel cancelled
canceled cancelling canceling unsubscribed lapsed lapse left leaving dropped kicked out find up packed cut stopped
fell sober since years ages moving stopped together final move relocation relocated relocating graduated
transferred switched switching swapped changed without clean off free dust ghost bucket part-ex partex exed
replaced upgraded instead mine ours hers theirs his wagon withdrew withdrawn
correction correct correcting fix clarify meant mean misspoke misremembered slip wrong muddled mixed messed bad
mistake said typed told mentioned should wait sorry oops typo autocorrect auto actually not
scratch ignore forget disregard winding wound kidding joking pulling having lying exaggerating confession turns
""".split())
"""Every cue and correction cue holds one of these words: a message without any is skipped in one set lookup."""


@dataclass(frozen=True)
class CorrectionCue:
    """Words that announce a correction of something said earlier (``strength`` as for :class:`Cue`)."""

    name: str
    pattern: str
    strength: float = 1.0


CORRECTION_CUES: tuple[CorrectionCue, ...] = (
    CorrectionCue("correction", r"\bcorrection\b|\bcorrect(?:ing)? (?:myself|that|what I said)\b|\bto correct\b"
                  r"|\bquick fix\b|\btiny fix\b|\bneed to fix\b|\bgot to fix\b|\bto clarify\b"),
    CorrectionCue("I meant", r"\bI meant\b|\bI mean,"),
    CorrectionCue("did I say", r"\bdid I (?:just )?(?:say|write|type|put|tell you)\b[^.!?]{0,50}\?"),  # own doubt
    CorrectionCue("misspoke", r"\bI misspoke\b|\bmisspoke\b|\bI misremembered\b|\bslip of the\b"),
    CorrectionCue("got it wrong", r"\b(?:got|had) (?:that|it|this) (?:wrong|muddled|mixed up|backwards)\b"
                  r"|\bI (?:messed|mixed) (?:that |it )?up\b|\bmy (?:bad|mistake)\b|\bI got (?:them|those) crossed\b"
                  r"|\bgot (?:them|it) muddled\b|\bI was wrong\b"),
    CorrectionCue("I said", r"\bI (?:said|wrote|typed|told you|put|mentioned)\b[^.;!?]{0,60}\b(?:but|earlier|before|"
                  r"last time|the other day|by mistake)\b|\bI should(?:'ve| have) said\b|\bshould have said\b"
                  r"|\b(?:earlier|before|last time|the other day),? I (?:said|told you|mentioned|wrote|typed)\b"
                  r"|\bI (?:said|told you|mentioned|wrote|typed)\b[^.;!?]{0,60}?\s*[,—-]\s*(?:it's|it is|I'm|"
                  r"I am|we're|he's|she's|they're)\b|\bshould've said\b"
                  r"|\b(?:noticed|realised|realized|seen|see) (?:that )?I (?:typed|wrote|said|put|called)\b"),
    CorrectionCue("wait no", r"\bwait,? no\b|\bno wait\b|\bsorry,? (?:it's|it is|I meant|I'm|he's|she's|we're|that)"
                  r"|\boops\b"),
    CorrectionCue("typo", r"\btypo\b|\bautocorrect\b|\bauto-correct\b"),
    CorrectionCue("take back", r"\bscratch that\b|\b(?:ignore|forget|disregard|scratch) (?:what I (?:said|wrote|"
                  r"told you|mentioned)|that|my last|the bit)\b|\bI take (?:that|it) back\b"),
    CorrectionCue("was not true", r"\bI was (?:only |just )?(?:winding you up|kidding|joking|pulling your leg|having "
                  r"you on|lying|exaggerating|making (?:that|it) up)\b"),
    CorrectionCue("actually", r"\bactually\b", strength=0.6),
    CorrectionCue("not X", r"\bnot (?:a |an |the )?[\w'&+-]+(?: [\w'&+-]+){0,2}\s*(?:[.,;!—-]|$)", strength=0.6),
)


@dataclass(frozen=True)
class Relation:
    """A relation word ("sister"): how a third party is named, and which pronoun refers to them."""

    word: str
    gender: Literal["f", "m", "x"]
    partner: bool = False
    """A partner of the user: a relationship ending's other party."""


def _rels(gender: Literal["f", "m", "x"], words: str, *, partner: bool = False) -> tuple[Relation, ...]:
    return tuple(Relation(w.replace("_", " "), gender, partner) for w in words.split())


RELATIONS: dict[str, Relation] = {r.word: r for r in (
    *_rels("f", "sister sis mum mom mother nan nana gran granny grandma grandmother aunt auntie niece daughter "
           "stepmum stepmom stepdaughter mother-in-law mil sister-in-law"),
    *_rels("m", "brother bro dad father grandad granddad grandpa grandfather uncle nephew son stepdad stepson "
           "father-in-law brother-in-law"),
    *_rels("x", "cousin friend best_friend mate best_mate buddy pal flatmate roommate housemate neighbour neighbor "
           "colleague coworker co-worker boss manager teammate kid child parent sibling landlord landlady "
           "classmate"),
    *_rels("f", "wife girlfriend gf fiancee fiancée", partner=True),
    *_rels("m", "husband boyfriend bf fiance fiancé", partner=True),
    *_rels("x", "partner spouse other_half", partner=True),
)}
"""Relation words, with the pronoun gender of who they name and whether they are a partner."""

ROLE_PREDICATES = frozenset({"job_title", "occupation", "profession", "works_as", "role", "position", "career"})
"""What someone works *as*: ended only when named ("I'm no longer a teacher") or by a cue that ends roles."""

PREDICATE_CATEGORIES: dict[str, str] = {
    **dict.fromkeys(("owns", "has", "drives", "rides", "possesses", "leases", "bought", "uses_device", "has_car",
                     "car", "bike", "phone", "has_vehicle", "keeps"), _POS),
    **dict.fromkeys(("works_at", "job_title", "job", "occupation", "employer", "works_as", "profession", "works_for",
                     "position", "role", "career", "employment", "runs_business", "runs", "works", "employed_by",
                     "contracts_for", "freelances_for", "manages", "teaches_at", "drives_for"), _JOB),
    **dict.fromkeys(("dating", "married_to", "engaged_to", "partner", "spouse", "in_relationship_with", "partner_of",
                     "spouse_of", "fiance_of", "fiancee_of", "sees", "relationship_status", "boyfriend", "girlfriend",
                     "husband", "wife",
                     "fiance", "fiancee", "relationship"), _REL),
    **dict.fromkeys(("has_pet", "pet", "owns_pet", "dog", "cat"), _PET),
    **dict.fromkeys(("lives_in", "lives_at", "home", "address", "resides_in", "rents", "housing", "lives",
                     "lives_on", "home_city"), _HOME),
    **dict.fromkeys(("member_of", "belongs_to", "plays_for", "plays_in", "sings_in", "attends", "goes_to",
                     "subscribes_to", "subscription", "trains_at", "swims_at", "team", "club", "band", "in_band",
                     "uses_service", "customer_of", "member", "volunteers_at", "gym"), _MEM),
    **dict.fromkeys(("habit", "smokes", "drinks", "does", "practices", "plays", "routine", "exercise", "hobby",
                     "diet", "eats", "habitually", "activity", "meditates", "swims", "cycles", "commutes_by",
                     "takes_medication"), _HAB),
    **dict.fromkeys(("studies_at", "studies", "student_at", "attends_school", "course", "degree", "enrolled_in",
                     "school", "university", "college"), _STUDY),
}
"""Predicate -> category of the state it holds (unknown predicates: :data:`PREDICATE_SUFFIX_CATEGORIES`)."""

IDENTITY = "identity"
"""Who someone is to the user ("user sister_name Grace", "grace sibling_of user"): no cue ends it."""

PREDICATE_SUFFIX_CATEGORIES: tuple[tuple[str, str], ...] = (
    *((f"{r.word.replace(' ', '_')}_name", _REL) for r in RELATIONS.values() if r.partner),
    ("_of", IDENTITY), ("_name", IDENTITY),
)
"""``(suffix, category)`` tried in order for predicates not in :data:`PREDICATE_CATEGORIES`."""

OBJECT_CATEGORY_WORDS: dict[str, str] = {
    **dict.fromkeys("dog cat puppy kitten rabbit hamster budgie budgies parrot tortoise guinea horse pony ferret "
                    "lizard snake gecko greyhound lab labrador spaniel collie terrier retriever poodle".split(), _PET),
    **dict.fromkeys("car van campervan bike bicycle motorbike motorcycle boat sailboat scooter phone laptop piano "
                    "truck suv caravan moped kayak canoe macbook iphone".split(), _POS),
    **dict.fromkeys("club team gym choir band society league membership subscription orchestra".split(), _MEM),
    **dict.fromkeys("house flat apartment studio home terrace semi bungalow cottage street road avenue".split(), _HOME),
    **dict.fromkeys("university uni college school academy degree course phd masters nursery preschool pre-school "
                    "playgroup student".split(), _STUDY),
    **dict.fromkeys("smoking vaping drinking coffee espresso running swimming meditation yoga fasting".split(), _HAB),
    **dict.fromkeys("job shift shifts postie postman postwoman courier nurse teacher cleaner carer waiter waitress "
                    "barista chef receptionist".split(), _JOB),
    # an open state "girlfriend Leah" (a relation told in passing) is a relationship: a breakup ends it, a
    # job move of the same person does not
    **dict.fromkeys("wife husband girlfriend boyfriend partner fiance fiancee fiancé fiancée spouse".split(), _REL),
}
"""Object words that give a fact with an unknown predicate its category."""

_ALCOHOL = frozenset("drinking alcohol booze beer wine lager cider whisky vodka gin".split())
KIND_WORDS: dict[str, frozenset[str]] = {
    "car": CAR_MAKES | frozenset("hatchback saloon sedan estate suv hybrid".split()),
    "bike": frozenset("bicycle ebike e-bike roadbike".split()),
    "motorbike": frozenset("motorcycle scooter moped".split()),
    "boat": frozenset("sailboat yacht dinghy narrowboat widebeam canoe kayak".split()),
    "van": frozenset("campervan motorhome".split()),
    "phone": frozenset("iphone smartphone".split()),
    "laptop": frozenset("macbook notebook chromebook".split()),
    "coffee": frozenset("espresso latte cappuccino americano macchiato mocha cortado".split()),
    "cigarette": frozenset("smoking smoke smoker cig fag rollie".split()),
    "alcohol": _ALCOHOL,
    "booze": _ALCOHOL,
    "drink": _ALCOHOL,
}
"""A kind noun ("the car") and generic words (or car makes) that make an object of that kind; a fact whose
object holds the kind noun itself (or ends with it: "campervan") is of that kind too. Used to resolve a
definite description ("the car's been sold"); models and names are never listed here."""

SAME_NOUNS: tuple[frozenset[str], ...] = (
    frozenset("kid kids child children little_one son daughter".split()),
    frozenset("grandkid grandkids grandchild grandchildren".split()),
    frozenset("sibling siblings brother sister".split()),
    frozenset("pet pets animal animals".split()),
)
"""Nouns that count the same thing ("two kids" corrects "has_children 3"); stems as :func:`~.targets._stem`."""

GENERIC_WORDS = frozenset(
    "the a an my our his her their its of in at on for with and or to from by named called old new little big "
    "small used second hand secondhand own local near nearby about around just like single whole".split()
)
"""Object words that name nothing by themselves (never a name match)."""

AFFIRM = frozenset("still survives survived keeping kept staying stays remain remains".split())
"""Words that say a state goes on ("*still* at Aldi though", "Netflix *survives*"): what they name does not end."""
CONTINUING = AFFIRM | frozenset({"again"})
PAST_FORMS = frozenset(
    "went gone gave given took taken left sold let put sent spent lost broke broken fell fallen held sat saw seen "
    "stood told threw thrown wore worn wrote written came become became got gotten had made drove driven rode "
    "ridden ran paid kept brought bought found won did done withdrew withdrawn quit shut cut split began begun "
    "chose chosen forgot forgotten hung dealt meant fled swapped".split())
"""Irregular past forms of common verbs (a regular one ends in "-ed"): with "now" and "any more", what a
clause must hold before the meaning fallback (:mod:`.fallback`) reads it: an ending is told as done ("we
*let* her go", "she's *taken* me off it") or as a new present ("it's my nephew's *now*"); a plain present
("I work at Argos", "I love the cello") restates a state and is never embedded."""
"""Words that make a clause with no cue word a mention of a state that goes on ("took it out *again*"): the
meaning fallback (:mod:`.fallback`) never reads such a clause as an ending."""

STOPWORDS = GENERIC_WORDS | frozenset(
    "i me we us you he she it they them him is are was were be been being have has had do does did not no "
    "so but if then than that this these those there here what which who whom when where why how all any "
    "some more most much many one two three four five six seven eight nine ten first last next other another "
    "same very really still now today yesterday week month year day time lol haha ok okay yeah well i'm i've i'd "
    "tonight weekend morning evening night ago already yet soon again finally totally completely properly "
    "january february march april may june july august september october november december monday tuesday "
    "wednesday thursday friday saturday sunday spring summer autumn fall winter christmas easter "
    "it's that's we're we've he's she's they're they've you're there's".split()
)
"""Words never taken for a mention of anything."""

INDEFINITE_ACTORS = frozenset(
    "someone somebody anyone thief thieves burglar burglars guy lad bloke man woman couple family people "
    "buyer buyers dealer dealership insurance insurer adjuster company neighbours neighbors people kids tenants "
    "owners landlords parents friends folks everyone everybody colleagues staff".split()
)
"""Heads of indefinite subjects ("someone nicked...", "a couple bought..."): not an owner of the thing."""

NEGATORS = frozenset("not n't never didn't don't doesn't haven't hasn't hadn't wasn't weren't won't wouldn't isn't "
                     "aren't cannot can't couldn't nor neither nobody".split())
"""Words that deny the cue that follows them in a clause ("I didn't sell it")."""


def negates(words: Iterable[str]) -> bool:
    """Whether any of ``words`` (lower-case tokens) denies: one of :data:`NEGATORS` or any "-n't" form."""
    return any(w in NEGATORS or w.endswith("n't") for w in words)
