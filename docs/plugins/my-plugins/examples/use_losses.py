# using my_plugins.losses
import largemargin as lm
from largemargin.datasets import make_rcv1_like

X, y = make_rcv1_like(n_samples=20_000, n_features=5_000, density=0.01)
sgd = lm.LinearSGD(loss="smooth_hinge", alpha=1e-4, epochs=3, random_state=0).fit(X[:15_000], y[:15_000])
print(sgd.t0_, sgd.objective_, sgd.score(X[15_000:], y[15_000:]))
