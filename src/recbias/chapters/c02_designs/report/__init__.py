"""What chapter 2 shows: :mod:`.tables` (its display tables, each saying which set a system belongs to) and
:mod:`.prose` (the values its prose quotes and the sentences whose wording depends on the data)."""
