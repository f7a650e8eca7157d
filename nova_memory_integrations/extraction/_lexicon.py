"""Word lists and lexical tables of the rule-based extractor (:mod:`.deterministic`).

Pure data: jobs, pets, relations, languages, names and sentence starters that are not names, words that
make a captured object unusable, and the spelling/contraction tables. Nothing here depends on the rules.
"""

from __future__ import annotations

__all__ = [
    "BAD_FIRST",
    "BAD_LAST",
    "BRITISH",
    "COMPOUNDS",
    "CONTEXTUAL",
    "CONTRACTIONS",
    "JOBS",
    "LANGS",
    "NAME_STOP",
    "NOT_JOBS",
    "NOT_JOB_WORDS",
    "NOT_NAMES",
    "ORDINALS",
    "ORG_NOUNS",
    "PETS",
    "PET_RE",
    "PLAN_STOP",
    "POSSESSIVE",
    "RELS",
    "STARTERS",
    "STUDENTS",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# ----------------------------------------------------------------------------------------- lexicons
JOBS = _words(
    "accountant actor actress administrator adviser advisor agent analyst animator architect artist assistant "
    "associate astronaut athlete attendant attorney auditor author baker banker barber barista bartender blogger "
    "bookkeeper broker builder butcher buyer carpenter cashier caregiver carer ceo cfo chef cleaner clerk coach "
    "coder consultant contractor cook coordinator cop copywriter counselor counsellor courier curator cto dancer "
    "designer detective dev developer dietitian director dispatcher doctor driver economist editor educator "
    "electrician engineer entrepreneur executive farmer firefighter fisherman founder cofounder co-founder "
    "freelancer gardener guard hairdresser historian homemaker housewife hygienist illustrator influencer "
    "inspector instructor intern investor janitor jeweler judge labourer laborer lawyer lead lecturer librarian "
    "lifeguard machinist manager marketer mathematician mechanic medic midwife miner model musician nanny nurse "
    "officer operator painter paralegal paramedic pastor pilot planner plumber poet policeman policewoman postdoc "
    "practitioner priest principal producer professor programmer rabbi realtor receptionist recruiter referee "
    "reporter representative researcher retiree sailor salesman saleswoman salesperson scientist secretary "
    "senator server sheriff singer soldier sre steward stewardess streamer student supervisor surgeon surveyor "
    "sysadmin tailor teacher technician therapist trader trainer translator tutor undergrad veterinarian vet "
    "waiter waitress welder writer youtuber freshman sophomore pharmacist physician physicist physiotherapist "
    "psychiatrist psychologist dentist optometrist chemist biologist geologist linguist journalist"
)
NOT_JOBS = _words(
    "optimist pessimist perfectionist realist idealist minimalist feminist atheist tourist cyclist purist "
    "hedonist narcissist activist nationalist socialist capitalist communist buddhist baptist methodist nihilist"
)
NOT_JOB_WORDS = _words(
    "bit little lot kind sort huge big total fan person type believer terrible bad good great awful decent "
    "amazing excellent horrible lousy better worse best worst home proud hopeless natural wannabe aspiring former ex"
)
STUDENTS = _words("student undergrad freshman sophomore postdoc")
PETS = _words(
    "dog cat puppy kitten pup kitty parrot rabbit bunny hamster gerbil fish goldfish betta turtle tortoise snake "
    "lizard gecko iguana horse pony ferret budgie parakeet cockatiel bird canary chinchilla rat hedgehog axolotl "
    "tarantula retriever labrador poodle beagle terrier bulldog husky corgi dachshund shepherd spaniel collie pug "
    "chihuahua rottweiler greyhound schnauzer doodle labradoodle goldendoodle pomeranian mutt tabby siamese ragdoll"
)
PET_RE = r"(?:" + "|".join(sorted(PETS, key=len, reverse=True)) + r")"
RELS = (
    r"(?:(?:best|older|younger|little|big|baby|twin|step|ex|late)[- ]?)?(?:sister|brother|mom|mum|mother|dad|"
    r"father|parents|wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|son|daughter|kids|children|friend|"
    r"roommate|flatmate|housemate|coworker|co-worker|colleague|boss|manager|neighbou?r|cousin|aunt|uncle|grandma|"
    r"grandmother|grandpa|grandfather|niece|nephew|sibling|twin|spouse)"
)
LANGS = _words(
    "english spanish french german italian portuguese mandarin chinese cantonese japanese korean hindi urdu arabic "
    "russian dutch swedish norwegian danish finnish polish turkish greek hebrew persian farsi tamil telugu bengali "
    "punjabi swahili vietnamese thai indonesian malay tagalog ukrainian czech hungarian romanian latin esperanto"
)
NOT_NAMES = _words(  # capitalised words that follow "I'm" but are not names
    "Canadian American British English French German Italian Spanish Mexican Brazilian Indian Chinese Japanese "
    "Korean Australian Irish Scottish Welsh Dutch Swedish Danish Norwegian Finnish Polish Russian Ukrainian Greek "
    "Turkish Egyptian Nigerian Kenyan Pakistani Filipino Vietnamese Thai Indonesian Argentinian Chilean Colombian "
    "Peruvian Cuban Portuguese Swiss Austrian Belgian Israeli Iranian Persian Lebanese Moroccan Jewish Muslim "
    "Catholic Christian Hindu Buddhist Asian European African Latino Latina Hispanic Black White Vegan Vegetarian "
    "Ok Okay Fine Good Sorry Back Here Ready Done Happy Sad Tired Busy Single Married Retired Pregnant Not So Just "
    "Also In At On The Very Really Still Now Glad Sure Bored Hungry Free Late New Well Home Out Gay Straight"
)
STARTERS = _words(  # capitalised sentence starters that are not third-party names
    "I It This That There Here He She They We You What Who Why How When Where Which My Our Your His Her Their The "
    "A An And But So Also Just Actually Yes No Ok Okay Well Thanks Today Yesterday Tomorrow Now Then Everyone "
    "Someone Nobody People Maybe Sometimes Honestly Lately Recently Anyway Please Hi Hello Hey Sorry Oh Lol Sure "
    "Since After Before Once Last Next Every Both Monday Tuesday Wednesday Thursday Friday Saturday Sunday"
)
ORG_NOUNS = _words(
    "company startup start-up bank hospital clinic school university college agency firm restaurant store shop "
    "bakery cafe nonprofit non-profit charity lab studio factory hotel airline consultancy corporation business "
    "practice newspaper magazine museum library government council church ngo army navy military marines police"
)
BAD_FIRST = _words(
    "it its them this that these those him her hers you your yours me myself us one ones something anything "
    "everything nothing someone anyone everyone nobody stuff what which who whom how why when where there here so "
    "not no for about with at in on by from of as than very too more less much and or but if because again yet all "
    "both some any such i we they he she being doing lot"
)
BAD_LAST = _words("it them you him me us that this these those one ones is are was were has have do does can will")
CONTEXTUAL = _words(  # nouns that refer to the conversation itself ("I prefer the first option")
    "option options answer answers version choice idea suggestion suggestions response reply approach solution "
    "explanation example examples format summary chat chats conversation question questions link draft paragraph "
    "sentence section line part intro title text wording edit edits change changes"
)
ORDINALS = _words("first second third last other former latter previous next same")
POSSESSIVE = _words("my your his her our their")
PLAN_STOP = _words(  # "I'm going to <verb>" that is conversation, not a plan
    "know ask see say tell check talk be understand thank confirm clarify mention share remind let need help try "
    "think head grab log sign stop wait leave sleep go rest paste send post upload attach copy show explain "
    "describe rephrase add type give provide list repeat answer reply respond"
)
NAME_STOP = _words("not a an the just kidding so very really fine good ok okay here back sorry done unknown private")
COMPOUNDS = frozenset(
    {"mac and cheese", "rock and roll", "fish and chips", "salt and pepper", "drum and bass", "arts and crafts",
     "dungeons and dragons", "sweet and sour", "ham and cheese", "black and white", "bread and butter"}
)
BRITISH = {"colour": "color", "flavour": "flavor", "mum": "mom", "neighbour": "neighbor"}
CONTRACTIONS = {
    "i'm": "I am", "i've": "I have", "i'd": "I would", "i'll": "I will", "can't": "cannot", "don't": "do not",
    "doesn't": "does not", "didn't": "did not", "won't": "will not", "isn't": "is not", "aren't": "are not",
    "wasn't": "was not", "haven't": "have not", "hasn't": "has not", "she's": "she is", "he's": "he is",
    "it's": "it is", "that's": "that is", "what's": "what is", "name's": "name is", "we're": "we are",
    "they're": "they are", "we've": "we have", "they've": "they have", "who's": "who is", "there's": "there is",
    "where's": "where is", "wouldn't": "would not", "couldn't": "could not", "shouldn't": "should not",
    "ain't": "am not", "im": "I am",
}
