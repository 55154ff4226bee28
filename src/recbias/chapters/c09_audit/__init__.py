"""Chapter 9 ("Audit your own evaluation"): a dataset's bias profile, its systems under the main protocols,
popularity's share of their scores, how their order moves with the protocol, which protocol to report (from the
protocols' fidelity on a world shaped like the data), and a protocol card."""
