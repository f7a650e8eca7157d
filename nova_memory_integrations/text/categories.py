"""What everyday things are kinds of: a small hypernym table, shipped as data.

Attitude conflicts (:mod:`..memory.attitudes`) need to know that "email newsletters" are a kind
of "electronic communication" and "salmon" a kind of "seafood": MiniLM puts those pairs further
apart (0.18, 0.67) than siblings such as "dogs" / "cats" (0.72), which must not conflict. WordNet
would know more, but its data is a separate download that an offline install cannot fetch, so
the package ships this table of common categories instead: one ``kind > parent`` a line, in the
food, drink, animal, communication, media, music, sport, activity, weather, place and transport
words that preferences are usually about. A word may have more than one parent.

:func:`kinds` reads a topic phrase: the phrase itself, its head (the last word: "spicy food" is
a kind of "food"), and the transitive parents of each, after :func:`key` (lowercase, no article
or possessive, each word singular, a few spelling synonyms). Pure; imports nothing of the package.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["PARENTS", "chain", "key", "kinds"]

_TABLE = """
# food
food > thing
fruit > food
vegetable > food
meat > food
seafood > food
fish > seafood
shellfish > seafood
salmon > fish
tuna > fish
cod > fish
trout > fish
sardine > fish
sushi > japanese food
sushi > raw fish
raw fish > fish
shrimp > shellfish
prawn > shellfish
lobster > shellfish
crab > shellfish
oyster > shellfish
mussel > shellfish
apple > fruit
banana > fruit
orange > fruit
strawberry > fruit
grape > fruit
mango > fruit
pear > fruit
berry > fruit
broccoli > vegetable
carrot > vegetable
spinach > vegetable
kale > vegetable
brussels sprout > vegetable
onion > vegetable
mushroom > vegetable
potato > vegetable
tomato > vegetable
beef > meat
pork > meat
chicken > meat
lamb > meat
bacon > pork
steak > beef
burger > fast food
hot dog > fast food
hamburger > fast food
hot dog > fast food
fries > fast food
fast food > food
junk food > food
pizza > italian food
pasta > italian food
spaghetti > pasta
lasagna > pasta
italian food > food
japanese food > food
ramen > japanese food
chinese food > food
mexican food > food
taco > mexican food
burrito > mexican food
indian food > food
curry > indian food
thai food > food
spicy food > food
dairy > food
cheese > dairy
milk > dairy
yogurt > dairy
butter > dairy
ice cream > dessert
ice cream > dairy
dessert > food
sweet > food
candy > sweet
chocolate > sweet
cake > dessert
cookie > dessert
pie > dessert
pastry > dessert
bread > food
rice > food
egg > food
salad > food
soup > food
sandwich > food
snack > food
chip > snack
popcorn > snack
nut > snack
peanut > nut
# drink
drink > thing
coffee > hot drink
espresso > coffee
latte > coffee
cappuccino > coffee
tea > hot drink
green tea > tea
herbal tea > tea
hot chocolate > hot drink
hot drink > drink
alcohol > drink
beer > alcohol
wine > alcohol
red wine > wine
white wine > wine
whiskey > spirit
vodka > spirit
gin > spirit
rum > spirit
tequila > spirit
spirit > alcohol
cocktail > alcohol
soda > soft drink
cola > soda
soft drink > drink
juice > drink
orange juice > juice
water > drink
smoothie > drink
energy drink > soft drink
# animals
animal > thing
pet > animal
dog > pet
cat > pet
puppy > dog
kitten > cat
hamster > pet
rabbit > pet
parrot > bird
bird > animal
pigeon > bird
horse > animal
insect > animal
bug > animal
bee > insect
ant > insect
mosquito > insect
fly > insect
spider > bug
snake > reptile
lizard > reptile
reptile > animal
rat > rodent
mouse > rodent
rodent > animal
# communication
communication > thing
electronic communication > communication
email > electronic communication
newsletter > email
spam > email
mailing list > email
text message > electronic communication
texting > electronic communication
instant messaging > electronic communication
messaging app > electronic communication
whatsapp > messaging app
slack > messaging app
video call > electronic communication
zoom call > video call
phone call > communication
voicemail > phone call
cold call > phone call
telemarketing > phone call
social media > electronic communication
facebook > social media
instagram > social media
twitter > social media
tiktok > social media
linkedin > social media
reddit > social media
notification > electronic communication
push notification > notification
letter > mail
postcard > mail
junk mail > mail
mail > communication
# media and entertainment
entertainment > thing
movie > entertainment
horror movie > movie
action movie > movie
comedy > movie
romantic comedy > movie
documentary > movie
cartoon > movie
anime > cartoon
tv > entertainment
tv show > tv
reality tv > tv
sitcom > tv show
soap opera > tv show
series > tv show
news > media
media > thing
podcast > media
radio > media
book > reading
novel > book
comic > book
poetry > reading
audiobook > book
magazine > reading
newspaper > reading
reading > hobby
game > entertainment
video game > game
board game > game
card game > game
chess > board game
poker > card game
theater > entertainment
musical > theater
opera > music
concert > music
# music
music > entertainment
jazz > music
rock > music
rock music > music
pop > music
pop music > music
classical music > music
mozart > classical music
hip hop > music
rap > music
country music > music
metal > music
heavy metal > metal
techno > electronic music
electronic music > music
blues > music
folk music > music
reggae > music
# sport and exercise
sport > activity
football > sport
soccer > sport
basketball > sport
baseball > sport
tennis > sport
golf > sport
cricket > sport
rugby > sport
hockey > sport
volleyball > sport
exercise > activity
workout > exercise
gym > exercise
running > exercise
jogging > running
marathon > running
swimming > exercise
cycling > exercise
yoga > exercise
pilates > exercise
weightlifting > exercise
hiking > exercise
climbing > exercise
dancing > activity
# activities and places
activity > thing
hobby > activity
cooking > activity
baking > cooking
gardening > hobby
painting > hobby
knitting > hobby
photography > hobby
fishing > hobby
camping > outdoor activity
hiking > outdoor activity
outdoor activity > activity
travel > activity
flying > travel
road trip > travel
cruise > travel
shopping > activity
online shopping > shopping
party > social event
wedding > social event
crowd > social event
social event > activity
small talk > conversation
conversation > communication
meeting > work
work > activity
overtime > work
commuting > travel
beach > place
mountain > place
city > place
countryside > place
# weather and seasons
weather > thing
rain > weather
snow > weather
sunshine > weather
heat > weather
cold > weather
wind > weather
humidity > weather
storm > weather
season > time
summer > season
winter > season
spring > season
autumn > season
morning > time
early morning > morning
night > time
weekend > time
monday > weekday
weekday > time
# transport
transport > thing
car > transport
driving > transport
public transport > transport
bus > public transport
train > public transport
subway > public transport
bike > transport
plane > transport
"""

_SYNONYMS = {
    "e-mail": "email", "emails": "email", "mails": "mail", "film": "movie", "flick": "movie",
    "cinema": "movie", "television": "tv", "tv series": "tv show", "telly": "tv", "videogame": "video game",
    "video gaming": "video game", "gaming": "video game", "cellphone call": "phone call", "call": "phone call",
    "phone": "phone call", "texts": "text message", "text": "text message", "sms": "text message",
    "sweets": "sweet", "candies": "candy", "veggie": "vegetable", "veg": "vegetable", "kitty": "cat",
    "doggy": "dog", "pup": "puppy", "booze": "alcohol", "alcoholic drink": "alcohol", "coke": "cola",
    "pop music": "pop music", "autumn": "autumn", "fall": "autumn", "jog": "jogging", "run": "running",
    "swim": "swimming", "bicycle": "bike", "bicycling": "cycling", "biking": "cycling", "airplane": "plane",
    "aeroplane": "plane", "plane travel": "flying", "air travel": "flying", "theatre": "theater",
    "work meeting": "meeting", "mailing": "mail", "messaging": "instant messaging", "chat app": "messaging app",
}
"""Spellings of one concept, mapped to the table's word (after singular forms)."""
_WORD_SYNONYMS = {k: v for k, v in _SYNONYMS.items() if " " not in k + v}
"""The one-word ones, also replaced inside a longer phrase ("horror films" -> "horror movie")."""

_ARTICLE = re.compile(r"^(?:the|a|an|some|any|all|most|my|your|our|their|his|her)\s+")
_NON_WORD = re.compile(r"[^a-z0-9'\- ]+")
_KEEP_S = ("ss", "us", "is", "ics", "news", "series", "species", "chess", "sushi")


def _singular(word: str) -> str:
    """The word the table spells (``movies`` -> ``movie``, ``berries`` -> ``berry``), else English's
    usual rule; a word the table holds as it is stays (``brussels``, ``news``)."""
    if word in _WORDS or len(word) <= 3 or word.endswith(_KEEP_S):
        return word
    options = [word[:-1], word[:-2], word[:-3] + "y"] if word.endswith("s") else []
    for option in options:
        if option in _WORDS:
            return option
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word


def _parse(table: str) -> dict[str, tuple[str, ...]]:
    parents: dict[str, list[str]] = {}
    for line in table.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        child, parent = (part.strip() for part in line.split(">"))
        parents.setdefault(child, []).append(parent)
    return {child: tuple(ps) for child, ps in parents.items()}


PARENTS: dict[str, tuple[str, ...]] = _parse(_TABLE)
"""Each kind's direct parents (``PARENTS["newsletter"] == ("email",)``)."""
_KNOWN = frozenset(PARENTS) | frozenset(p for ps in PARENTS.values() for p in ps)
_WORDS = frozenset(w for phrase in (*_KNOWN, *_SYNONYMS) for w in phrase.split())


@lru_cache(maxsize=4096)
def key(phrase: str) -> str:
    """The table's spelling of a phrase: lowercase, no leading article or possessive, words singular,
    known synonyms replaced (``"The E-mails"`` -> ``"email"``)."""
    text = _NON_WORD.sub(" ", phrase.lower().replace("’", "'")).strip()
    while (bare := _ARTICLE.sub("", text)) != text:
        text = bare
    if text in _SYNONYMS:
        return _SYNONYMS[text]
    words = [_singular(w) for w in text.split()]
    joined = " ".join(_WORD_SYNONYMS.get(w, w) if len(words) > 1 else w for w in words)
    return _SYNONYMS.get(joined, joined)


def _ancestors(node: str) -> list[str]:
    seen: list[str] = []
    todo = list(PARENTS.get(node, ()))
    while todo:
        parent = todo.pop(0)
        if parent not in seen:
            seen.append(parent)
            todo.extend(PARENTS.get(parent, ()))
    return seen


def _head(phrase: str) -> str | None:
    """The longest ending of ``phrase`` (a key) the table knows, if shorter than the phrase."""
    words = phrase.split()
    for start in range(1, len(words)):
        tail = " ".join(words[start:])
        tail = _SYNONYMS.get(tail, tail)
        if tail in _KNOWN:
            return tail
    return None


def _up(node: str) -> tuple[str, ...]:
    """What ``node`` is a kind of, one step up: its parents in the table, else its known head."""
    if node in _KNOWN:
        return PARENTS.get(node, ())
    head = _head(node)
    return (head,) if head is not None else ()


@lru_cache(maxsize=4096)
def kinds(phrase: str) -> tuple[str, ...]:
    """What ``phrase`` is, nearest first: its key, then its longest ending the table knows (a phrase
    is a kind of its head: "email newsletters" -> "newsletter", but "hot dog" is in the table and no
    "dog") and that ending's parents. The generic roots ``thing``, ``time``, ``place`` are left out:
    they would relate anything."""
    start = key(phrase)
    found: list[str] = [start] if start else []
    todo = list(_up(start)) if start else []
    while todo:
        node = todo.pop(0)
        if node not in found and node not in _ROOTS:
            found.append(node)
            todo.extend(_up(node))
    return tuple(found)


@lru_cache(maxsize=4096)
def chain(narrow: str, broad: str) -> tuple[str, ...] | None:
    """The is-a chain from ``narrow`` up to ``broad`` (both keyed): ``("email newsletter",
    "newsletter", "email", "electronic communication")``; None when ``broad`` is not among
    :func:`kinds` of ``narrow`` or is the same thing."""
    start, goal = key(narrow), key(broad)
    if not start or not goal or start == goal or goal in _ROOTS:
        return None
    came: dict[str, str] = {start: ""}
    todo = [start]
    while todo:
        node = todo.pop(0)
        if node == goal:
            path = [node]
            while came[path[-1]]:
                path.append(came[path[-1]])
            return tuple(reversed(path))
        for parent in _up(node):
            if parent not in came:
                came[parent] = node
                todo.append(parent)
    return None


_ROOTS = frozenset({"thing", "time", "place"})
