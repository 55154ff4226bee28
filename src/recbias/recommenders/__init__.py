"""Recommenders used by the papers, behind one small interface."""

from recbias.recommenders.base import Recommender

__all__ = ["Recommender"]
