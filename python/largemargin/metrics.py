"""Scores of structured predictions, in one place: semantic parses (MR precision, recall and F1;
alignment error) and label sequences (token accuracy; chunk precision, recall and F1)."""

from .semantic.metrics import alignment_error, mr_f1, mr_scores
from .sequence.metrics import chunk_f1, chunk_scores, token_accuracy

__all__ = ["alignment_error", "chunk_f1", "chunk_scores", "mr_f1", "mr_scores", "token_accuracy"]
