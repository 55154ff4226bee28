"""The computations of chapter 2: :mod:`.toy` (IRJ Fig. 1), :mod:`.comparison` (IRJ Sec. 3.3, Fig. 2),
:mod:`.support` (what the papers' kNN recommends, beside its variant that needs two neighbours),
:mod:`.lemma` (IRJ Eq. 2, Fig. 3) and :mod:`.truth` (each design's order against the true order)."""
