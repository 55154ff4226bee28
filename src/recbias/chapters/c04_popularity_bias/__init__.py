"""Chapter 4 ("The popularity bias"): why popularity wins offline, how skewness drives it, how much is real.

Bellogín, Castells and Cantador (IRJ 2017, Section 5; thesis Section 4.5) explain the strength of
recommending popular items by the split itself: on a random split ``E|PR_test(i)| = sigma |PR(i)|``,
so ranking by training popularity maximises the expected precision of any non-personalised order.
The page ``book/04_popularity_bias.py`` checks that against other orderings, reproduces the papers'
preference-free worlds of growing skew (Fig. 5) and the share of positive ratings along popularity
(Fig. 7), and then asks, on simulated worlds with a known truth, how much of popularity's offline
score is real and whom it serves.
"""
