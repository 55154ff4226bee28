"""Chapter 3 ("The test-sparsity bias"): how the value of precision follows the density of test ratings.

Bellogín, Castells and Cantador (IRJ 2017, Sec. 4; Bellogín 2012, Sec. 4.4) show that the
expected precision of random recommendation is the share of relevant items in the target
sets, ``rho``: ``sigma delta`` under AR (Eq. 4) and ``1 / t`` under 1R (Eq. 5), so that the
range of every system's precision moves with the density of the test ratings.

* :mod:`.study`: the closed forms against measurement, the sweeps of the papers' Fig. 4, their
  fits, and P@n next to its lift over random on several datasets;
* :mod:`.figures`, :mod:`.report`: the page's figures, tables and data-dependent sentences;
* :mod:`.claims`: the papers' statements as findings, and the values they are checked on.
"""
