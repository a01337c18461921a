# using my_plugins.kernels
import numpy as np
from my_plugins.kernels import Cosine
from sklearn.datasets import load_digits

import largemargin as lm

X, y = load_digits(return_X_y=True)
clf = lm.SVC(kernel="cosine", C=10).fit(X[:1000], y[:1000])
print(clf.score(X[1000:], y[1000:]))
# a kernel's test: the same model as on its own Gram matrix
ref = lm.SVC(kernel="precomputed", C=10).fit(Cosine()(X[:1000], X[:1000]), y[:1000])
assert np.array_equal(clf.support_, ref.support_)
