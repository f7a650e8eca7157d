"""Word lists and lexical tables of English chat, read by the rule-based extractor.

Pure data: jobs, pets, relations, languages, names and sentence starters that are not names, words that
make a captured object unusable, the spelling/contraction tables, and the vocabulary of endings (what one
plays, quits, recovers from or leaves: ``extraction/_endings``). Nothing here depends on the rules, which
live in ``extraction/`` (``deterministic``, ``_endings``, ``_clauses``); every word set is built by the one
:func:`_words`.
"""

from __future__ import annotations

__all__ = [
    "ABSTRACT",
    "AGE_NOUN",
    "ACTIVITY_VERBS",
    "BAD_FIRST",
    "BAD_LAST",
    "BRITISH",
    "BUSINESSES",
    "COMPOUNDS",
    "CONDITIONS",
    "CONDITION_ADJECTIVES",
    "COND_HEADS",
    "CONSUMABLES",
    "CONTEXTUAL",
    "CONTRACTIONS",
    "COURSES",
    "DEGREES",
    "DIET_RE",
    "DWELLINGS",
    "FIELDS",
    "GERUNDS",
    "GOING",
    "GROUPS",
    "HABIT_GERUNDS",
    "HABIT_NOUNS",
    "HABIT_VERBS",
    "HOBBY_NOUNS",
    "IRREGULAR",
    "JOBS",
    "LANGS",
    "MEDICATIONS",
    "NAME_STOP",
    "NOT_JOBS",
    "NOT_JOB_WORDS",
    "NOT_NAMES",
    "NOT_HABIT_VERBS",
    "NOT_OWNED",
    "ORDINALS",
    "ORG_NOUNS",
    "PETS",
    "PET_RE",
    "PLACES",
    "PLAN_STOP",
    "PLAYABLE",
    "POSSESSIONS",
    "POSSESSIVE",
    "RELS",
    "REL_MODIFIERS",
    "REL_ALIASES",
    "REL_KINDS",
    "ROMANCE_WORDS",
    "SCHOOLS",
    "SERVICES",
    "SERVICE_PLACES",
    "STARTERS",
    "STOP_GERUNDS",
    "STUDENTS",
    "THING_ADJECTIVES",
    "THIRD_FORMS",
    "WORK_WORDS",
]


def _words(text: str) -> frozenset[str]:
    """The set of the space-separated words of ``text`` (a list reads as prose, diffs line by line)."""
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
    "psychiatrist psychologist dentist optometrist chemist biologist geologist linguist journalist postman "
    "postwoman solicitor barrister porter radiographer sonographer tester pm vp tech technologist orthodontist "
    "physio clerk handyman fireman binman milkman chairman trainee apprentice foreman builder plasterer roofer "
    "locksmith cleaner carer housekeeper"
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
    "tarantula retriever labrador lab poodle beagle terrier bulldog husky corgi dachshund shepherd spaniel collie pug "
    "chihuahua rottweiler greyhound schnauzer doodle labradoodle goldendoodle pomeranian mutt tabby "
    "siamese ragdoll budgies "
    "whippet lurcher "
    "kelpie newfoundland dalmatian greyhounds spaniels cockapoo cavapoo springer sheepdog pig "
    "hen hens chicken chickens duck ducks goat goats alpaca alpacas tortoises"
)
PET_RE = r"(?:" + "|".join(sorted(PETS, key=len, reverse=True)) + r")"
RELS = (
    r"(?:(?:best|older|younger|little|big|baby|twin|step|ex|late)[- ]?)?(?:(?:mother|father|brother|sister|son|"
    r"daughter)-in-law|in-laws|sister|brother|mom|mum|mother|dad|father|parents|wife|husband|partner|girlfriend|"
    r"boyfriend|fianc[eé]e?|son|daughter|kids|children|friend|mate|roommate|flatmate|housemate|coworker|co-worker|"
    r"colleague|boss|manager|neighbou?r|cousin|aunt|auntie|uncle|grandparents|grandkids|grandchildren|grandma|"
    r"grandmother|grandpa|grandfather|niece|"
    r"nephew|sibling|twin|spouse|gf|bf|hubby|sis|bro|nan|nana|gran|granny|grandad|granddad|stepmom|stepdad|"
    r"stepmum|stepson|stepdaughter)"
)
AGE_NOUN = r"\d{1,2}[- ]?(?:year|yr)[- ]old|\d{1,2} ?y/?o"
"""A child told by their age ("my 16 year old", "our 8-year-old")."""
REL_MODIFIERS = r"(?:(?:old|uni|university|school|college|work|childhood|oldest|dear|lovely|new) )*"
"""Words between "my" and a relation that do not change it ("my old uni friend Sam")."""
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
    "Also In At On The Very Really Still Now Glad Sure Bored Hungry Free Late New Well Home Out Gay Straight "
    "One Two Three Four Five Six Seven Eight Nine Ten Big Little Quick Small Long Huge Great Random"
)
STARTERS = _words(  # capitalised sentence starters that are not third-party names
    "I It This That There Here He She They We You What Who Why How When Where Which My Our Your His Her Their The "
    "A An And But So Also Just Actually Yes No Ok Okay Well Thanks Today Yesterday Tomorrow Now Then Everyone "
    "Everything Everybody Something Nothing Anything Anyone Somebody "
    "Someone Nobody People Maybe Sometimes Honestly Lately Recently Anyway Please Hi Hello Hey Sorry Oh Lol Sure "
    "Since After Before Once Last Next Every Both Monday Tuesday Wednesday Thursday Friday Saturday Sunday"
)
ORG_NOUNS = _words(
    "company startup start-up bank hospital clinic school university college agency firm restaurant store shop "
    "bakery cafe nonprofit non-profit charity lab studio factory hotel airline consultancy corporation business "
    "practice newspaper magazine museum library government council church ngo army navy military marines police "
    "centre center office branch warehouse infirmary surgery pharmacy bistro pub bar cafe café garage salon"
)
BAD_FIRST = _words(
    "it its them this that these those him her hers you your yours me myself us one ones something anything "
    "everything nothing someone anyone everyone nobody stuff what which who whom how why when where there here so "
    "not no for about with at in on by from of as than very too more less much and or but if because again yet all "
    "both some any such i we they he she being doing lot to up out off"
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

# --------------------------------------------------------------------------- endings and activities
PLAYABLE = _words(
    "piano guitar violin cello drums flute bass saxophone sax trumpet ukulele clarinet harp keyboard keyboards "
    "banjo trombone accordion harmonica viola oboe organ mandolin tennis football soccer basketball baseball "
    "volleyball golf rugby cricket hockey badminton squash padel handball softball lacrosse pickleball chess "
    "poker bridge darts pool snooker billiards bowling netball polo"
) | {"table tennis", "ping pong", "water polo", "video games", "board games", "ice hockey", "electric guitar",
     "bass guitar", "the drums", "dungeons and dragons", "d&d", "cards"}
"""Instruments and games one *plays* (``plays``), not a hobby one does."""
HABIT_NOUNS = _words(
    "smoking vaping drinking gambling coffee caffeine alcohol sugar soda cigarettes meat dairy booze weed snacking "
    "fasting"
) | {"junk food", "fast food", "energy drinks", "nail biting", "red meat", "intermittent fasting"}
"""What one quits as a habit (``habit``): "I quit smoking", "I gave up sugar"."""
HABIT_GERUNDS = _words("smoking vaping drinking gambling eating snacking biting chewing")
"""The first word of a habit phrase ("eating meat", "biting my nails")."""
HOBBY_NOUNS = _words(
    "yoga pilates crossfit pottery photography karate judo boxing ballet salsa meditation gardening knitting "
    "crochet climbing bouldering painting origami calligraphy woodworking archery fencing kickboxing taekwondo "
    "parkour zumba triathlon triathlons marathons running cycling swimming hiking surfing skiing snowboarding "
    "skateboarding sewing baking cooking birdwatching fishing hunting dancing jogging rowing sailing tango "
    "scrapbooking embroidery quilting journaling blogging podcasting gaming"
) | {"tai chi", "martial arts", "rock climbing", "the gym", "ballroom dancing"}
"""What one takes up or gives up as a hobby (``hobby``)."""
STOP_GERUNDS = _words(
    "being thinking trying working getting feeling saying talking hoping wondering planning looking using having "
    "making taking going coming doing living seeing telling asking waiting caring worrying"
)
"""Words in -ing that are not an activity ("I stopped worrying" ends no hobby)."""
GERUNDS = {
    "run": "running", "swim": "swimming", "jog": "jogging", "knit": "knitting", "shop": "shopping",
    "skate": "skating", "ride": "riding", "dance": "dancing", "bike": "biking", "hike": "hiking", "bake": "baking",
    "write": "writing", "vape": "vaping", "smoke": "smoking", "surf": "surfing", "ski": "skiing", "sing": "singing",
    "draw": "drawing", "paint": "painting", "play": "playing", "drink": "drinking", "eat": "eating", "do": "doing",
    "practise": "practising", "practice": "practicing", "learn": "learning", "study": "studying", "cook": "cooking",
    "climb": "climbing", "fish": "fishing", "hunt": "hunting", "sew": "sewing", "garden": "gardening",
    "gamble": "gambling", "cycle": "cycling", "box": "boxing", "row": "rowing", "sail": "sailing",
    "meditate": "meditating", "crochet": "crocheting", "gym": "going to the gym", "game": "gaming",
}
"""A verb after "no longer" / "used to" -> the activity it names ("I used to run" -> running)."""
THIRD_FORMS = {"does": "do", "goes": "go", "boxes": "box", "fishes": "fish", "practises": "practise",
                "practices": "practice", "studies": "study"}
"""Third-person forms whose base is not the form minus its ``s`` ("studies" -> "study")."""
CONDITIONS = _words(
    "asthma diabetes covid covid-19 flu cold cancer migraine migraines depression anxiety pneumonia bronchitis "
    "arthritis eczema psoriasis adhd insomnia tinnitus mono shingles chickenpox measles hypertension epilepsy "
    "lupus anemia anaemia acne sciatica vertigo endometriosis ptsd ocd celiac coeliac gout hepatitis "
    "tuberculosis malaria sinusitis tonsillitis fever concussion whiplash burnout"
) | {"long covid", "strep throat", "high blood pressure", "a cold", "the flu", "food poisoning", "crohn's",
     "crohn's disease", "an ear infection"}
"""Illnesses and conditions one has or recovers from (``has_condition``)."""
GOING = {"to the gym", "to church", "to the pool", "to classes", "to dance classes", "to the climbing gym"}
"""Where one "goes" as a hobby ("I stopped going to the gym")."""
DEGREES = _words("phd ba ma bsc msc mba master's bachelor's degree diploma doctorate")
"""Degrees: "I finished my master's" ends studies, it is no thing owned."""
COND_HEADS = _words("pain injury infection disease syndrome disorder fracture ache aches leg arm wrist ankle knee")
"""Last words that make a phrase a condition ("knee injury", "back pain")."""
ABSTRACT = _words(
    "time money energy patience job chance idea interest hope faith weight mind temper voice way clue choice "
    "option reason excuse problem problems issue issues feeling feelings opinion plan plans life friends"
)
"""Last words of things one "lost" or "gave up" that are not possessions ("my patience")."""
PLACES = _words(
    "london paris berlin madrid rome milan lisbon porto barcelona amsterdam brussels vienna prague warsaw "
    "budapest dublin edinburgh glasgow manchester liverpool leeds bristol birmingham oxford cambridge oslo "
    "stockholm copenhagen helsinki athens istanbul moscow kyiv zurich geneva munich hamburg frankfurt cologne "
    "lyon marseille nice seville sevilla valencia naples florence venice tokyo osaka kyoto seoul beijing "
    "shanghai singapore bangkok manila jakarta delhi mumbai bangalore karachi dubai cairo lagos nairobi "
    "johannesburg sydney melbourne brisbane perth auckland toronto vancouver montreal ottawa calgary chicago "
    "boston seattle austin denver portland miami atlanta dallas houston phoenix philadelphia brooklyn "
    "manhattan detroit nashville sf la nyc mexico bogota lima santiago buenos aires sao rio "
    "england scotland wales ireland france germany spain italy portugal netherlands holland belgium austria "
    "switzerland sweden norway denmark finland poland greece turkey russia ukraine japan china korea india "
    "pakistan australia canada brazil argentina chile peru colombia egypt nigeria kenya usa us uk america "
    "europe asia africa texas california florida ohio"
) | {"new york", "san francisco", "los angeles", "new zealand", "south africa", "hong kong", "tel aviv",
     "the us", "the uk", "the states", "new jersey", "washington", "mexico city", "rio de janeiro"}
"""Cities, countries and regions: "I left London" is a move, not a job."""
DIET_RE = r"(?:vegetarian|vegan|pescatarian|pescetarian|flexitarian|keto|paleo|gluten[- ]free|kosher|halal)"
"""A diet, as a regular expression alternation (``diet``)."""
REL_KINDS = {
    "sister": "sibling", "brother": "sibling", "sibling": "sibling", "twin": "sibling", "mom": "parent",
    "mum": "parent", "mother": "parent", "dad": "parent", "father": "parent", "son": "child", "daughter": "child",
    "wife": "spouse", "husband": "spouse", "spouse": "spouse", "partner": "partner", "girlfriend": "partner",
    "boyfriend": "partner", "fiance": "partner", "fiancé": "partner", "fiancee": "partner", "fiancée": "partner",
    "friend": "friend", "roommate": "roommate", "flatmate": "roommate", "housemate": "roommate",
    "coworker": "coworker", "co-worker": "coworker", "colleague": "coworker", "boss": "boss", "manager": "boss",
    "neighbor": "neighbor", "neighbour": "neighbor", "cousin": "cousin", "aunt": "relative", "uncle": "relative",
    "niece": "relative", "nephew": "relative", "grandma": "grandparent", "grandmother": "grandparent",
    "grandpa": "grandparent", "grandfather": "grandparent", "mother-in-law": "relative",
    "father-in-law": "relative", "brother-in-law": "relative", "sister-in-law": "relative",
    "son-in-law": "relative", "daughter-in-law": "relative", "stepmom": "parent", "stepdad": "parent",
    "stepmum": "parent", "stepson": "child", "stepdaughter": "child", "auntie": "relative", "mate": "friend",
    "nan": "grandparent", "nana": "grandparent", "gran": "grandparent", "granny": "grandparent",
    "grandad": "grandparent", "granddad": "grandparent", "gf": "partner", "bf": "partner", "hubby": "spouse",
    "child": "child", "kid": "child",
}
"""A relation word -> its kind (``<kind>_of``): "brother" -> sibling, "boss" -> boss."""

# ------------------------------------------------------------------------------- capture: things held
POSSESSIONS = _words(
    "car cars van campervan camper caravan motorhome rv truck pickup jeep suv hatchback estate saloon sedan coupe "
    "convertible minivan motorbike motorcycle moped scooter vespa bike bicycle ebike e-bike tandem unicycle "
    "boat sailboat yacht dinghy canoe kayak narrowboat widebeam barge catamaran jetski "
    "piano keyboard guitar violin viola cello bass drum drums kit ukulele saxophone trumpet flute clarinet harp "
    "synth synthesizer turntable turntables "
    "phone smartphone iphone laptop macbook computer pc desktop tablet ipad kindle e-reader console playstation "
    "xbox switch camera drone smartwatch watch printer tv television projector "
    "house flat apartment condo cottage bungalow terrace semi studio cabin farmhouse townhouse maisonette "
    "allotment garden plot farm vineyard shed garage treehouse "
    "cart stall truck shop cafe bakery restaurant bar pub salon studio business company startup"
) | {"food truck", "coffee cart", "road bike", "mountain bike", "electric car", "electric bike"}
"""Heads of nouns that name something one owns, drives, rides or keeps (``owns``)."""
DWELLINGS = _words(
    "house flat apartment condo cottage bungalow terrace semi studio cabin farmhouse townhouse maisonette bedsit "
    "place home room narrowboat widebeam houseboat loft penthouse duplex 1-bed 2-bed 3-bed 4-bed one-bed two-bed "
    "three-bed four-bed houseshare flatshare"
)
"""Heads of nouns that name a home: "we rent a 2-bed in Walthamstow" says where one lives."""
BUSINESSES = _words(
    "cart stall truck shop cafe café bakery restaurant bar pub salon business company startup agency firm studio "
    "bistro brewery boutique practice clinic gym nursery farm vineyard bookshop bookstore store label consultancy "
    "takeaway chippy kiosk stand market van"
)
"""Heads of nouns that name a business one runs or owns ("I run a little coffee cart called Bean There")."""
GROUPS = _words(
    "club choir band orchestra team squad league society crew group circle troupe ensemble quartet trio "
    "chorus collective guild union association committee gym fitness crossfit wall"
) | {"book club", "running club", "climbing wall", "climbing gym", "leisure centre", "sports club"}
"""Heads of nouns (or a word of a name: "PureGym", "Anytime Fitness") that make a membership (``member_of``)."""
SCHOOLS = _words(
    "school primary academy college university uni nursery kindergarten preschool sixth form polytechnic "
    "institute conservatoire conservatory seminary eth mit ucl lse"
) | {"sixth form"}
"""Words that make an organisation a place of study (``studies_at``): "started reception at Oakfield Primary"."""
COURSES = _words(
    "phd doctorate degree masters master's ma msc mba ba bsc bachelor's course apprenticeship diploma "
    "foundation a-levels gcses thesis dissertation residency fellowship postdoc"
)
"""What one studies for: "started my PhD at ETH Zurich" is studies, not a job."""
SERVICES = _words(
    "broadband internet wifi provider network carrier energy supplier bank insurer insurance mortgage "
    "phone mobile contract plan subscription isp"
)
"""Nouns of a service one uses: "our broadband is Virgin Media" -> ``uses``."""
SERVICE_PLACES = SERVICES | _words("surgery practice clinic pharmacy app account card membership branch store shop "
                                   "office team")
"""Nouns after a name that make it a service or a place one uses, not a thing one owns ("my GP surgery",
"my Tesco app", "my Monzo account")."""
THING_ADJECTIVES = _words(
    "old new little tiny small big huge ancient trusty beloved battered used second-hand secondhand vintage "
    "classic lovely beautiful gorgeous massive rescue adopted elderly young sweet senior ginger black white "
    "grey gray brown red blue green silver tabby fluffy leased current first own"
)
"""Adjectives dropped from the front of a held thing ("an old upright piano" -> "upright piano")."""
NOT_OWNED = _words(
    "question problem idea feeling meeting appointment interview exam test deadline call chance plan offer "
    "headache cold fever cough baby bump doubt dream job life family lot bit minute moment second day week "
    "month year time break holiday vacation trip party date dinner lunch breakfast meal drink coffee beer "
    "tea glass cup bottle go look try point reason sense thing way"
)
"""Things one "has" or "got" that are not possessions ("I have a question", "got a cold")."""
HABIT_VERBS = {"smoke": "smoking", "vape": "vaping", "drink": "drinking", "chew": "chewing", "gamble": "gambling"}
"""Verbs that name a habit on their own ("I smoke about ten a day" -> ``habit smoking``)."""
CONSUMABLES = _words(
    "coffee coffees espresso espressos latte lattes cappuccino cappuccinos flat tea teas cup cups mug mugs shot "
    "shots pint pints glass glasses beer beers wine can cans soda sodas coke cokes energy cigarette cigarettes "
    "cigs fag fags smoke smokes joint joints pill pills vitamin vitamins snack snacks biscuit biscuits "
    "americano americanos cortado cortados drink drinks bottle bottles litre litres liters water"
)
"""Heads of what one has, drinks or smokes so many of a day ("two double espressos every morning")."""
ACTIVITY_VERBS = {
    "run": "running", "swim": "swimming", "cycle": "cycling", "climb": "climbing", "boulder": "bouldering",
    "hike": "hiking", "jog": "jogging", "row": "rowing", "surf": "surfing", "skate": "skating", "ski": "skiing",
    "box": "boxing", "dance": "dancing", "lift": "lifting weights", "meditate": "meditation", "sail": "sailing",
    "knit": "knitting", "paint": "painting", "bake": "baking", "garden": "gardening", "fish": "fishing",
    "walk": "walking", "skateboard": "skateboarding", "snowboard": "snowboarding",
}
"""Activity verbs and the hobby they name ("I run 5k most mornings" -> ``hobby running``)."""
MEDICATIONS = _words(
    "insulin metformin sertraline citalopram fluoxetine prozac zoloft lexapro escitalopram venlafaxine "
    "propranolol levothyroxine thyroxine statins statin atorvastatin simvastatin lisinopril amlodipine ramipril "
    "warfarin apixaban aspirin ibuprofen paracetamol adderall ritalin concerta elvanse methylphenidate "
    "lamotrigine lithium melatonin inhaler ventolin omeprazole lansoprazole antidepressants antihistamines "
    "hrt ozempic wegovy mounjaro prednisolone prednisone accutane isotretinoin champix"
)
"""Medicines: "I take sertraline", "I'm on Ozempic" -> ``takes_medication``."""
KIN_SYNONYMS: tuple[frozenset[str], ...] = tuple(frozenset(g.split()) for g in (
    "mom mum mother mam mommy mummy", "dad father daddy", "gran granny grandma grandmother nan nana nanna",
    "grandad granddad grandpa grandfather"))
"""Words that name one relative ("mum" / "mother" / "mom"): an entity created as one is found by each."""
REL_ALIASES = {
    "gf": "girlfriend", "bf": "boyfriend", "hubby": "husband", "sis": "sister", "bro": "brother",
    "mil": "mother-in-law", "fil": "father-in-law",
    "best mate": "best friend",
}
"""Short or colloquial relation words -> the relation they name ("my gf Priya" -> girlfriend)."""
IRREGULAR = {
    "teach": ("taught", "taught"), "drive": ("drove", "driven"), "ride": ("rode", "ridden"),
    "run": ("ran", "run"), "buy": ("bought", "bought"), "get": ("got", "gotten"), "have": ("had", "had"),
    "keep": ("kept", "kept"), "sing": ("sang", "sung"), "swim": ("swam", "swum"), "go": ("went", "gone"),
    "leave": ("left", "left"), "take": ("took", "taken"), "pay": ("paid", "paid"), "sell": ("sold", "sold"),
    "lead": ("led", "led"), "build": ("built", "built"), "begin": ("began", "begun"), "eat": ("ate", "eaten"),
    "drink": ("drank", "drunk"), "bring": ("brought", "brought"), "find": ("found", "found"),
    "land": ("landed", "landed"), "win": ("won", "won"), "make": ("made", "made"), "do": ("did", "done"),
    "transfer": ("transferred", "transferred"), "rescue": ("rescued", "rescued"),
    "inherit": ("inherited", "inherited"), "lease": ("leased", "leased"),
}
"""Past tense and past participle of the irregular verbs of the capture frames."""
FIELDS = _words(
    "medicine law nursing engineering physics chemistry biology maths math mathematics economics history philosophy "
    "psychology sociology architecture accounting finance marketing dentistry pharmacy linguistics literature "
    "english geography politics journalism teaching midwifery veterinary neuroscience statistics"
) | {"computer science", "data science", "mechanical engineering", "civil engineering", "electrical engineering"}
"""Fields of study or work: "I switched to medicine" is studies, not a product used."""
CONDITION_ADJECTIVES = {
    "diabetic": "diabetes", "type 1 diabetic": "type 1 diabetes", "type 2 diabetic": "type 2 diabetes",
    "asthmatic": "asthma", "epileptic": "epilepsy", "coeliac": "coeliac disease", "celiac": "celiac disease",
    "anaemic": "anaemia", "anemic": "anemia", "dyslexic": "dyslexia", "autistic": "autism",
    "bipolar": "bipolar disorder", "lactose intolerant": "lactose intolerance",
    "gluten intolerant": "gluten intolerance", "hypertensive": "hypertension", "insomniac": "insomnia",
    "arthritic": "arthritis", "pregnant": "pregnant",  # a state, said as the speaker says it
}
"""Adjectives that state a condition: "I'm diabetic" -> ``has_condition diabetes``."""
WORK_WORDS = _words(
    "job jobs work working worked shift shifts boss manager colleague colleagues coworker coworkers co-worker "
    "office role position promotion promoted notice hired employer career salary payroll contract rota interview "
    "resigned resignation redundant redundancy"
) | {"last day", "first day", "first week", "new place", "handed in", "let go", "laid off"}
"""Words of a turn that talks about work: "I'm at Monmouth Coffee now" there names a workplace."""
ROMANCE_WORDS = _words(
    "date dates dated dating boyfriend girlfriend bf gf partner relationship romantic romance anniversary ex "
    "dumped crush fiance fiancee fiancé fiancée single"
) | {"broke up", "split up", "ended things", "seeing someone", "moved in together", "out of the picture"}
"""Words of a turn that talks about a relationship: "I've been with Sam for months" there names a partner."""
NOT_HABIT_VERBS = _words(
    "went came saw met took gave got made bought sold sent spent left found told said heard thought felt kept ran "
    "sat stood wrote drove rode ate drank slept woke broke chose fell flew forgot hid hit lost paid put read rang "
    "sang spoke stole swam threw understood won wore caught brought taught fought began did was were had "
    "withdrew drew knew grew blew froze bore tore swore sank shrank became overcame forgave lay hung dug stuck "
    "struck shook built lent bent meant dealt dreamt slept swept wept fed led fled held bound ground wound laid "
    "shot lit slid bit quit split moved start starts begin begins finish finishes "
    "am is are be been has have do does can could will would shall should may might must "
    "mean guess suppose reckon bet agree promise swear doubt believe expect understand assume imagine "
    "remind ask tell let apologise apologize bought")
"""A past (irregular: "I met Jo at Costa") or a verb of saying and supposing ("I guess at Christmas"): a simple
present of these tells no habit."""
