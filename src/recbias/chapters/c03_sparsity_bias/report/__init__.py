"""The page's display tables (:mod:`.tables`) and what its prose quotes from the study (:mod:`.readings`)."""
