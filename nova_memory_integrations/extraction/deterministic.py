"""Rule-based (no-LLM) fact extractor.

:class:`DeterministicExtractor` finds first-person and simple third-party statements in user turns with
precompiled regular expressions. It favours precision over recall: questions, hypotheticals, wishes,
reported speech and plain negations yield nothing, and every captured object is validated by its kind
(:mod:`._objects`, :mod:`._things`: pronouns, demonstratives, references to the conversation itself,
fillers and time expressions are rejected or stripped; a held thing, a group or a home needs a head noun of
its class or a proper name).

Pipeline for one turn: split sentences (a question keeps the statement that opens it: "my girlfriend Ana
loves climbing, where should we go?") -> expand contractions ("Tom's just moved" -> "Tom has just moved") ->
split clauses at conjunctions that start a new subject (a conditional clause drops the rest of the sentence,
a modal one only itself) -> put back the speaker's "I" in a clause that opens on its verb ("Been teaching
chemistry at ...", :func:`._clauses.elide`) -> find subjects (``I``/``we``, ``my <relation> [Name]``,
``Name, my <relation>,``, "Uncle Ray", a capitalised name followed by a verb, ``she``/``he``/``they``
with an antecedent in the turn or earlier in the session, :mod:`._discourse`) -> try the predicate rules
in order after each subject (the first rule that yields a valid object wins; the capture frames of
:mod:`._frames` are verb classes as data) and the frames a clause mentions in passing -> resolve the
clause's time expression into ``valid_from`` (a new job "I start on January 6th" holds from then).

Output conventions: subjects are ``"user"`` or a lowercase relation/name (``"sister"``, ``"best friend"``,
``"bob"``); objects keep their written casing minus a leading ``a``/``an``; pets are ``"<species> named
<Name>"`` and other named things ``"<noun> named <Name>"``; counts are digits; a named relative gives
``user <relation>_name <Name>`` and ``<name> <kind>_of user`` and is the subject of what the turn says about
them ("my brother Luis is a chef" -> ``luis job_title chef``; a later "my brother" or "he" is Luis too).
Endings ("I sold my car", "our cat died", "I'm no longer vegetarian") are ``negate`` facts, their rules are
in :mod:`._endings`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Literal, NamedTuple

from ..text.dates import resolve_relative_time
from ..text.known_names import is_firm
from ..text.lexicon import (
    BRITISH,
    NOT_NAMES,
    PET_RE,
    PETS,
    RELS,
    STARTERS,
    STUDENTS,
)
from ..text.requests import asks_to_remember, without_requests
from ..text.roles import MACHINE_ROLES, is_named_speaker
from ..text.sentences import FACT_SENTENCES
from ..types import Episode
from ._clauses import (
    CONDITIONAL,
    HYPOTHETICAL,
    LEAD,
    QUESTION_START,
    REPORTED,
    adjunct,
    elide,
    expand,
    split_clauses,
    statement_part,
)
from ._context import context_facts
from ._discourse import Discourse, SessionMemory, starting_later
from ._endings import CONT, ENDING_RULES, MY_ENDING_RULES, PET_END, START_ENDING_RULES, rel_kind, resolve
from ._frames import (
    CAPTURE_RULES,
    HELD_MENTION,
    MOVE_MENTIONS,
    MY_CAPTURE_RULES,
    OWNED_START,
    PASSING_RULES,
    PRE_RULES,
    REL_INTRO,
    RELOCATED,
    TOP_RULES,
    TRANSFER,
)
from ._objects import clean_object
from ._rules import ADV, Rule, f, neg, rule
from ._subjects import (
    AND_MY,
    AND_THEIRS,
    KNOWN_LOWER,
    PRONOUN,
    SHARED_NAME,
    THIRD_APPOS,
    THIRD_BARE,
    THIRD_MY,
    THIRD_NAME,
    THIRD_TITLE,
    rel_word,
)
from ._things import CAPTURE_PREDICATES, resolve_capture
from ._turn import CONTEXT_RULES, settle
from .base import CandidateFact

__all__ = ["DeterministicExtractor"]

_I = re.IGNORECASE


# ----------------------------------------------------------------------------------------- subjects
_FIRST_PERSON = re.compile(r"\b(?:I|i|[Ww]e)\b(?!')\s+")
_MY = re.compile(r"\b[Mm]y\s+")


class _Hit(NamedTuple):
    """One fact found in a clause; hits are sorted by ``position`` (text order) before they are emitted."""

    position: int
    subject: str
    predicate: str
    object: str
    op: str
    confidence: float


# ------------------------------------------------------------------------------ predicate rules
_rule, _f, _neg = rule, f, neg


# Tried after a subject, in order; the first rule that yields a valid object wins. Verb forms cover both
# first and third person. Kinds: things (list), thing, place, org, job, name, num, lang, pet, verb, study, pref.
_RULES: tuple[Rule, ...] = (
    *PRE_RULES,
    *ENDING_RULES,
    *CONTEXT_RULES,
    *TOP_RULES,
    _rule(r"<A>no longer <A><LIKE> <O>", _neg("likes", "things")),
    _rule(r"<ANY><A>(?:do|does) not <A><LIKE> <O>", _neg("likes", "things")),
    _rule(r"<ANY><A>(?:am|is|are) not <A>(?:into|a (?:big |huge )?fan of) <O>", _neg("likes", "things")),
    _rule(r"<A>(?:do|does) not <A>(?:like|likes|enjoy|enjoys|care for) <O>", _f("dislikes", "things")),
    _rule(r"<A>(?:am|is|are) not (?:a (?:big |huge )?fan of|fond of) <O>", _f("dislikes", "things")),
    _rule(r"<A>no longer (?:live|lives|reside|resides) in <O>", _neg("lives_in", "place"), we_ok=True),
    _rule(r"<ANY><A>(?:do|does) not (?:live|reside) in <O>", _neg("lives_in", "place"), we_ok=True),
    _rule(r"<A>(?:no longer (?:work|works)|(?:am|is) no longer (?:working|employed)) (?:at|for) <O>",
          _neg("works_at", "org")),
    _rule(r"<ANY><A>(?:do|does) not work (?:at|for) <O>", _neg("works_at", "org")),
    _rule(r"<A>(?:quit|left|resigned from|retired from|(?:was|got|have been) (?:laid off|let go|fired) from) (?:my|"
          r"his|her|their|the) (?:old |previous |former |last )?(?:job|position|role|work|gig) (?:at|with) <O>",
          _neg("works_at", "org")),
    _rule(r"<A>(?:quit|resigned from|retired from|(?:was|got) (?:laid off|fired) from) (?:the )?(?P<o>(?-i:[A-Z]).+)",
          _neg("works_at", "org")),
    _rule(r"<A>used to (?:live|reside) in <O>", _neg("lives_in", "place"), we_ok=True),
    _rule(r"<A>used to work (?:at|for) <O>", _neg("works_at", "org")),
    _rule(r"<A>used to (?:like|love|enjoy|be into) <O>", _neg("likes", "things")),
    _rule(r"<A>used to (?:hate|dislike|despise|loathe) <O>", _neg("dislikes", "things")),
    _rule(r"<A>(?:hated|disliked|despised|loathed) <O><KID>", _neg("dislikes", "things")),
    _rule(r"<A>(?:loved|liked|enjoyed) <O><KID>", _neg("likes", "things")),
    _rule(r"<A>(?:have |has )?(?:moved|relocated) (?:away |here )?from (?P<x>.+?) to <O>",
          _neg("lives_in", "place", "x"), _f("lives_in", "place"), we_ok=True),
    _rule(r"<A>(?:have |has )?(?:switched|migrated|converted) (?:over )?from (?P<x>.+?) to <O>",
          _neg("@switched", "switched", "x"), _f("@switched", "switched"), we_ok=True),
    _rule(r"<A>(?:have |has )?(?:switched|migrated|converted) (?:over )?to (?P<o>.+?)(?:\s+from\s+(?P<x>.+))?$",
          _f("@switched", "switched"), _neg("@switched", "switched", "x"), we_ok=True),
    _rule(r"<A>(?:hate|hates|dislike|dislikes|detest|detests|loathe|loathes|despise|despises|cannot stand|can not "
          r"stand|cannot bear|abhor|abhors)(?! it when| when) <O>", _f("dislikes", "things")),
    _rule(r"<A>(?:(?:do |does )?(?:love|loves|like|likes|enjoy|enjoys|adore|adores)|(?:am|is|are) <A>(?:a (?:big "
          r"|huge |massive )?fan of|obsessed with|passionate about|crazy about|fond of|into|big into|hooked on)|"
          r"(?:have|has) been <A>(?:into|obsessed with|loving|enjoying|hooked on))(?! it when| when) <O>",
          _f("likes", "things")),
    _rule(r"<A>(?:prefer|like|want) to be (?:called|named|addressed as) <O>", _f("name", "name"), first_only=True),
    _rule(r"<A>(?:prefer|prefers)(?! not) <O>", _f("prefers", "pref")),
    _rule(r"<A>(?:am called|am named|go by|go by the name(?: of)?|am known as) <O>", _f("name", "name"),
          first_only=True),
    _rule(r"am (?P<o>(?-i:[A-ZÀ-Þ][a-zà-ÿ'-]+))(?=\s*$|\s*[,.!]|\s+(?:and|here|by the way|btw|nice|from)\b)",
          _f("name", "name"), first_only=True, conf=0.7),
    _rule(r"<A>(?:am|is|are) <A>(?P<o><NUM>)(?: years? old| yrs old| y/?o)?(?=\s*$|\s*[,.!;]|\s+(?:and|now|today|"
          r"this year|btw|by the way)\b)", _f("age", "num")),
    _rule(r"<A>(?:just |recently )?turned (?P<o><NUM>)\b", _f("age", "num")),
    _rule(r"<A>(?:am|is|are|have been|has been|went|became|turned|have gone|has gone|eat|eats) (?:a |an |fully |"
          r"strictly |mostly |properly |full |totally |completely |basically |100% |now )*"
          r"(?P<o>vegetarian|vegan|pescatarian|pescetarian|flexitarian|keto|paleo|gluten[- ]free|kosher|halal)\b",
          _f("diet", "thing")),
    _rule(r"<A>(?:am|is|are|have been|has been) (?:\w+ )?allergic to <O>", _f("allergic_to", "allergen")),
    _rule(r"<A>(?:have|has) (?:a |an )?(?:severe |mild |bad )?(?P<o>[\w-]+(?: [\w-]+)?) allergy\b",
          _f("allergic_to", "things")),
    _rule(r"<A>(?:am|is|are|got|have been|has been) <A>(?:happily )?married to <O>", _f("married_to", "name")),
    _rule(r"<A>(?:am|is|are|got|just got) engaged to <O>", _f("engaged_to", "name")),
    _rule(r"<A>(?:got|have got|has got|was|were|have been|has been) (?:into|a place at|accepted (?:at|to|into|by)|"
          r"offered a place at) (?:(?:a |an |the )?(?:[\w-]+ )?(?:school|college|uni|university|course|programme|"
          r"program) (?:at|in) )?(?P<o>(?-i:[A-Z]).+)", _f("studies_at", "org")),
    _rule(r"<A>(?:am|is|are|got|have got|has got|have just got|has just got) (?:just )?engaged\b(?! to)",
          _f("relationship_status", "status", "=engaged"), we_ok=True),
    _rule(r"<A>(?:live|lives|am living|is living|are living|have lived|has lived|have been living|has been living|"
          r"reside|resides|am based|is based|are based|am located|settled|am renting|is renting|are renting)"
          r"(?: out| over| up| down)? in <O>", _f("lives_in", "place"), we_ok=True),
    _rule(r"<A>(?:live|lives|am living|is living|are living)(?: (?!(?:not|never|with|for)\b)[\w']+){1,7}? (?:in|"
          r"outside|near) (?P<o>(?-i:[A-Z])[\w'-]+(?: (?-i:[A-Z])[\w'-]+)?)", _f("lives_in", "place"), we_ok=True),
    _rule(r"<A>(?:have |has )?(?:moved|relocated)(?: back| over| out| across (?:town|the city|the country))? to <O>",
          _f("lives_in", "place"), we_ok=True),
    _rule(r"<A>(?:am|is|are) based out of <O>", _f("lives_in", "place")),
    _rule(r"<A>(?:(?:am|is|are) originally from|grew up in) <O>", _f("hometown", "place")),
    _rule(r"<A>(?:am|is|are) <A>from (?P<o>.+?)(?= originally\b)", _f("hometown", "place")),
    _rule(r"<A>(?:am|is|are) <A>from <O>", _f("lives_in", "place"), conf=0.6),
    _rule(r"<A><W> as <JOBAT>", _f("job_title", "jobas", "j"), _f("works_at", "org")),
    _rule(r"<A><W> (?:at|for) (?P<o>.+?)(?:\s+as\s+(?P<j>.+))?$", _f("works_at", "org"), _f("job_title", "job", "j")),
    _rule(r"<A>(?:got|landed|accepted|started|am starting|is starting|began|took)(?: a| an| my| the| his| her)?(?: "
          r"new| dream| first| full[- ]time| part[- ]time)? (?:job|position|role|internship|gig),? (?:at|with) "
          r"(?P<o>.+?)(?:\s+as\s+(?P<j>.+))?$", _f("works_at", "org"), _f("job_title", "job", "j")),
    _rule(r"<A>(?:got|landed|accepted|started|am starting|is starting|began|took)(?: a| an| my| the)?(?: new| "
          r"dream| first)? (?:job|position|role|internship) as <JOBAT>", _f("job_title", "job", "j"),
          _f("works_at", "org")),
    _rule(r"<A>(?:got hired|was hired|have been hired) (?:at|by) <O>", _f("works_at", "org")),
    _rule(r"<A>(?:am|is|are|have been|has been|became) <A>(?:a|an) <JOBAT>", _f("job_title", "job", "j"),
          _f("works_at", "org")),
    _rule(r"<A>(?:(?:am|is|are) (?:currently )?(?:learning|studying|majoring in)|study|studies|major in|majors in|"
          r"(?:have|has) been (?:learning|studying)|(?:started|began) (?:learning|studying)|am teaching myself) "
          r"(?P<o>.+?)(?:\s+at\s+(?P<u>(?-i:[A-Z]).+))?$", _f("studies", "study"), _f("studies_at", "org", "u")),
    _rule(r"<A>(?:(?:am|is|are) (?:currently |now )?(?:working on|focusing on|focused on|concentrating on)|"
          r"(?:have|has) been working on) <O>", _f("current_focus", "plain")),
    _rule(r"<A>(?:(?:am|is|are) (?:planning|going|hoping|aiming|intending)|plan|plans|intend|intends|hope|hopes|"
          r"want|wants|aim|aims) to <O>", _f("plans_to", "verb")),
    _rule(r"<A>(?:speak|speaks|(?:am|is|are) fluent in|can speak) <O>", _f("speaks", "lang")),
    _rule(r"<A>(?:have|has|got|adopted|rescued|own|owns|just got|just adopted|brought home|have got) "
          r"(?P<o>(?:a|an|two|three|four|five|\d) .+)", _f("has_pet", "pet"), we_ok=True),
    _rule(r"<A>(?:have|has|have got) (?P<o>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten) (?:kids|"
          r"children|sons|daughters|boys|girls)\b", _f("has_children", "num"), we_ok=True),
    *CAPTURE_RULES,
    _rule(r"<A>(?:own|owns|drive|drives) (?:a|an|the) <O>", _f("owns", "plain"), we_ok=True),
)
# Anchored at "my": attributes of the user stated as "my X is Y".
_MY_RULES: tuple[Rule, ...] = (
    *MY_ENDING_RULES,
    *MY_CAPTURE_RULES,
    _rule(r"my (?:full |real |first |legal |given )?name is (?:spelled )?<O>", _f("name", "name")),
    _rule(r"my (?:hobby is|hobbies are|hobbies include|main hobby is|favou?rite hobby is) <O>", _f("hobby", "things")),
    _rule(r"my <FAV> used to be <O>", _neg("favorite_{k}", "thing")),
    _rule(r"my <FAV> (?:is|are|has to be|has always been) (?:now |still )?<O>", _f("favorite_{k}", "thing")),
    _rule(r"my (?P<k>" + PET_RE + r")(?:'s name is| is (?:called|named)) <O>", _f("has_pet", "petname")),
    _rule(r"my (?:job|occupation|profession|job title) is (?:a |an )?(?P<j>.+)", _f("job_title", "job", "j")),
    _rule(r"my (?:native language|mother tongue|first language) is <O>", _f("speaks", "lang")),
    _rule(r"my (?P<rel>" + RELS + r")(?:'s name is| is (?:called|named)) <O>", _f("{rel}_name", "name")),
)
# Anchored at the start of a clause (after interjections).
_START_RULES: tuple[Rule, ...] = (
    *START_ENDING_RULES,
    _rule(r"(?P<o>[^,]{1,60}?) (?:is|are) my (?:all-time )?<FAV>\b", _f("favorite_{k}", "thing")),
    _rule(r"(?P<o>(?-i:[A-Z])[\w'-]+) is my (?P<k>" + PET_RE + r")\b", _f("has_pet", "petname")),
    _rule(r"(?P<o>(?-i:[A-Z])[\w'-]+) is my (?P<rel>" + RELS + r")\b", _f("{rel}_name", "name")),
    _rule(r"(?:still |currently |now )?working (?:at|for) <O>", _f("works_at", "org")),
    _rule(r"(?:still |currently |now )?living in <O>", _f("lives_in", "place")),
    *OWNED_START,
    _rule(r"(?:(?:please |you can |just )?call me|(?:everyone|people|friends|they|my friends|most people) calls? "
          r"me) (?P<o>(?-i:[A-ZÀ-Þ])[\w'-]+)", _f("name", "name")),
)
_BREED = re.compile(r"(?:is|was) (?:a|an) (?P<o>[a-z][\w -]+)", _I)
_OTHER_SUBJECT = re.compile(r"\b(?:people|they|he|she|you|it|everyone|someone|nobody|will|would|can|could|"
                            r"who|which|that)\b", _I)
_IT_ANY = re.compile(r"(?:^|,\s*|\b(?:and|but)\s+)it is (?:now |actually )?(?P<o>(?:a|an)\s.+)", _I)
_ADVERBS = re.compile(ADV, _I)
_IT_IS = re.compile(r"it is (?:now )?(?P<o>.+)", _I)
_LIKE_PREDS = frozenset({"likes", "dislikes", "prefers"})
_PARTNERS = frozenset({"dating", "married_to", "engaged_to"})
"""Predicates whose object is a person: the last one named is who a later "she" / "he" means."""


@dataclass
class _Ctx:
    """Per-turn state: the last third-party subject, the last user fact of the sentence, the clause's hits."""

    third: str | None = None
    lowercase: bool = False
    last_pred: str | None = None
    last_obj: str | None = None
    hits: list[_Hit] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)  # "brother" -> "luis" once "my brother Luis" is said
    held: bool = False  # the sentence is about "my car" (or another thing held): "it is a 2009 Golf" names it
    speaker: bool = True  # no one else has been the subject of the sentence yet: a subjectless clause is the user's
    pets: dict[str, tuple[str, str]] = field(default_factory=dict)  # "nugget" -> ("oscar", "hamster named Nugget")
    carried: str | None = None  # the person a pronoun meant at the end of the speaker's previous conversation


def _pets_named(ctx: _Ctx) -> None:
    """Remember whose pet a named pet is; "Nugget died" then ends that owner's ``has_pet`` (the user's own pets
    are ended by the consolidator's entailments, from the stored facts)."""
    for hit in list(ctx.hits):
        if hit.predicate == "has_pet" and hit.op == "assert" and " named " in hit.object:
            ctx.pets[hit.object.rsplit(" named ", 1)[1].lower()] = (hit.subject, hit.object)
        elif hit.predicate == "life_status" and hit.object == "deceased" and hit.subject in ctx.pets:
            owner, pet = ctx.pets[hit.subject]
            if owner != "user":
                ctx.hits.append(hit._replace(subject=owner, predicate="has_pet", object=pet, op="negate"))


def _clean(raw: str, kind: str, ctx: _Ctx) -> list[str]:
    """:func:`._objects.clean_object` of a captured object, with what the sentence tells of it."""
    return clean_object(raw, kind, lowercase=ctx.lowercase, last_obj=ctx.last_obj)


def _who(ctx: _Ctx, rel: str) -> str:
    """Who "my <rel>" is: the name the discourse gave that relation, unless the name is shared by two
    relations ("my boyfriend and my brother are both called James"): then the relation itself."""
    name = ctx.aliases.get(rel)
    if name is None or sum(1 for other in ctx.aliases.values() if other == name) > 1:
        return rel
    return name


def _op(value: str) -> Literal["assert", "negate"]:
    return "negate" if value == "negate" else "assert"


class DeterministicExtractor:
    """Fast regex/rule based extractor of candidate facts from user turns.

    Thread-safe; all patterns are compiled at import time. :meth:`extract_batch` carries what one turn
    names ("my brother Luis") and whom it was about over to the next turns of the batch, and of the same
    conversation session in later batches ("My brother just moved to Paris." ... "He loves it."): a
    small, bounded memory (:class:`._discourse.SessionMemory`).

    Example:
        >>> facts = DeterministicExtractor().extract("I live in Paris now.")
        >>> (facts[0].predicate, facts[0].object)
        ('lives_in', 'Paris')
    """

    def extract(self, text: str, *, role: str = "user", timestamp: datetime | None = None) -> list[CandidateFact]:
        """Propose the facts the user states in ``text``.

        Args:
            text: The content of one turn.
            role: Who said it; ``assistant``/``ai``/``system``/``tool`` turns yield nothing.
            timestamp: When it was said (timezone-aware); relative time expressions ("last month") are
                resolved against it into ``valid_from``. Defaults to now.

        Returns:
            Candidate facts in text order, without duplicates.

        Raises:
            InvalidInputError: ``timestamp`` is naive (a ``ValueError``).
        """
        return self._extract(text, role, timestamp, {})

    def __init__(self) -> None:
        self._sessions = SessionMemory()

    def extract_batch(self, episodes: Sequence[Episode]) -> list[list[CandidateFact]]:
        """One list of candidates per episode; a relative named in one turn is known in the next ones.

        Matches the consolidation ``BatchExtractor`` signature. A named speaker of a multi-party
        transcript (``role="Alice"``) is the subject of that turn's first-person facts.
        """
        batch: dict[str, Discourse] = {}
        out: list[list[CandidateFact]] = []
        for e in episodes:
            state = self._sessions.state_for(e, batch)
            found = self._extract(e.content, e.role, e.timestamp, state.aliases, state)
            if is_named_speaker(e.role):
                found = [replace(c, subject=e.role) if c.subject == "user" else c for c in found]
            out.append(found)
        return out

    def _extract(
        self, text: str, role: str, timestamp: datetime | None, aliases: dict[str, str],
        state: Discourse | None = None,
    ) -> list[CandidateFact]:
        reference = timestamp if timestamp is not None else datetime.now(timezone.utc)
        resolve_relative_time("", reference)  # validates the reference (raises on a naive datetime)
        if role.strip().lower() in MACHINE_ROLES or not text or not text.strip():
            return []
        if asks_to_remember(text):  # "..., never forget this" asks; it states nothing (text/requests)
            text = without_requests(text)
        ctx = _Ctx(aliases=aliases, third=state.third if state is not None else None,
                   pets=state.pets if state is not None else {}, carried=state.carried if state is not None else None)
        out: list[CandidateFact] = []
        seen: set[tuple[str, str, str, str]] = set()
        for original in FACT_SENTENCES.split(text):
            sentence = adjunct(expand(original))
            if sentence.rstrip().endswith("?"):
                sentence = statement_part(sentence)
            if not sentence or QUESTION_START.match(sentence):
                continue
            ctx.last_pred = ctx.last_obj = None
            ctx.held = False
            ctx.speaker = True
            ctx.lowercase = not any(c.isupper() for c in sentence.replace("I ", ""))
            for clause in split_clauses(sentence):
                if not clause or not clause.strip():
                    continue
                if CONDITIONAL.search(clause):  # this clause and what it conditions say nothing that holds
                    break
                if HYPOTHETICAL.search(clause):  # a modal ("I might quit") holds for its own clause only
                    continue
                ctx.hits = []
                self._clause(clause, ctx)
                _pets_named(ctx)
                when = resolve_relative_time(clause, reference) if ctx.hits else None
                for hit in sorted(ctx.hits, key=lambda hit: hit.position):
                    key = (hit.subject, hit.predicate, hit.object.lower(), hit.op)
                    if key not in seen:
                        seen.add(key)
                        out.append(CandidateFact(hit.subject, hit.predicate, hit.object, _op(hit.op), hit.confidence,
                                                 when, original))
        if state is not None:
            state.third = ctx.third
        return [*(found := settle(starting_later(out, text, reference), text)), *context_facts(text, found)]

    def _clause(self, clause: str, ctx: _Ctx) -> None:
        start = LEAD.match(clause)
        pos0 = start.end() if start else 0
        if ctx.speaker:
            clause = elide(clause, pos0)
        if HELD_MENTION.match(clause, pos0):
            ctx.held = True
        if ctx.held and (it := _IT_ANY.search(clause, pos0)):  # "my car's making a noise, it's a 2009 Golf"
            for value in _clean(it.group("o"), "held", ctx):
                ctx.hits.append(_Hit(it.start("o"), "user", "owns", value, "assert", 0.7))
        used_my: set[int] = set()
        for m in _MY.finditer(clause):
            if m.start() > pos0 and REPORTED.search(clause, pos0, m.start()):
                continue
            if self._apply(_MY_RULES, clause, m.start(), "user", ctx):
                used_my.add(m.start())
        said_i = False
        for m in _FIRST_PERSON.finditer(clause):
            if m.start() > pos0 and REPORTED.search(clause, pos0, m.start()):
                continue
            said_i = True
            self._apply(_RULES, clause, m.end(), "user", ctx, we=m.group(0)[0] in "Ww")
            self._passing(clause, m.end(), "user", ctx)
        if not self._apply(_START_RULES, clause, pos0, "user", ctx):
            self._third_party(clause, pos0, used_my, ctx)
        if ctx.speaker and not said_i:  # "After the move to Cheltenham my commute is worse": the speaker's move
            self._passing(clause, pos0, "user", ctx, MOVE_MENTIONS)
        for m, kind in [(m, k) for pattern, k in ((TRANSFER, "held"), (RELOCATED, "home"))  # "passed the Pixel on
                        for m in pattern.finditer(clause, pos0)]:  # to my dad", "moved Mum into Oakwood": theirs
            rel, name = rel_word(m.group("rel")), m.group("name")
            owner = self._relative(m.start("rel"), rel, name, ctx, becomes_third=False) if name and name not in \
                STARTERS else _who(ctx, rel)
            for value in _clean(m.group("o"), kind, ctx):
                resolved = resolve_capture("@held", value, m.group(0)) if kind == "held" else ("lives_in", value)
                if resolved is not None:
                    ctx.hits.append(_Hit(m.start("o"), owner, resolved[0], resolved[1], "assert", 0.7))
        for m in REL_INTRO.finditer(clause, pos0 + 1):  # "I'm staying with my brother Tom"
            if m.start() > pos0 and REPORTED.search(clause, pos0, m.start()):
                continue
            rel = rel_word(m.group("rel"))
            if m.group("name") not in STARTERS and m.group("name") not in NOT_NAMES and rel not in PETS:
                self._relative(m.start(), rel, m.group("name"), ctx, becomes_third=False)

    def _passing(self, clause: str, pos: int, subject: str, ctx: _Ctx,
                 rules: tuple[Rule, ...] = PASSING_RULES) -> None:
        """What the clause mentions in passing after its subject (:data:`._frames.PASSING_RULES`)."""
        for rule_ in rules:
            for m in rule_.pattern.finditer(clause, pos):
                ctx.hits.extend(self._fields(rule_, m, clause, subject, ctx, rule_.confidence))

    def _relative(self, pos: int, rel: str, name: str, ctx: _Ctx, *, becomes_third: bool = True) -> str:
        """``user <rel>_name <Name>`` and ``<name> <kind>_of user``; later "my <rel>" means them."""
        pred = rel.replace(" ", "_").replace("-", "_") + "_name"
        ctx.hits.append(_Hit(pos, "user", pred, name, "assert", 0.8))
        subject = name.lower()
        kind = rel_kind(rel)
        if kind:
            ctx.hits.append(_Hit(pos, subject, kind, "user", "assert", 0.8))
        ctx.aliases[rel] = subject
        if becomes_third:
            ctx.third = subject
        return subject

    def _third_party(self, clause: str, pos0: int, used_my: set[int], ctx: _Ctx) -> None:
        subject: str | None = None
        conf = 0.8
        if (shared := SHARED_NAME.match(clause, pos0)) is not None:  # "my dad and my son are both called Ali"
            for group in ("a", "b"):
                rel = rel_word(shared.group(group))
                ctx.hits.append(_Hit(shared.start(group), "user", rel.replace(" ", "_").replace("-", "_") + "_name",
                                     shared.group("name"), "assert", 0.8))
                ctx.aliases[rel] = shared.group("name").lower()
            return
        m = THIRD_MY.match(clause, pos0) or THIRD_APPOS.match(clause, pos0)
        if m is not None:
            if m.start() in used_my:
                return
            rel, name = rel_word(m.group("rel")), m.group("name")
            name = name if name and name not in STARTERS else None
            if rel.split()[-1] in PETS:  # "my dog Rex ...", "our cat died", "our springer spaniel Alfie"
                pet = f"{rel} named {name}" if name else rel
                if PET_END.match(clause, m.end()):
                    ctx.hits.append(_Hit(m.start(), "user", "has_pet", pet, "negate", 0.8))
                elif name:
                    ctx.hits.append(_Hit(m.start(), "user", "has_pet", pet, "assert", 0.8))
                    if (breed := _BREED.match(clause, m.end())) is not None:  # "our dog Ziggy is a border collie"
                        for value in _clean(breed.group("o"), "breed", ctx):
                            ctx.hits.append(_Hit(breed.start("o"), name.lower(), "breed", value, "assert", 0.8))
                return
            subject = self._relative(m.start(), rel, name, ctx) if name else _who(ctx, rel)
            ctx.third = subject
            if (both := AND_MY.match(clause, m.end())) is not None:  # "my friend Ana and my cousin Rosa both work"
                rel2, name2 = rel_word(both.group("rel")), both.group("name")
                if rel2 not in PETS:
                    also = self._relative(both.start(), rel2, name2, ctx, becomes_third=False) if name2 and \
                        name2 not in STARTERS else _who(ctx, rel2)
                    self._apply(_RULES, clause, both.end(), also, ctx)
                    m = both
            elif (theirs := AND_THEIRS.match(clause, m.end())) is not None:  # "my brother and his wife moved"
                m = theirs
        elif (m := THIRD_TITLE.match(clause, pos0)) is not None:  # "Uncle Ray sold ...", "Brother James got ..."
            rel, subject = rel_word(m.group("title")), m.group("name").lower()
            if ctx.aliases.get(rel) == subject:  # one of two people with that name: the relation tells which
                subject = _who(ctx, rel)
            ctx.third = subject
        elif (m := THIRD_BARE.match(clause, pos0)) is not None:  # "brother's officially in Vancouver now"
            rel = rel_word(m.group("rel"))
            subject = _who(ctx, rel)
            ctx.third = subject
        elif (m := PRONOUN.match(clause, pos0)) is not None:
            plural = m.group(0).lower().startswith("they")
            subject = None if plural and ctx.third is not None and ctx.third == ctx.carried else ctx.third
        elif (m := THIRD_NAME.match(clause, pos0)) is not None:
            if (name := m.group("name")) in STARTERS or name in NOT_NAMES or is_firm(name):
                return  # "Lloyds have frozen my card": a bank, not a person
            subject, conf = (m.group("name") + (m.group("from") or "")).lower(), 0.7  # "Sam from work": not Sam Patel
            ctx.third = subject
        elif (m := KNOWN_LOWER.match(clause, pos0)) is not None and m.group("name") in ctx.aliases.values():
            subject = m.group("name")  # "alex has gone fully vegan": a known person's name written lower case
            ctx.third = subject
        elif (it := _IT_IS.match(clause, pos0)) and ctx.last_pred and ctx.last_pred.startswith("favorite_"):
            values = _clean(it.group("o"), "thing", ctx)  # "my favorite X used to be A, but now it's B"
            if values:
                ctx.hits.append(_Hit(it.start(), "user", ctx.last_pred, values[0], "assert", 0.7))
            return
        applied = subject is not None and m is not None and self._apply(_RULES, clause, m.end(), subject, ctx,
                                                                         conf=conf)
        if m is not None and (conf == 0.8 or applied):  # someone else is the subject: so of the next subjectless clause
            ctx.speaker = False

    def _apply(
        self, rules: tuple[Rule, ...], clause: str, pos: int, subject: str, ctx: _Ctx, *, we: bool = False,
        conf: float = 1.0, follow: bool = True,
    ) -> bool:
        first = subject == "user"
        after = _ADVERBS.match(clause, pos)
        adv_pos = after.end() if after else pos
        for rule_ in rules:
            if (rule_.first_only and not first) or (rule_.third_only and first) or (we and not rule_.we_ok):
                continue
            m = rule_.pattern.match(clause, adv_pos if rule_.after_adverbs else pos)
            if m is None:
                continue
            found = self._fields(rule_, m, clause, subject, ctx, min(rule_.confidence, conf))
            if not found:
                continue
            if any(h.predicate == "job_title" and h.object.split()[-1].lower() in STUDENTS for h in found):
                found = [h._replace(predicate="studies_at") if h.predicate == "works_at" else h for h in found]
            ctx.hits.extend(found)
            last = found[-1]
            subj, pred, obj = last.subject, last.predicate, last.object
            if subj == "user":
                ctx.last_pred = pred
                ctx.last_obj = obj if pred in _LIKE_PREDS or pred.startswith("favorite_") else None
                if pred.endswith("_name") and pred != "name":
                    rel = pred[: -len("_name")].replace("_", " ")
                    if rel_kind(rel) or rel.startswith("ex"):
                        self._relative(last.position, rel, obj, ctx)
                elif pred in _PARTNERS and last.op == "assert":  # "seeing someone new, Aisha. She's ...": Aisha
                    ctx.third = obj.lower()
            if follow and rules is _RULES:  # "I sold my car and (now) drive a Tesla": same subject, next verb
                for cont in CONT.finditer(clause, m.start()):
                    self._apply(_RULES, clause, cont.end(), subject, ctx, we=we, conf=conf, follow=False)
            return True
        found_next = False
        if follow and rules is _RULES:  # "I handed the Niro back and went for a Skoda": the next verb of the subject
            for cont in CONT.finditer(clause, pos):
                if REPORTED.search(clause, pos, cont.start()) or _OTHER_SUBJECT.search(clause, pos, cont.start()):
                    break  # "I'm sure people will ... and love it": the next verb may be someone else's
                found_next |= self._apply(_RULES, clause, cont.end(), subject, ctx, we=we, conf=conf, follow=False)
        return found_next

    def _fields(self, rule_: Rule, m: re.Match[str], clause: str, subject: str, ctx: _Ctx, conf: float) -> list[_Hit]:
        found: list[_Hit] = []
        for index, (group, pred, op, kind) in enumerate(rule_.fields):
            raw = group[1:] if group.startswith("=") else m.group(group)
            values = _clean(raw, kind, ctx) if raw else []
            if not values:
                if index == 0 and not rule_.any_field:
                    return []  # the rule's main object is unusable: try the next rule
                continue
            if "{" in pred:
                key = (m.group("k") if "{k}" in pred else m.group("rel")).lower()
                key = BRITISH.get(key, key)
                pred = pred.format(k=key, rel=key).replace(" ", "_").replace("-", "_")
            if kind == "petname":
                values = [f"{m.group('k').lower()} named {values[0]}"]
            start = m.start() if group.startswith("=") else m.start(group)
            for value in values:
                if pred in CAPTURE_PREDICATES:
                    resolved = resolve_capture(pred, value, m.group(0))
                else:
                    resolved = resolve(pred, value, clause) if pred.startswith("@") else (pred, value)
                if resolved is None:
                    if index == 0 and not rule_.any_field:
                        return []
                    continue
                found.append(_Hit(start, subject, resolved[0], resolved[1], op, conf))
        return found
