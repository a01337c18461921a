"""Semantic parsing from ambiguous supervision: `SemanticParser` (OSPAS, Bordes 2010, chapter 6.2,
trained in Rust), the generated corpora it is evaluated on (`corpora`: AMBIGHOUSE and a
child's-world corpus after Kate and Mooney 2007) and the scores of parses (`metrics`: MR
precision, recall and F1, alignment error)."""

from .corpora import make_ambigchild, make_ambighouse
from .metrics import alignment_error, mr_f1, mr_scores
from .parser import SemanticParser

__all__ = ["SemanticParser", "alignment_error", "make_ambigchild", "make_ambighouse", "mr_f1", "mr_scores"]
