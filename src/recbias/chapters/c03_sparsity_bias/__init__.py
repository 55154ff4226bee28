"""Chapter 3 ("The test-sparsity bias"): how the value of precision follows the density of test ratings.

Bellogín, Castells and Cantador (IRJ 2017, Sec. 4; Bellogín 2012, Sec. 4.4) show that the expected precision of
random recommendation is the share of relevant items in the target sets, ``rho``: ``sigma delta`` under AR (Eq. 4)
and ``1 / t`` under 1R (Eq. 5), so that the range of every system's precision moves with the density of the test
ratings.  :mod:`.study` sets the closed forms against measurement, runs the sweeps of the papers' Fig. 4 and sets
P@n next to its lift over random; :mod:`.figures` and :mod:`.report` draw and tabulate them; :mod:`.claims` holds
the papers' statements as findings, the values they are checked on and what the page says of each outcome.
"""
