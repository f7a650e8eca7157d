"""The token counter: memoised word pieces count exactly like the tokenizer itself."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from nova_memory_integrations.embeddings.base import packaged_model_path
from nova_memory_integrations.engine.tokens import TokenCounter, get_token_counter

_TOK = Tokenizer.from_file(str(packaged_model_path() / "tokenizer.json"))
_TOK.no_truncation()
_TOK.no_padding()

# letters, punctuation, accents and combining marks, CJK, emoji, every kind of space and
# control character, and a word past WordPiece's 100-character limit
_PIECES = st.sampled_from([*"abcXYZ .,!?'\"-–…éüñÀ中文😀<>&\u0301\u200b\t\n\x00\x1c\x85\xa0\u3000",
                           "word", "unbelievable", "  ", "x" * 120, "ca\u0301fe"])
_TEXTS = st.lists(_PIECES, max_size=40).map("".join)


def _direct(text: str) -> int:
    return len(_TOK.encode(text, add_special_tokens=False).ids) if text else 0


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_count_equals_the_tokenizer(text: str) -> None:
    assert get_token_counter("minilm").count(text) == _direct(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXTS, max_size=6))
def test_count_many_equals_the_tokenizer(texts: list[str]) -> None:
    assert get_token_counter("minilm").count_many(texts) == [_direct(t) for t in texts]


def test_a_text_of_known_words_is_counted_without_the_tokenizer() -> None:
    calls: list[list[str]] = []

    def batch(texts: list[str]) -> list[int]:
        calls.append(list(texts))
        return [len(t) for t in texts]

    counter = TokenCounter("chars", len, batch, additive=True)
    counter.count_many(["alpha beta", "gamma"])
    calls.clear()
    counter.count("gamma alpha beta")
    assert calls == []


def test_an_additive_count_sums_its_pieces() -> None:
    counter = TokenCounter("chars", len, lambda texts: [len(t) for t in texts], additive=True)
    assert counter.count("ab  cde") == 5


def test_a_non_additive_counter_counts_the_whole_text() -> None:
    counter = TokenCounter("chars", len, lambda texts: [len(t) for t in texts])
    assert counter.count("ab  cde") == 7
