"""The lexicon of the child's-world corpus: nouns, verbs and their frames, with Zipf-like weights."""

# ---------------------------------------------------------------------------------------------------
# AMBIGCHILD: the world's tables

# Nouns: (symbol, tags, words). The first tag is the noun's category; inside a category the nouns are
# listed from the most to the least frequent and the k-th is drawn with weight 1/k (Zipf's law). The
# other tags say which verbs take it (see the verbs' argument tags below). A noun's first word is its
# usual name (said 60% of the time), the others synonyms.
_CHILD_NOUNS = (
    # people
    ("mother", "hum", ("mommy", "mom", "mother")),
    ("father", "hum", ("daddy", "dad", "father")),
    ("baby", "hum", ("baby",)),
    ("girl", "hum", ("girl",)),
    ("boy", "hum", ("boy",)),
    ("grandma", "hum", ("grandma", "granny")),
    ("sister", "hum", ("sister",)),
    ("brother", "hum", ("brother",)),
    ("grandpa", "hum", ("grandpa",)),
    ("friend", "hum", ("friend",)),
    ("teacher", "hum", ("teacher",)),
    ("man", "hum", ("man",)),
    ("lady", "hum", ("lady", "woman")),
    ("doctor", "hum", ("doctor",)),
    ("aunt", "hum", ("aunt",)),
    ("uncle", "hum", ("uncle",)),
    ("farmer", "hum", ("farmer",)),
    ("clown", "hum", ("clown",)),
    # animals
    ("dog", "ani move swim", ("dog", "doggie")),
    ("cat", "ani move", ("cat", "kitty")),
    ("bird", "ani move sing", ("bird", "birdie")),
    ("fish", "ani swim", ("fish",)),
    ("duck", "ani move swim", ("duck",)),
    ("puppy", "ani move", ("puppy",)),
    ("horse", "ani move", ("horse",)),
    ("cow", "ani", ("cow",)),
    ("bunny", "ani move", ("bunny", "rabbit")),
    ("pig", "ani", ("pig",)),
    ("kitten", "ani move", ("kitten",)),
    ("mouse", "ani move", ("mouse",)),
    ("frog", "ani move swim", ("frog",)),
    ("bear", "ani", ("bear",)),
    ("sheep", "ani", ("sheep",)),
    ("monkey", "ani move", ("monkey",)),
    ("chicken", "ani move", ("chicken",)),
    ("lion", "ani", ("lion",)),
    ("goat", "ani", ("goat",)),
    ("elephant", "ani", ("elephant",)),
    ("turtle", "ani swim", ("turtle",)),
    ("tiger", "ani", ("tiger",)),
    # food (the mass nouns take "the" or "some", never "a")
    ("cookie", "food throw", ("cookie",)),
    ("apple", "food throw wash", ("apple",)),
    ("banana", "food throw", ("banana",)),
    ("cake", "food", ("cake",)),
    ("bread", "food", ("bread",)),
    ("cheese", "food", ("cheese",)),
    ("egg", "food break", ("egg",)),
    ("carrot", "food wash", ("carrot",)),
    ("orange", "food throw", ("orange",)),
    ("candy", "food", ("candy",)),
    ("cracker", "food break", ("cracker",)),
    ("sandwich", "food", ("sandwich",)),
    ("soup", "food", ("soup",)),
    ("grape", "food wash", ("grape",)),
    ("pizza", "food", ("pizza",)),
    ("cereal", "food", ("cereal",)),
    ("pear", "food wash", ("pear",)),
    ("pie", "food", ("pie",)),
    ("peach", "food wash", ("peach",)),
    ("sausage", "food", ("sausage",)),
    # drinks
    ("milk", "drink", ("milk",)),
    ("juice", "drink", ("juice",)),
    ("water", "drink", ("water",)),
    ("tea", "drink", ("tea",)),
    ("lemonade", "drink", ("lemonade",)),
    # toys
    ("ball", "toy throw kick move", ("ball",)),
    ("doll", "toy soft throw wash break", ("doll",)),
    ("block", "toy throw kick", ("block",)),
    ("truck", "toy move wash break", ("truck",)),
    ("car", "toy move wash break", ("car",)),
    ("teddy", "toy soft throw wash", ("teddy",)),
    ("train", "toy move break", ("train",)),
    ("balloon", "toy throw kick move break", ("balloon",)),
    ("puzzle", "toy break", ("puzzle",)),
    ("kite", "toy move break", ("kite",)),
    ("crayon", "toy throw break", ("crayon",)),
    ("drum", "toy break", ("drum",)),
    ("boat", "toy move break", ("boat",)),
    ("plane", "toy throw move break", ("plane",)),
    ("puppet", "toy soft", ("puppet",)),
    ("robot", "toy break", ("robot",)),
    # things to read
    ("book", "read open", ("book",)),
    ("story", "read", ("story",)),
    ("letter", "read open", ("letter",)),
    ("card", "read open", ("card",)),
    ("newspaper", "read", ("newspaper",)),
    # household things
    ("cup", "obj wash break", ("cup",)),
    ("hat", "obj throw wash", ("hat",)),
    ("shoe", "obj throw wash", ("shoe",)),
    ("spoon", "obj wash", ("spoon",)),
    ("box", "obj open kick break", ("box",)),
    ("blanket", "obj soft wash", ("blanket",)),
    ("bowl", "obj wash break", ("bowl",)),
    ("sock", "obj throw wash", ("sock",)),
    ("bottle", "obj open wash break", ("bottle",)),
    ("plate", "obj wash break", ("plate",)),
    ("bag", "obj open", ("bag",)),
    ("coat", "obj wash", ("coat",)),
    ("pillow", "obj soft throw wash", ("pillow",)),
    ("shirt", "obj wash", ("shirt",)),
    ("key", "obj throw", ("key",)),
    ("door", "obj open", ("door",)),
    ("window", "obj open break", ("window",)),
    ("chair", "obj break", ("chair",)),
    ("towel", "obj wash", ("towel",)),
    ("flower", "obj", ("flower",)),
    ("phone", "obj break", ("phone",)),
    ("stick", "obj throw break", ("stick",)),
    ("rock", "obj throw kick", ("rock",)),
    ("basket", "obj open", ("basket",)),
    ("fork", "obj wash", ("fork",)),
    ("bucket", "obj kick", ("bucket",)),
    ("leaf", "obj throw", ("leaf",)),
    ("umbrella", "obj open break", ("umbrella",)),
    ("comb", "obj", ("comb",)),
    # places: said only as a location, after one of their prepositions
    ("park", "place", ("park",)),
    ("kitchen", "place", ("kitchen",)),
    ("garden", "place", ("garden",)),
    ("house", "place", ("house",)),
    ("bed", "place", ("bed",)),
    ("home", "place", ("home",)),
    ("yard", "place", ("yard",)),
    ("floor", "place", ("floor",)),
    ("table", "place", ("table",)),
    ("bedroom", "place", ("bedroom",)),
    ("school", "place", ("school",)),
    ("bathroom", "place", ("bathroom",)),
    ("sofa", "place", ("sofa",)),
    ("tree", "place", ("tree",)),
    ("store", "place", ("store",)),
    ("beach", "place", ("beach",)),
    ("pool", "place", ("pool",)),
    ("farm", "place", ("farm",)),
    ("zoo", "place", ("zoo",)),
)
# the prepositions of each place (the first is the usual one), and the places said without "the"
_CHILD_PLACE_PREPS = {
    "park": ("in", "at"), "kitchen": ("in",), "garden": ("in",), "house": ("in",), "bed": ("in", "on"),
    "home": ("at",), "yard": ("in",), "floor": ("on",), "table": ("on", "under"), "bedroom": ("in",),
    "school": ("at",), "bathroom": ("in",), "sofa": ("on",), "tree": ("under", "in"), "store": ("at", "in"),
    "beach": ("at", "on"), "pool": ("in", "at"), "farm": ("on", "at"), "zoo": ("at",),
}
_CHILD_BARE_PLACES = frozenset({"home", "school"})
_CHILD_NAMES = frozenset({"mommy", "mom", "daddy", "dad", "grandma", "granny", "grandpa"})
_CHILD_MASS = frozenset({"bread", "cheese", "candy", "soup", "cereal", "milk", "juice", "water", "tea", "lemonade"})
# adjectives are not in the MR language: they align to "-", like determiners
_CHILD_ADJECTIVES_LIVING = ("little", "big", "happy", "hungry", "sleepy", "silly")
_CHILD_ADJECTIVES_THINGS = ("little", "big", "red", "blue", "green", "yellow", "new")
_CHILD_ADJECTIVES_FOOD = ("little", "big", "hot", "cold", "yummy")
_CHILD_FUNCTION_WORDS = ("the", "a", "an", "some", "that", "to", "and", "in", "on", "at", "under", "with", "by",
                         "is", "was")

# Verbs, from the most to the least frequent (the k-th drawn with weight 1/k among the verbs that fit):
# (symbol = base form, (third person, past, -ing form or None if never progressive, past participle or
# None if never passive), frames). A frame is (kind, A0 tags, A1 tags, A2 tags); kinds:
#   "intr" S V [LOC]                 "tr"   S V O [LOC], or O is/was V-ed by S [LOC]
#   "with" S V with O [LOC]          "ditr" S V O to R [LOC], or S V R O [LOC]
#   "that" S V [that] CLAUSE         "tell" S V R [that] CLAUSE
#   "inf"  S V X to VP  (X is the subject of the infinitive's clause, not an argument of V)
# A "that", "tell" or "inf" verb's A1 is the REL symbol of its complement clause's MR.
_AGENT = "hum ani"
_THING = "food drink toy read obj"
_CHILD_VERBS = (
    ("eat", ("eats", "ate", "eating", "eaten"), (("tr", _AGENT, "food", None),)),
    ("want", ("wants", "wanted", None, None), (("tr", _AGENT, "food drink toy", None), ("inf", "hum", None, None))),
    ("see", ("sees", "saw", None, "seen"), (("tr", _AGENT, _AGENT + " " + _THING, None), ("that", "hum", None, None))),
    ("give", ("gives", "gave", "giving", "given"), (("ditr", "hum", _THING, _AGENT),)),
    ("play", ("plays", "played", "playing", None), (("intr", _AGENT, None, None), ("with", _AGENT, "toy", None))),
    ("like", ("likes", "liked", None, None), (("tr", _AGENT, _AGENT + " " + _THING, None),)),
    ("take", ("takes", "took", "taking", "taken"), (("tr", _AGENT, _THING, None),)),
    ("think", ("thinks", "thought", None, None), (("that", "hum", None, None),)),
    ("sleep", ("sleeps", "slept", "sleeping", None), (("intr", _AGENT, None, None),)),
    ("drink", ("drinks", "drank", "drinking", "drunk"), (("tr", _AGENT, "drink", None),)),
    ("chase", ("chases", "chased", "chasing", "chased"), (("tr", _AGENT, "move", None),)),
    ("say", ("says", "said", "saying", None), (("that", "hum", None, None),)),
    ("throw", ("throws", "threw", "throwing", "thrown"), (("tr", "hum", "throw", None),
                                                         ("ditr", "hum", "throw", _AGENT))),
    ("hug", ("hugs", "hugged", "hugging", "hugged"), (("tr", "hum", _AGENT + " soft", None),)),
    ("know", ("knows", "knew", None, None), (("that", "hum", None, None),)),
    ("read", ("reads", "read", "reading", "read"), (("tr", "hum", "read", None), ("ditr", "hum", "read", "hum"))),
    ("run", ("runs", "ran", "running", None), (("intr", _AGENT, None, None),)),
    ("find", ("finds", "found", "finding", "found"), (("tr", _AGENT, "ani " + _THING, None),)),
    ("bring", ("brings", "brought", "bringing", "brought"), (("ditr", "hum", _THING, _AGENT),)),
    ("push", ("pushes", "pushed", "pushing", "pushed"), (("tr", _AGENT, _AGENT + " toy kick", None),)),
    ("kiss", ("kisses", "kissed", "kissing", "kissed"), (("tr", "hum", _AGENT, None),)),
    ("cry", ("cries", "cried", "crying", None), (("intr", "hum", None, None),)),
    ("tell", ("tells", "told", "telling", None), (("tell", "hum", None, "hum"),)),
    ("wash", ("washes", "washed", "washing", "washed"), (("tr", "hum", _AGENT + " wash", None),)),
    ("break", ("breaks", "broke", "breaking", "broken"), (("tr", _AGENT, "break", None),)),
    ("jump", ("jumps", "jumped", "jumping", None), (("intr", _AGENT, None, None),)),
    ("hold", ("holds", "held", "holding", "held"), (("tr", "hum", "ani " + _THING, None),)),
    ("drop", ("drops", "dropped", "dropping", "dropped"), (("tr", "hum", _THING, None),)),
    ("show", ("shows", "showed", "showing", "shown"), (("ditr", "hum", "ani " + _THING, _AGENT),)),
    ("laugh", ("laughs", "laughed", "laughing", None), (("intr", "hum", None, None),)),
    ("believe", ("believes", "believed", None, None), (("that", "hum", None, None),)),
    ("kick", ("kicks", "kicked", "kicking", "kicked"), (("tr", _AGENT, "kick", None),)),
    ("catch", ("catches", "caught", "catching", "caught"), (("tr", _AGENT, "throw ani", None),)),
    ("open", ("opens", "opened", "opening", "opened"), (("tr", "hum", "open", None),)),
    ("sit", ("sits", "sat", "sitting", None), (("intr", _AGENT, None, None),)),
    ("bite", ("bites", "bit", "biting", "bitten"), (("tr", "ani", _AGENT + " food toy", None),)),
    ("carry", ("carries", "carried", "carrying", "carried"), (("tr", "hum", "ani " + _THING + " hum", None),)),
    ("sing", ("sings", "sang", "singing", None), (("intr", "hum sing", None, None),)),
    ("fall", ("falls", "fell", "falling", None), (("intr", _AGENT, None, None),)),
    ("ask", ("asks", "asked", None, None), (("inf", "hum", None, None),)),
    ("draw", ("draws", "drew", "drawing", "drawn"), (("tr", "hum", _AGENT + " toy obj", None),)),
    ("close", ("closes", "closed", "closing", "closed"), (("tr", "hum", "open", None),)),
    ("hope", ("hopes", "hoped", None, None), (("that", "hum", None, None),)),
    ("walk", ("walks", "walked", "walking", None), (("intr", _AGENT, None, None),)),
    ("swim", ("swims", "swam", "swimming", None), (("intr", "hum swim", None, None),)),
    ("feed", ("feeds", "fed", "feeding", "fed"), (("tr", "hum", _AGENT, None),)),
    ("dance", ("dances", "danced", "dancing", None), (("intr", "hum", None, None),)),
    ("fix", ("fixes", "fixed", "fixing", "fixed"), (("tr", "hum", "break", None),)),
    ("hide", ("hides", "hid", "hiding", "hidden"), (("intr", _AGENT, None, None),
                                                   ("tr", _AGENT, "ani " + _THING, None))),
    ("lick", ("licks", "licked", "licking", "licked"), (("tr", "ani hum", "food hum ani", None),)),
)
_CLAUSE_KINDS = frozenset({"that", "tell", "inf"})
# the probability that a clause of each kind says its (optional) location
_CHILD_LOC_P = {"intr": 0.4, "with": 0.25, "tr": 0.15, "ditr": 0.1}
# the number of RELs of a sentence: 1, 2, 3 or 4 with these probabilities
_CHILD_N_RELS = (1, 2, 3, 4)
_CHILD_N_RELS_CUM = (0.45, 0.75, 0.92, 1.0)


def _child_tables():
    """The AMBIGCHILD world in look-up form, computed once."""
    tags, words, weight = {}, {}, {}
    rank = {}
    for symbol, tag_text, names in _CHILD_NOUNS:
        tag_list = tag_text.split()
        category = tag_list[0]
        rank[category] = rank.get(category, 0) + 1
        tags[symbol] = frozenset(tag_list)
        words[symbol] = names
        weight[symbol] = 1.0 / rank[category]
    verb_weight = {v[0]: 1.0 / (k + 1) for k, v in enumerate(_CHILD_VERBS)}
    return tags, words, weight, verb_weight


_CN_TAGS, _CN_WORDS, _CN_WEIGHT, _CV_WEIGHT = _child_tables()
_CV_FORMS = {v[0]: v[1] for v in _CHILD_VERBS}
_CHILD_PLACES = tuple(s for s, t, _ in _CHILD_NOUNS if t == "place")
_ADJECTIVES_OF = {"hum": _CHILD_ADJECTIVES_LIVING, "ani": _CHILD_ADJECTIVES_LIVING, "food": _CHILD_ADJECTIVES_FOOD,
                  "drink": _CHILD_ADJECTIVES_FOOD}
# the adjectives a noun may take, by its category
_CN_ADJECTIVES = {s: _ADJECTIVES_OF.get(t.split()[0], _CHILD_ADJECTIVES_THINGS) for s, t, _ in _CHILD_NOUNS}


def _weighted_table(items, weights):
    total, cumulative = 0.0, []
    for item in items:
        total += weights[item]
        cumulative.append(total)
    return tuple(items), tuple(cumulative)


_NOUN_TABLES = {}


def _nouns_tagged(tag_text):
    """The nouns having one of the tags in `tag_text`, with their Zipf weights' running sums."""
    table = _NOUN_TABLES.get(tag_text)
    if table is None:
        wanted = frozenset(tag_text.split())
        items = [s for s, _, _ in _CHILD_NOUNS if _CN_TAGS[s] & wanted]
        table = _NOUN_TABLES[tag_text] = _weighted_table(items, _CN_WEIGHT)
    return table


_SIMPLE_VERBS = _weighted_table([v[0] for v in _CHILD_VERBS if any(f[0] not in _CLAUSE_KINDS for f in v[2])],
                                _CV_WEIGHT)
_CLAUSE_VERBS = _weighted_table([v[0] for v in _CHILD_VERBS if any(f[0] in _CLAUSE_KINDS for f in v[2])],
                                _CV_WEIGHT)
_ALL_VERBS = _weighted_table([v[0] for v in _CHILD_VERBS], _CV_WEIGHT)
_PLACE_TABLE = _nouns_tagged("place")
_CV_FRAMES = {v[0]: v[2] for v in _CHILD_VERBS}


