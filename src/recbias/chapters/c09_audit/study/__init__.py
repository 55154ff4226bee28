"""Computation of the audit page: protocols, measurement, the data's bias profile and the readings."""
