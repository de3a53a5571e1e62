"""Words counted by script (`text.word_count`), against its definition written out word by
word: whitespace-separated words (as `str.split` separates them) holding a letter or digit,
and each Chinese or Japanese character."""

from __future__ import annotations

import random

import pytest
import regex

from sitelens.seo.text import word_count

UNSPACED = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}]")
LETTER_OR_DIGIT = regex.compile(r"[\p{L}\p{N}]")


def by_definition(text: str) -> int:
    count = 0
    for word in text.split():
        count += len(UNSPACED.findall(word))
        rest = UNSPACED.sub(" ", word)
        count += sum(1 for part in rest.split() if LETTER_OR_DIGIT.search(part))
    return count


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", 0),
        ("Analytics for every website", 4),
        ("  -- ... !!  ", 0),  # punctuation alone is no word
        ("e-mail, don't 3.5 ²", 4),
        ("日本語のテキスト", 8),  # each Han, Hiragana or Katakana character
        ("Sitelens日本です", 5),
        ("a\x1cb\x1dc", 3),  # str.split separates on the information separators too
        ("a\u3000b\xa0c\u2028d", 4),
    ],
)
def test_known_counts(text: str, words: int) -> None:
    assert word_count(text) == by_definition(text) == words


def test_random_texts_count_as_the_definition_does() -> None:
    rng = random.Random(5)
    alphabet = [" ", "\t", "\n", "\u3000", "\xa0", "\u2028", "\x1c", "\x85", "a", "Z", "1"]
    alphabet += ["-", ".", "'", "_", "é", "٣", "Ⅻ", "²", "日", "本", "ひ", "カ", "😀"]
    for _ in range(5_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert word_count(text) == by_definition(text), repr(text)
