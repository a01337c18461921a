"""scikit-learn's own estimator checks. The expected failures are exactly the ones scikit-learn
declares for its own SVC and SVR: at a finite tolerance tol, C * 2 on one example is not bit-for-bit
the same optimisation path as the example written twice (for LaSVM and the SGD solvers, not even
the same order of examples: scikit-learn declares the same for its SGDClassifier)."""

from sklearn.utils.estimator_checks import parametrize_with_checks

import largemargin as lm

SAME_AS_SKLEARN = {
    "check_sample_weight_equivalence_on_dense_data": "sample_weight is not equivalent to removing/repeating samples.",
    "check_sample_weight_equivalence_on_sparse_data": "sample_weight is not equivalent to removing/repeating samples.",
}

# scikit-learn declares it for its NuSVC: class weights do not enter the nu-SVC problem (LIBSVM's).
CLASS_WEIGHT_IGNORED = {"check_class_weight_classifiers": "class_weight is ignored."}

# Candidate label sets: a 2-D y of one column is n bags of one candidate each, a valid input.
BAGS = {"check_supervised_y_2d": "a (n, 1) y is n candidate sets of one label, not a column to ravel with a warning"}


def expected_failures(est):
    return {
        **SAME_AS_SKLEARN,
        **(BAGS if isinstance(est, lm.AmbiguousLaRankClassifier) else {}),
        **(CLASS_WEIGHT_IGNORED if isinstance(est, lm.NuSVC) else {}),
    }


@parametrize_with_checks(
    [lm.SVC(), lm.SVR(), lm.NuSVC(), lm.NuSVR(), lm.OneClassSVM(), lm.LaSVM(), lm.Huller(), lm.KernelPerceptron(), lm.LinearSGD(), lm.MarginPerceptron(),
     lm.LaRankClassifier(), lm.AmbiguousLaRankClassifier(), lm.SimpleMLPClassifier(), lm.NilssonMLPClassifier(),
     lm.TanhMLPClassifier(), lm.TanhMLPClassifier(optimizer="block_newton", learning_rate=0.001),
     # (fewer experts and rounds than the defaults only to keep the checks quick; the defaults pass too)
     lm.MixtureSVC(n_experts=3, max_iter=2), lm.MixtureSVR(n_experts=3, max_iter=2),
     lm.SVCSearchCV(lm.SVC(), {"C": [0.1, 1.0]}, cv=3), lm.SVRSearchCV(lm.SVR(), {"C": [0.1, 1.0]}, cv=3)],
    # (the baselines take no sample_weight at all)
    expected_failed_checks=expected_failures,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# SequenceLabeler as scikit-learn sees it: an estimator of the rows of a 2-D X, each row a sequence of
# one token unless `lengths` says otherwise. It passes every check; none is declared.
SEQUENCE_LABELERS = [lm.SequenceLabeler(), lm.SequenceLabeler("larank_exact"), lm.SequenceLabeler("perceptron")]


class TokenClassifier(lm.SequenceLabeler):
    """SequenceLabeler tagged a classifier, for scikit-learn's classifier checks of its 2-D input (it
    is not tagged one itself only so that cross-validation does not stratify label sequences)."""

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags

        tags = super().__sklearn_tags__()
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags()
        return tags


@parametrize_with_checks(SEQUENCE_LABELERS + [TokenClassifier(), TokenClassifier("larank_exact")])
def test_sequence_labeler_sklearn_compatible(estimator, check):
    check(estimator)
