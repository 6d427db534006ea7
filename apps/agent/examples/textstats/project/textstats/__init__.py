"""Small statistics over plain text."""
from .words import top_words, word_count, words

__all__ = ["top_words", "word_count", "words"]
