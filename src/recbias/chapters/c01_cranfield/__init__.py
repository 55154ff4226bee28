"""Chapter 1 ("The Cranfield paradigm for recommendation"): IR judgments and ratings counted alike.

A recommendation dataset read as a test collection has users for queries, items for documents and positive ratings
for relevance judgments.  :mod:`.study` measures how positive judgments spread over documents in the IR collections
(Cranfield, TREC-8) and in the rating datasets at hand (:mod:`recbias.judgments`); :mod:`.figures` and
:mod:`.report` show it; :mod:`.claims` sets it against the statements and numbers of IRJ 2017 Sec. 5.2-5.3 and the
thesis, Table 4.1 (``published.csv``).
"""
