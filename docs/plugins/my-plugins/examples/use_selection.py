# using my_plugins.selection
import largemargin as lm

X, y = lm.make_forest_like(3_000, random_state=0)
las = lm.LaSVM(C=10, gamma=0.1, selection="most_uncertain", random_state=0).fit(X[:2_000], y[:2_000])
print(len(las.support_), las.score(X[2_000:], y[2_000:]))
