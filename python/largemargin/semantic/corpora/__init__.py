"""Seeded corpora for semantic parsing under ambiguous supervision, the setting of chapter 6.2 of Bordes'
thesis (2010): AMBIGHOUSE, a simulated house whose actors act on objects in rooms, one meaning
representation (MR) per sentence, and AMBIGCHILD, a child's world in the manner of Kate and Mooney's
(2007) AMBIGCHILD-WORLD, where a synchronous grammar writes a sentence and its one to four nested or
coordinated MRs together. Each sentence comes with its correct MRs, a bag of candidate MRs (the correct
ones plus, at an ambiguity level n, n other events of the same scene on average) and the word-symbol
alignment, for evaluation only. The thesis' own corpora are not available: both are generated here,
from grammars and lexicons written for this package and described in the two functions' docstrings."""

from .child import make_ambigchild
from .house import make_ambighouse

__all__ = ["make_ambigchild", "make_ambighouse"]
