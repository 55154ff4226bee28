"""Demographic codes of MovieLens 1M, shared by its reader and by the simulator.

From the ML-1M README, "USERS FILE DESCRIPTION": age code -> band, occupation code -> name.
This module imports nothing, so any layer may use it.
"""

ML1M_AGE_BANDS = {1: "Under 18", 18: "18-24", 25: "25-34", 35: "35-44", 45: "45-49", 50: "50-55", 56: "56+"}
ML1M_OCCUPATIONS = (
    "other", "academic/educator", "artist", "clerical/admin", "college/grad student", "customer service",
    "doctor/health care", "executive/managerial", "farmer", "homemaker", "K-12 student", "lawyer", "programmer",
    "retired", "sales/marketing", "scientist", "self-employed", "technician/engineer", "tradesman/craftsman",
    "unemployed", "writer",
)
