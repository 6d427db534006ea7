import unittest

from textstats import top_words, word_count, words


class WordsTest(unittest.TestCase):
    def test_words_are_lower_cased_and_skip_punctuation(self):
        self.assertEqual(words("The cat, the hat."), ["the", "cat", "the", "hat"])


class WordCountTest(unittest.TestCase):
    def test_counts_the_words_of_a_sentence(self):
        self.assertEqual(word_count("the cat sat"), 3)

    def test_any_whitespace_separates_words(self):
        self.assertEqual(word_count("the  cat\nsat "), 3)

    def test_empty_text_has_no_words(self):
        self.assertEqual(word_count(""), 0)


class TopWordsTest(unittest.TestCase):
    def test_most_common_first(self):
        self.assertEqual(top_words("b a b c a b"), ["b", "a", "c"])


if __name__ == "__main__":
    unittest.main()
