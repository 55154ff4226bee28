"""A MovieLens-like simulated world with complete ground truth.

:func:`generate` returns observed :class:`~recbias.ratings.Ratings` with the
``true_relevance`` matrix that real datasets lack; :func:`simulate` returns the
whole :class:`World` (true ratings of every pair, observation propensities,
latent tastes, the popularity curve).  The generative story:

1. items get popularity ranks at random; the expected ratings of rank ``k``
   follow the shifted power law ``c1 + beta (c2 + k)^-alpha`` (Bellogín et
   al., IRJ 2017, Sec. 5.2; thesis Sec. 4.5.2); users get a long-tailed
   activity (a floor plus gamma excess);
2. users get a gender, age band and occupation (MovieLens 1M frequencies) that
   partly set their latent tastes; affinity combines taste match, item quality
   (correlated with popularity), user generosity and noise;
3. which pairs are rated depends on the two margins and on affinity
   (missing not at random), with exactly ``n_ratings`` ratings; either every
   user or every item (``exact_counts``) gets exactly its margin;
4. the true rating of every pair is a step function of affinity, cut so that
   the observed ratings follow the prior (MovieLens 100K by default); a pair is
   truly relevant when its true rating reaches ``positive_threshold`` (5, as for
   MovieLens in the papers);
5. timestamps fall in a two-year window, non-decreasing within each user
   (rows are sorted by user, then time).

Items in the far tail may have no observed rating; every user has at least
``min_user_ratings`` when user counts are exact.  :data:`PREFERENCE_FREE` turns
every preference off (the papers' artificial data), and
:func:`fit_popularity_curve` fits the popularity law to observed item counts, and
:mod:`recbias.synthetic.stand_in` draws worlds of a dataset's size or shape (:func:`world_with_truth`,
:func:`stand_in_world`).
Parameters and presets: :mod:`recbias.synthetic.parameters`.  The presets too large for
the complete truth (:data:`OBSERVED_ONLY`, MovieLens 10M and 20M scale) draw their observed
ratings directly (:mod:`recbias.synthetic.observed`) and have no ``true_relevance``.
"""

from recbias.synthetic.parameters import MAX_PAIRS, OBSERVED_ONLY, PREFERENCE_FREE, PRESETS, resolve_parameters
from recbias.synthetic.popularity import PopularityCurve, fit_popularity_curve, popularity_curve
from recbias.synthetic.world import World, generate, simulate
from recbias.synthetic.stand_in import shape_of, stand_in_world, world_size, world_with_truth

__all__ = [
    "MAX_PAIRS",
    "OBSERVED_ONLY",
    "PREFERENCE_FREE",
    "PRESETS",
    "PopularityCurve",
    "World",
    "fit_popularity_curve",
    "generate",
    "popularity_curve",
    "resolve_parameters",
    "shape_of",
    "simulate",
    "stand_in_world",
    "world_size",
    "world_with_truth",
]
