"""Chapter 6 ("Sampled metrics and their corrections"): a metric computed on a sample of items against
its exact version (Krichene and Rendle, KDD 2020).

The toy example of the paper (:mod:`.study.toy`), the real-data comparison of three systems
(:mod:`.study.real_data`) with its sweep over the sample size (:mod:`.study.sweep`), the 1R
design of chapter 2 read as a sampled metric (:mod:`.study.bridge`) and what sampling saves
(:mod:`.study.cost`); their tables and the numbers the page quotes (:mod:`.report`), figures
(:mod:`.figures`), and the paper's numbers and findings as data (:mod:`.claims`).
"""
