"""Chapter 6's display tables and the numbers its prose quotes: the toy example, the real-data study (with its
tests beyond noise, its sweep over the sample size and its cost) and the 1R bridge."""
