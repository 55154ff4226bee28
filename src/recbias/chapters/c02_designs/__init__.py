"""Chapter 2 ("Experimental design alternatives"): the design space of offline ranking evaluation.

A target set per user is fixed by three choices (IRJ 2017 Sec. 3, Table 3; Bellogín 2012 Sec. 4.3):
candidates from all items or from test items (AI/TI), all non-relevant candidates or a sample (AN/NN),
and one set per user or one per relevant rating (AR/1R).  :mod:`.study` builds the toy target sets of IRJ
Fig. 1, runs the preliminary comparison of IRJ Sec. 3.3 and Fig. 2, sweeps the lemma that ties 1R to AR
precision (IRJ Eq. 2, Fig. 3) and, on a simulated world, sets each design's order of systems against the
true one; :mod:`.figures` and :mod:`.report` show them, and :mod:`.claims` checks the papers' statements
and numbers (``published.csv``).
"""
