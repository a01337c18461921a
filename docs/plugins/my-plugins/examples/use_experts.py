# using my_plugins.experts
import largemargin as lm

X, y = lm.make_forest_like(4_000, random_state=0)
mix = lm.MixtureSVC(expert="knn15", expert_params={"weights": "distance"}, n_experts=4, max_iter=3,
                    random_state=0).fit(X[:3_000], y[:3_000])
print(mix.score(X[3_000:], y[3_000:]))
