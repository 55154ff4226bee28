"""Computation of the audit page: protocols, measurement, the data's bias profile, the systems compared across
protocols and which protocol to report (its fidelity on the data's own truth or a stand-in world, and its caveats)."""
