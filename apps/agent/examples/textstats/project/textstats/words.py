"""Counting words in text."""
import re
from collections import Counter

WORD = re.compile(r"[A-Za-z0-9']+")


def words(text):
    """The words of `text`, lower-cased, in order."""
    return [word.lower() for word in WORD.findall(text)]


def word_count(text):
    """How many words `text` has."""
    return len(text.split(" "))


def top_words(text, n=3):
    """The `n` most common words, most common first (ties in order of first appearance)."""
    return [word for word, _ in Counter(words(text)).most_common(n)]
