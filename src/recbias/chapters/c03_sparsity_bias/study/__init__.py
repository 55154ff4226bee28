"""The computations of chapter 3, one module per experiment of the page: the theory check, the sweeps of the papers'
Fig. 4 and their fits, the lift over random across datasets, and the 1R check on a world of MovieLens 1M's shape."""
