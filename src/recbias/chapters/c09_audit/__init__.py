"""Chapter 9 ("Audit your own evaluation"): a dataset's bias profile, its systems under the main protocols,
popularity's share of their scores, how their order moves with the protocol, which protocol to report (from the
protocols' fidelity on the data's own truth, or on a world shaped like the data without one), and a protocol
card."""
