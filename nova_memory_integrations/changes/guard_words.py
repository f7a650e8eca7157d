"""The words the change guards read (data): modality, plans, pauses, memories, reported speech, banter.

Split from :mod:`.lexicon` (the cues and categories); like it, every entry is a regular expression or a word
set matched case-insensitively on text whose curly quotes were straightened, compiled once by the guards
(:mod:`.guards`) and the readers that share them.
"""

from __future__ import annotations

__all__ = [
    "ADDITIVE",
    "ADDITIVE_OR_MORE",
    "ASKING_MARKERS",
    "ATTEMPT",
    "BOUNDED_AFTER_CUE",
    "DREAM",
    "REPAIR",
    "EVENT_NOUNS",
    "IRREVERSIBLE_CUES",
    "FUTURE_MARKERS",
    "LAUGHTER",
    "MALFUNCTION",
    "MODAL_MARKERS",
    "NEAR_MISS",
    "PERSON_NOUNS",
    "REMINISCENCE_MARKERS",
    "REPORTING_VERBS",
    "RESUMED",
    "TEMPORARY_MARKERS",
    "TIME_AHEAD",
    "TIME_PAST",
]

ASKING_MARKERS: tuple[str, ...] = (
    r"\bmight\b", r"\bmaybe\b", r"\bperhaps\b", r"\bwould(?:n't)?\b", r"\bcould\b", r"\bshould\b", r"\bif\b",
    r"\bunless\b", r"\bwhether\b",
)
"""The modal markers a question or a condition is put with ("should I rotate the tyres on my Civic?"): they
doubt the asking, not a thing a possessive presupposes (:func:`.state_mentions.possessed`)."""

MODAL_MARKERS: tuple[str, ...] = (
    *ASKING_MARKERS, r"\bthinking (?:about|of)\b", r"\bconsidering\b", r"\bconsider\b",
    r"\bplanning\b", r"\bplan to\b", r"\bwant(?:s|ed)? to\b", r"\bwanna\b", r"\btempted\b", r"\bhop(?:e|ing) to\b",
    r"\bwish\b", r"\btoying with\b", r"\bidea of\b", r"\btalk (?:me|him|her|us) out of\b", r"\bor not\b",
    r"\bdebating\b", r"\bon the fence\b", r"\bdaydream", r"\bimagine\b", r"\bwhat if\b", r"\bjust curious\b",
    r"\bnot yet\b", r"\bI may\b", r"\bwe may\b", r"\bmay (?:have to|need to|be)\b", r"\btrying to decide\b",
    r"\bdeciding\b", r"\bworried (?:about|that)\b", r"\bscared (?:of|that)\b", r"\bafraid (?:of|that)\b",
    r"\bpretend", r"\bjoking\b", r"\bhypothetical",
)
"""Words that make a clause a possibility, a wish or a plan rather than a fact."""

NEAR_MISS = (r"\b(?:almost|nearly|practically|came close to|was about to|were about to)\s+(?:\w+\s+)?$"
             r"|\b(?:thought|thinking|convinced|sure|panicked|panicking|worried)\s+(?:that\s+)?(?:i|we)(?:'d|\s+had)\s+$"
             r"|\b(?:thought|convinced|panicked|panicking|worried|scared)(?:\s+for\s+a\s+(?:sec|second|minute|moment|bit))?"
             r"\s+(?:that\s+)?(?:[\w'+-]+\s+){1,4}(?:had|'d|was|were|has)\s+$")
"""Right before a cue, a change that did not happen ("I *almost* left", "*nearly* sold it last month"), or a
false alarm ("*thought I'd* lost my keys": they turned up; "*panicked for a sec that my RSPB membership had*
lapsed")."""
DREAM = (r"\b(?:dreamt|dreamed|dreaming|daydream\w*|nightmare|imagin(?:e|ed|ing))\b"
         r"|(?<!living the )(?<!living my )\bdreams?\b(?! (?:job|house|home|car|holiday|wedding|life|team|role|come))")
"""Before a cue in its sentence, what follows is a dream or an imagining ("weird *dream* last night: we'd sold
the house"), not a change; "my *dream* job", "living *the dream*" are not."""

FUTURE_MARKERS: tuple[str, ...] = (
    r"\bwill\b", r"'ll\b",
    r"(?:(?:\b(?:am|is|are|was|were|be|been|not|i|we)|'m|'s|'re)\s+(?:\w+ly\s+|just\s+|still\s+)?|^\W*)going to\b",
    r"\bgonna\b", r"\babout to\b", r"\bnext (?:week|month|year|spring|"
    r"summer|autumn|fall|winter|monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|term)\b",
    r"\btomorrow\b", r"\bsoon\b", r"\bin (?:a|one|two|three|four|five|six|a few|a couple of|\d+) (?:days?|weeks?|"
    r"months?|years?)\b", r"\bafter the (?:tour|summer|holidays|season|wedding|project|launch)\b",
    r"\bthis coming\b", r"\bnot until\b", r"\buntil (?:christmas|the end|next|january|february|march|april|may|june|"
    r"july|august|september|october|november|december)\b", r"\bfrom next\b", r"\bby the end of (?:the|this|next)\b",
    r"\bin (?:the )?new year\b", r"\bstarting (?:on|in|next)\b", r"\b(?:weeks?|days?|months?) and I'm\b",
    r"\b(?:is|'s|will be) (?:on )?(?:this )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow)\b",
    r"\b(?:is|'s|are|'re|will be) (?:on |at |in )?(?:the )?(?:\d{1,2}(?:st|nd|rd|th)|end of|start of|middle of)\b",
)
"""Words that put a clause in the future: a plan, never a change now."""

TIME_AHEAD = (r"\b(?:on |this |by |until |after |before |at |in )?(?:(?:the )?\d{1,2}(?:st|nd|rd|th)\b|"
              r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|christmas|easter|new year|"
              r"january|february|march|april|june|july|august|september|october|november|december|spring|"
              r"summer|autumn|winter)\b|(?:the )?end of (?:the )?(?:week|month|year|term|season))")
"""A time a gerund's clause may name ahead of it ("Leaving the band *after Christmas*", "Moving out *on Saturday*")."""
TIME_PAST = r"\b(?:last|ago|yesterday|earlier|this morning|already|just|was|were|had)\b"
"""Words that put a gerund's clause in the past ("Moving out *last* weekend was chaos")."""

_WHEN = (r"(?:the )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|week|month|year|term|"
         r"season|january|february|march|april|may|june|july|august|september|october|november|december|spring|"
         r"summer|autumn|winter|new year|holidays)")
TEMPORARY_MARKERS: tuple[str, ...] = (
    r"\bfor the (?:summer|winter|holidays?|season|week|weekend|month|break|time being)\b",
    r"\b(?:be back|resumes?|restarts?|reopens?|starts? (?:up )?again|returns?) (?:in|on|next|after|from|by) " + _WHEN
    + r"\b",
    r"\bback (?:next|after|from|by) " + _WHEN + r"\b",
    r"\bon (?:a )?(?:break|hiatus|pause)\b", r"\btemporar(?:y|ily)\b", r"\bfor a (?:while|bit)\b",
)
"""Words of a pause, not an end ("the course is over *for the summer*", "closed, *reopens in September*"); not
"back in May", which says when, earlier."""

REMINISCENCE_MARKERS: tuple[str, ...] = (
    r"\bmy (?:first|previous|last|old) (?:car|job|bike|flat|house|dog|cat|boyfriend|girlfriend|husband|wife|"
    r"partner|school|band|team)\b(?! (?:is|has|'s))", r"\bback in (?:college|school|uni|university|the day|\d{4}|"
    r"my)\b", r"\byears ago\b", r"\bgrowing up\b", r"\bwhen I was (?:a|young|little|at|in|younger)\b",
    r"\bas a (?:kid|child|teenager|teen|student)\b", r"\bin my (?:teens|twenties|thirties|youth|student days)\b",
    r"\bat uni\b", r"\bin college\b", r"\bwhen (?:I|we) (?:worked|lived|had|owned|drove|studied|played)\b",
    r"\bat the age of\b", r"\bbefore I (?:retrained|moved|met)\b", r"\bonce upon\b", r"\bremember when\b",
)
"""Words of a memory of an earlier, different thing ("my first car", "back in college")."""

REPORTING_VERBS = (
    r"\b(?:says?|said|thinks?|thought|reckons?|assumed?|claims?|claimed|told me|keeps saying|asked (?:me )?if|"
    r"wants to know|suggested|heard that|joked|jokes|ask(?:s|ed|ing)? (?:me |us |him |her )?(?:if|whether)|"
    r"wonder(?:s|ed|ing)? (?:if|whether)|rumou?rs?|gossip)\b"
)
"""Words of somebody else's speech or belief: what follows is theirs, not the user's statement."""


ATTEMPT = r"\b(?:trying|tried|attempting|struggling|working on) to\s+(?:\w+\s+)?$"
"""Right before a cue, an attempt that is not yet a done change ("*trying to* quit smoking, day two")."""

LAUGHTER = (r"\b(?:lol|lmao|lmfao|rofl|haha\w*|hehe\w*|jk|j/k|kidding|jokes|joking)\b|[\U0001F602\U0001F923\U0001F61C"
            r"\U0001F92A\U0001F605]")
"""Marks of banter: a cue that is not told as done next to them ("divorcing him *lol*", "selling the kids on eBay
😂") is a joke, not news; a done one ("ported my number lol") still counts."""

BOUNDED_AFTER_CUE = (r"^\W*(?:[\w'-]+\s+){0,6}?(?:for (?:the month of |all of |most of )?(?:january|february|march|"
                     r"april|may|june|july|august|september|october|november|december|lent|(?:a|one|two|three|four|"
                     r"a few|a couple of|\d+) (?:days?|nights?|weeks?|fortnights?)|a fortnight)\b"
                     r"(?! (?:now|already|and counting|so far|straight))"
                     r"|for (?:today|tonight|the day|the night|the evening|this week)\b"
                     r"|while (?:I'm|I am|we're|we are|they're|he's|she's) (?:away|off|abroad|on holiday|travelling|"
                     r"traveling|recovering|in hospital|on leave|off sick)\b"
                     r"|before (?:my|our|the) (?:holiday|holidays|break|leave|vacation|trip|time off|surgery|op|"
                     r"operation|maternity leave|paternity leave)\b"
                     r"|(?:down |back )?to (?:once|twice|part[- ]time|half|(?:one|two|three|four|five|\d+) (?:days?|"
                     r"hours?|evenings?|nights?|times?|shifts?))\b)")
"""Right after a cue, a short stretch that bounds it or a reduction: a pause, not an end ("cancelled the lessons
*for August*", "went missing *for two days*", "done with the gym *for today*", "last shift *before my holiday*",
"dropped the class *to once a week*"). A stretch before the cue ("worked there for two weeks, quit") is not read."""

RESUMED = (r"\bsigned (?:on|up) for another\b|\b(?:I'm|I am|we're|we are) (?:staying|keeping it)\b|\bstay(?:ing)? put\b"
           r"|\b(?:renewed|extended) (?:it|the lease|our lease|my lease|the contract|my contract)\b|"
           r"\b(?:but|yet|though)\s+(?:I|we)(?:'m|'re| am| are)?\s+(?:still (?:going|there|at it|doing it|(?:have|got|"
           r"own|drive|use|ride) (?:it|her|him|them))|keep (?:going|at it|\w+ing (?:\w+ )?(?:there|back|in|along|it)))"
           r"\b|\b(?:he|she|it|they)(?:'s|'re| is| are) (?:\w+ )?back\b|\b(?:he|she|it|they) (?:came|turned|showed) "
           r"(?:back|up)\b|\bfound (?:him|her|it|them)\b|[,;—-]\s*(?:but )?not (?:in |on |for )?(?:me|us|mine|ours|"
           r"my|our)\b|\b(?:I|we) (?:survived|dodged|escaped)\b")
"""After a cue in its sentence, words that say the state goes on, came back or spared the user ("so done with spin
*but I keep dragging myself there*", "went missing, *but he's back home now*", "layoffs, *not in my team*"): a
complaint, a scare or someone else's loss, not an end."""

MALFUNCTION = r"^\s+on (?:me|us|him|her)\b"
"""Right after a cue, the dative of a breakdown: "the laptop *died on me*" is a fault, not the end of owning it."""

PERSON_NOUNS = frozenset(
    "coach trainer teacher tutor instructor owner director chef doctor gp vet dentist captain founder ceo head "
    "headteacher headmaster principal manager boss landlord landlady vicar priest singer drummer guitarist "
    "bassist player members member husband wife son daughter brother sister mum dad mother father conductor leader "
    "organiser organizer secretary chair chairman chairwoman president treasurer pastor minister rabbi imam "
    "receptionist nurse surgeon consultant physio therapist".split()
)
"""Heads of a possessed person ("the club's old *coach*", "Bruno's *brother*"): that person's news, not the
possessor's (with :data:`RELATIONS`)."""

ADDITIVE = (r"\b(?:too|as well|also|on the side|on top of (?:that|it|my \w+)|in addition|besides|alongside|second job|"
            r"side (?:hustle|gig|job)|extra shifts?|a few (?:hours|evenings|shifts))\b")
"""Words that make a new job or course one more, not the one instead ("tutoring on the side *too*",
"volunteering at the food bank *as well*")."""
ADDITIVE_OR_MORE = ADDITIVE + r"|\b(?:another|second|both|extra|more)\b"
""":data:`ADDITIVE`, and the counting words that make a value told by time alone one more of its kind ("got
*another* cat now", "*both* bikes"): a new value with them succeeds nothing (:mod:`.supersede`)."""

EVENT_NOUNS = frozenset("game games match matches fixture fixtures gig gigs concert show flight trip appointment "
                        "meeting race tournament event".split())
"""Heads of one occasion ("the Arsenal *game*'s been cancelled"): cancelling one ends no membership, support or
habit ("class", "training", "lessons" may be the recurring thing itself: not here)."""

REPAIR = (r"\b(?:get|getting|got|have|having|had|being|been|be)\s+(?:it|her|him|them|the \w+)\s+(?:fixed|repaired|"
          r"mended|seen to|looked at)\b|\b(?:it's|it is|she's|he's)\s+(?:being|getting)\s+(?:fixed|repaired|mended)\b|"
          r"\bin for (?:repairs?|a repair)\b")
"""After a cue anywhere in the message, words of a repair ("the astra died on the M6 ... *getting it fixed* on
Monday"): a breakdown, not the end of owning it."""

IRREVERSIBLE_CUES = frozenset({"sold", "sold up", "gave away", "died", "written off", "scrapyard", "got rid of",
                               "traded in", "rehomed", "stolen"})
"""Cues of what cannot be for a while ("sold my strat *to pay for the holiday*"): no pause or bound guards them."""
