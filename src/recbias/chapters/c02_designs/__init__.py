"""Chapter 2 ("Experimental design alternatives"): the design space of offline ranking evaluation, AI/TI x
AN/NN x AR/1R (IRJ 2017 Sec. 3).  :mod:`.study` builds the toy target sets of IRJ Fig. 1, runs the comparison of
Sec. 3.3 and Fig. 2, counts the training ratings behind what each system recommends, sweeps the lemma that ties
1R to AR precision (Eq. 2, Fig. 3) and, on a simulated world, sets each design's order of systems against the
true one; :mod:`.figures` and :mod:`.report` show them, and :mod:`.claims` checks the papers' statements and
numbers (``published.csv``).
"""
