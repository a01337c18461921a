"""Sequence labeling with linear large-margin models, solved in Rust: LaRankGreedy and LaRankExact
(Bordes, Usunier, Bottou 2008), passive-aggressive and the structured perceptron (`labeler`), plus
a window feature extractor for tagging text (`features`), chunk scoring with the conlleval rules
(`metrics`) and a CoNLL reader (`conll`). Every name is importable from here, as it was from the
former module ``largemargin.sequence``."""

from .conll import read_conll
from .features import WindowFeatures
from .labeler import MAX_REPROCESS, SequenceLabeler
from .metrics import chunk_f1, chunk_scores, token_accuracy

__all__ = ["MAX_REPROCESS", "SequenceLabeler", "WindowFeatures", "chunk_f1", "chunk_scores", "read_conll", "token_accuracy"]
