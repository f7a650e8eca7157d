"""Stage 4 of recall, compression, and the pure functions it is made of.

:func:`compress_items` is the stage: near-duplicates out, small talk out, long items cut to
their sentences closest to the query, over the vectors the pipeline read (nothing is read
here). The functions it uses (near-duplicate removal, phatic sentences, extractive sentence
selection to a budget) are pure functions over texts, vectors and a token counter;
:meth:`NovaStore.compress` uses them on any texts.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..embeddings.similarity import cosines, unit_rows
from ..engine.tokens import TokenCounter
from ..text.sentences import sentences_of, split_sentences
from ..text.sentences import split_speaker as _split_speaker
from ..types import ContextItem
from .lexical import name_words, terms
from .search_config import SearchConfig

__all__ = [
    "Compressed", "compress_items", "extract_sentences", "is_phatic", "near_duplicates", "sentence_memo",
    "sentence_relevance", "sentences_of", "speaker_names", "split_sentences", "stem", "strip_phatic",
]

_PHATIC = frozenset(
    """
    wow whoa oh ah aw aww hey hi hello yay yeah yes yep yup sure ok okay cool awesome great amazing nice
    glad thanks thank thx congrats congratulations haha lol omg sounds sound good lovely beautiful sweet
    super totally absolutely definitely agree happy hear hearing wonderful fantastic incredible stunning
    gorgeous proud exciting excited right true indeed well fun appreciate appreciated welcome bye soon
    touch care cheers kind means mean lot luck best hope hopefully fab brilliant neat interesting
    """.split()
)
"""Words of greetings, thanks and applause: a sentence made only of these (and names)
carries nothing a memory needs ("Wow, Caroline, that sounds awesome!")."""
_PHATIC_MAX_WORDS = 10


@lru_cache(maxsize=8_192)
def sentence_memo(text: str) -> tuple[str, ...]:
    """:func:`sentences_of`, memoised for recall (the same turns come back query after query;
    the indexer splits each turn once and calls :func:`sentences_of` itself)."""
    return sentences_of(text)


_DEDUPE_BLOCK = 256
"""Rows of the similarity matrix computed at a time by :func:`near_duplicates`."""


def near_duplicates(vectors: Sequence[Sequence[float] | np.ndarray], threshold: float) -> dict[int, int]:
    """Map of index -> the earlier index it nearly duplicates (cosine >= ``threshold``).

    Inputs are taken in priority order: the first of a group of duplicates is kept.
    """
    if len(vectors) < 2:
        return {}
    m = unit_rows(vectors)
    dup: dict[int, int] = {}
    kept = np.zeros(len(m), dtype=bool)
    for start in range(0, len(m), _DEDUPE_BLOCK):  # block rows: memory O(block * n), never n * n
        close = (m[start:start + _DEDUPE_BLOCK] @ m[: start + _DEDUPE_BLOCK].T) >= threshold
        # only rows with an earlier near neighbour need the greedy check; the others are kept
        earlier = np.tril(close, k=start - 1)
        kept[start:start + len(close)] = True
        for row in np.flatnonzero(earlier.any(axis=1)).tolist():
            i = start + row
            hits = np.flatnonzero(earlier[row, :i] & kept[:i])
            if hits.size:
                dup[i] = int(hits[0])  # the earliest kept item it duplicates
                kept[i] = False
    return dup


def is_phatic(sentence: str, names: Collection[str] = ()) -> bool:
    """Whether a sentence is only greeting, thanks or applause (names aside).

    Args:
        sentence: one sentence.
        names: words that are names of the people talking (casefolded), e.g. the speakers.
    """
    return _phatic(sentence, names)


def _phatic(sentence: str, names: Collection[str], words: Sequence[str] | None = None) -> bool:
    """:func:`is_phatic`, given the sentence's content words if they are at hand (else they are
    only found for a sentence short enough: most are longer)."""
    if len(sentence.split()) > _PHATIC_MAX_WORDS:
        return False
    words = terms(sentence, max_terms=64) if words is None else words
    return bool(words) and all(w in _PHATIC or w in names for w in words)


@lru_cache(maxsize=8_192)
def _parsed(text: str, names: frozenset[str]
            ) -> tuple[str, tuple[str, ...], tuple[tuple[str, ...], ...], tuple[bool, ...], tuple[frozenset[str], ...]]:
    """What compression needs of a text whatever the query, memoised (the same turns come
    back query after query): its speaker prefix, sentences, their content words, whether
    each is phatic, and their stems."""
    prefix, body = _split_speaker(text)
    sentences = tuple(split_sentences(body))
    words = tuple(tuple(terms(sent, max_terms=64)) for sent in sentences)
    phatic = tuple(_phatic(sent, names, w) for sent, w in zip(sentences, words))
    return prefix, sentences, words, phatic, tuple(frozenset(_stems(w)) for w in words)


def strip_phatic(text: str, names: Collection[str] = ()) -> str:
    """``text`` without its phatic sentences; ``""`` when nothing else is left.

    A speaker prefix ("Melanie: ") is kept in front of what remains.
    """
    prefix, sentences, _, phatic, _ = _parsed(text, frozenset(names))
    keep = [i for i, p in enumerate(phatic) if not p]
    if not keep:
        return ""
    if len(keep) == len(sentences):
        return text
    return prefix + _join(sentences, keep)


def _stems(words: Sequence[str]) -> set[str]:
    """Crude stems (:func:`stem`) so "painted" meets "painting" and "play" meets "playing" (a
    stored text's are memoised with its parse, :func:`_parsed`)."""
    return {stem(w) for w in words}


_STEM_LENGTH = 5
"""Stems are cut to this many letters (after their suffix is stripped): "paint" of "painter"."""


def stem(word: str) -> str:
    """A crude stem of a lower-case word: one common inflection stripped, then the first five letters.

    "playing" / "played" / "plays" -> "play", "cities" -> "city", "running" -> "run",
    "making" / "make" -> "mak". Only compression compares them: for choosing the sentences of a
    turn that share the most words with a query, a few wrong merges cost less than missing
    "playing" for "play" (the first five letters alone keep words under five letters apart).
    """
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("ing") and len(word) >= 6:
        word = word[:-3]
    elif word.endswith("ed") and len(word) >= 5:
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss") and len(word) >= 4:
        word = word[:-1]
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]  # running -> runn -> run, stopped -> stopp -> stop
    elif word.endswith("e") and len(word) > 3:
        word = word[:-1]  # make / making -> mak
    return word[:_STEM_LENGTH]


def extract_sentences(
    text: str, query: str, max_tokens: int, counter: TokenCounter, *, names: Collection[str] = (),
    stretch_to: int = 0, relevance: Mapping[str, float] | None = None,
) -> str:
    """The sentences of ``text`` most related to ``query`` that fit ``max_tokens`` (or, with
    ``stretch_to``, its best sentence whole).

    A speaker prefix ("Melanie: ") is kept and does not count as a match. Sentences are
    scored by ``relevance`` when it scores each of them (their vectors' cosine to the query),
    else by the query words they contain (compared by crude stems, :func:`stem`); phatic ones
    (greetings, thanks, applause) are only taken when nothing else fits, and ties favour
    sentences with more content words, then earlier ones. They are returned in their
    original order, joined by " … " where text was skipped. A single sentence that is
    still too long is truncated.

    Args:
        text: the text to shorten.
        query: what the reader is looking for.
        max_tokens: the most tokens the result may have, counted by ``counter``.
        counter: the token counter.
        names: names of the people talking (casefolded), ignored as matches.
        stretch_to: when the sentence sharing the most query words (at least one) does not fit
            ``max_tokens`` on its own, it is returned alone, whole, if it fits this many tokens
            (``0``: never): better one sentence that answers than the ones that fit. With
            ``relevance``, the most relevant sentence (not phatic) is the one stretched.
        relevance: a score per sentence (by its text, as :func:`sentences_of` splits it), higher
            for closer to the query; used only when it holds every sentence of ``text``.
    """
    if max_tokens <= 0:
        return ""
    if counter.count(text) <= max_tokens:
        return text
    prefix, sentences, words, phatic, stems = _parsed(text, frozenset(names))
    if relevance is not None and all(sent in relevance for sent in sentences):
        scores = [relevance[sent] for sent in sentences]
        scored = sorted(range(len(sentences)), key=lambda i: (phatic[i], -scores[i], i))
        answers = True  # the closest sentence: whatever words it shares with the query
    else:
        qstems = _stems([w for w in terms(query) if w not in names])
        scored = sorted(
            range(len(sentences)),
            key=lambda i: (
                phatic[i],
                -len(qstems & stems[i]),
                -min(len(words[i]), 8),
                i,
            ),
        )
        answers = bool(qstems & stems[scored[0]])
    best = scored[0]  # there is a sentence: a text of none has no tokens and was returned above
    if stretch_to > max_tokens and not phatic[best] and answers:
        whole = prefix + sentences[best]
        if max_tokens < counter.count(whole) <= stretch_to:
            return whole
    chosen: list[int] = []
    for i in scored:
        if phatic[i] and chosen:
            break  # small talk never fills leftover room
        trial = sorted([*chosen, i])
        if counter.count(prefix + _join(sentences, trial)) <= max_tokens:
            chosen = trial
    if not chosen:
        return counter.truncate(prefix + sentences[best], max_tokens)
    return prefix + _join(sentences, chosen)


def _join(sentences: Sequence[str], idx: Sequence[int]) -> str:
    parts: list[str] = []
    prev = -1
    for i in idx:
        if parts and i != prev + 1:
            parts.append("…")
        parts.append(sentences[i])
        prev = i
    return " ".join(parts)


@dataclass(frozen=True)
class Compressed:
    """What compression made of the candidates (:func:`compress_items`)."""

    items: list[ContextItem]
    """The items kept, in rank order: small talk removed, long ones cut to their sentences
    closest to the query."""
    dropped: list[ContextItem]
    """Near-duplicates and turns of small talk alone, each with why."""
    fuller: dict[str, str]
    """Per cut item, its text before the cut (assembly gives sentences back with budget left)."""
    relevance: dict[str, dict[str, float]]
    """Per cut turn with kept sentence vectors, each sentence's cosine to the dense query."""
    names: frozenset[str]
    """Words of the speakers' names (never a match, never small talk)."""
    original_tokens: int
    """Tokens of the items before compression (near-duplicates aside)."""


def compress_items(
    items: Sequence[ContextItem], vectors: Sequence[Sequence[float] | np.ndarray | None],
    sentence_vectors: Mapping[str, np.ndarray], query: str, query_vector: Sequence[float] | None, *,
    counter: TokenCounter, config: SearchConfig,
) -> Compressed:
    """Stage 4: the ranked ``items`` compressed (see :class:`Compressed`).

    ``vectors[n]`` is the vector of ``items[n]`` (``None``: none, compared as zeros) and
    ``sentence_vectors`` the kept sentence vectors of turns (id -> flat float32). An item
    whose vector is within ``dedupe_threshold`` (cosine) of a better one's is dropped; a
    turn of nothing but small talk is dropped, other turns lose their small-talk sentences;
    the ``lead_items`` best items are cut to ``lead_item_tokens``, the others to
    ``max_item_tokens`` (:func:`extract_sentences`, the best sentence kept whole up to
    ``item_stretch`` times the cap), their sentences ranked by :func:`sentence_relevance`
    when their vectors are kept, else by the query words they share.
    """
    dropped: list[ContextItem] = []
    dups = near_duplicates(_or_zeros(vectors), config.dedupe_threshold) if len(items) > 1 else {}
    out: list[ContextItem] = []
    original = 0
    names = speaker_names(items)
    fuller: dict[str, str] = {}
    caps: dict[int, int] = {}  # position in out -> the cap of an item to cut
    episodes = {i.id: i.text for i in items if i.kind == "episode"}
    for i, item in enumerate(items):
        if i in dups:
            dropped.append(item.model_copy(update={"reason": f"near-duplicate of {items[dups[i]].id}"}))
            continue
        n = counter.count(item.text)
        original += n
        if item.kind == "episode":
            bare = strip_phatic(item.text, names)
            if not bare:
                dropped.append(item.model_copy(update={"reason": "greeting or thanks only"}))
                continue
            if bare != item.text:
                item = item.model_copy(update={"text": bare, "reason": item.reason + "; small talk removed"})
                n = counter.count(bare)
        cap = config.lead_item_tokens if len(out) < config.lead_items else config.max_item_tokens
        if n > cap:
            fuller[item.id] = item.text
            caps[len(out)] = cap
        out.append(item)
    relevance = sentence_relevance({out[i].id: episodes[out[i].id] for i in caps if out[i].id in episodes},
                                   sentence_vectors, query_vector)
    for i, cap in caps.items():
        item = out[i]
        short = extract_sentences(item.text, query, cap, counter, names=names,
                                  stretch_to=int(cap * config.item_stretch), relevance=relevance.get(item.id))
        out[i] = item.model_copy(update={"text": short, "reason": item.reason + "; compressed extractively"})
    return Compressed(out, dropped, fuller, relevance, names, original)


def _or_zeros(vectors: Sequence[Sequence[float] | np.ndarray | None]) -> list[Sequence[float] | np.ndarray]:
    """``vectors`` with each missing one as zeros (of the others' size)."""
    dim = next((len(v) for v in vectors if v is not None), 1)
    zero = [0.0] * dim
    return [v if v is not None else zero for v in vectors]


def speaker_names(items: Sequence[ContextItem]) -> frozenset[str]:
    """Words of the names of the turns' speakers (roles other than user/assistant/...), casefolded."""
    roles = {str(i.metadata.get("role", "")) for i in items if i.kind == "episode"}
    return frozenset(w for r in roles for w in name_words(r))


def sentence_relevance(
    turns: Mapping[str, str], sentence_vectors: Mapping[str, np.ndarray], query_vector: Sequence[float] | None
) -> dict[str, dict[str, float]]:
    """Per turn (id -> its text) with kept sentence vectors, each of its sentences
    (:func:`sentences_of`) by cosine to the dense query: what cutting the turn chooses by. A turn
    whose kept vectors do not match its sentences now (count or size) is left out (shared words
    choose there)."""
    if query_vector is None or not turns:
        return {}
    q = np.asarray(query_vector, dtype=np.float32)
    found: list[tuple[str, tuple[str, ...]]] = []
    blocks: list[np.ndarray] = []
    for eid, flat in sentence_vectors.items():
        if eid not in turns:
            continue
        sentences = sentence_memo(turns[eid])
        if len(sentences) > 1 and flat.size == len(sentences) * q.size:
            found.append((eid, sentences))
            blocks.append(flat.reshape(len(sentences), q.size))
    if not blocks:
        return {}
    m = np.concatenate(blocks)
    cos = cosines(m, q).tolist()
    out: dict[str, dict[str, float]] = {}
    at = 0
    for eid, sentences in found:
        out[eid] = dict(zip(sentences, cos[at:at + len(sentences)]))
        at += len(sentences)
    return out
