"""Chapter 8 ("Which protocol recovers the true order of systems?"): the fidelity of offline protocols to a
truth the protocols never see, a simulated world's complete relevance or Coat's ratings of random items,
over a wide field of systems and a grid of simulated worlds.

:mod:`.study` measures, :mod:`.figures` and :mod:`.report` show, and :mod:`.claims` checks the chapter's
general claims on each truth; the chapter reproduces no published number (``published.csv`` is a header).
"""
