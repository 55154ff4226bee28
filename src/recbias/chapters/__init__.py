"""The book's chapters, one package per page, named like the page (``c03_sparsity_bias`` serves
``book/03_sparsity_bias.py``), each with the same roles:

``study``
    computation only (no matplotlib, no sentences): small dataclasses and tidy frames;
``figures``
    the page's figures, in the book's theme (:mod:`recbias.bookkit.plotting`);
``report``
    display tables and figure data only (sentences are the page's, or the findings');
``claims``
    the chapter's findings as data, with what the page says of each outcome, and the measured
    values they are checked on (:mod:`recbias.bookkit.claims`);
``published.csv``
    the papers' numbers the chapter reproduces, in the one schema of
    :data:`recbias.bookkit.claims.PUBLISHED_COLUMNS`.

A chapter package imports the evaluation core and :mod:`recbias.bookkit`, never another chapter.
"""
