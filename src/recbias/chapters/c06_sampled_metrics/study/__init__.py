"""Chapter 6's computations: the toy example, the real-data study and its sweep over ``m``, the 1R
bridge and the cost of exact against sampled evaluation."""
