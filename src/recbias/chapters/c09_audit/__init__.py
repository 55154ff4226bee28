"""Chapter 9 ("Audit your own evaluation"): the bias profile of a dataset, its systems under the main
protocols, the share of their scores that popularity explains, the stability of their order across
protocols, which protocol to report from the protocols' fidelity on a simulated world shaped like the
data, and a protocol card to report."""
