"""Computation of the audit page: protocols, measurement, the data's bias profile, the systems compared across
protocols and which protocol to report (its fidelity on a stand-in world and its caveats)."""
