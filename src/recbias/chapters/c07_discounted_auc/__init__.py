"""Chapter 7 ("The user-behaviour discounted AUC"): the metric of Bobrikov, Nenova and Ignatov (CLA 2016)
rebuilt from how people read a list, its position discount, the short-head step chosen by sensitivity
to audience segments, new users against demographics, and agreement with a simulated world's truth.

The metric itself is :func:`recbias.metrics.discounted_auc` (``bAUC`` in the metric grammar).
"""
