# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Reproduction scorecard
#
# Every chapter registers two kinds of claims. A *number* is a value printed in a
# paper, set against our recomputation: it can only be checked on the dataset the
# paper used, and on any other dataset it is listed as *not comparable*, which shows
# what the same protocol gives elsewhere rather than a failure. The papers measured
# their numbers in three ways, counted apart below: on real data, on simulated worlds,
# and on toy examples worked by hand.
#
# A *statement* is checked on whatever dataset the page was built with, and it is one
# of three kinds, never mixed: a statement of a paper, in our words, which is what a
# reproduction checks; a statement of this book (chapters 8 and 9, and the book's own
# constructs); or a check of our code (a theorem, an identity, a definition), which
# verifies the implementation and says nothing about the paper. Only the first kind is
# counted against the papers. A statement *holds* or *fails* only when the difference
# it rests on is beyond noise, with the user as the unit of the test; otherwise it is
# *inconclusive*. "Close to" is decided by two one-sided tests against a margin whose
# origin the criterion states. Where a paper puts no number on its words ("slightly
# sensitive"), the value is shown with *no verdict*. Where the book's protocol or
# systems depart from the paper's, the claim says how, and a failure there is listed as
# *failing where the book departs*, never as a failure of the paper. A statement that a
# build could not measure (a dataset without what it needs) is listed as *not
# checkable here*.
#
# Tolerances of numbers are set per claim from what the paper reports: for a number
# read off a figure, the resolution of the figure; for a number printed with three
# decimals, half a unit of the last decimal; for a simulated quantity, the standard
# error of the simulation. The two tables count the claims by kind and verdict; the
# sections after them, one per chapter, count them again and hold every claim, with a
# link to the place in the chapter that shows it.

# %% tags=["parameters"]
results_dir = "_build/results"  # where the chapters of this build stored their claims

# %% tags=["remove-input"]
from pathlib import Path

from IPython.display import HTML, Markdown, display

from recbias.bookkit import scorecard as report
from recbias.bookkit.pipeline import build_settings, unbuilt_pages
from recbias.bookkit.tables import show_table

claims = report.load_claims(results_dir)
provenance = report.load_provenance(results_dir)
notice = report.mixed_builds(provenance)
settings, changed = build_settings(results_dir)
built = sorted(set(provenance["chapter"]) - {"scorecard"})
unbuilt = unbuilt_pages(Path("."))
display(HTML(f'<div class="admonition warning"><p class="admonition-title">Mixed build</p><p>{notice}</p></div>')
        if notice else Markdown(f"All {len(built)} built pages come from one setting: **{settings}**."))
if unbuilt:
    display(HTML('<div class="admonition warning"><p class="admonition-title">Pages not built</p><p>'
                 f"Not built yet, so absent from this scorecard: {', '.join(unbuilt)}.</p></div>"))
if changed:
    display(HTML('<div class="admonition warning"><p class="admonition-title">Parameters changed</p><p>'
                 "Some pages were built with other values than their defaults: " + "; ".join(changed) + "</p></div>"))
if claims:
    show_table(report.headline_numbers(claims))
    show_table(report.headline_findings(claims))
else:
    display(Markdown("No chapter has registered a claim in this build."))

# %% tags=["remove-input"]
for chapter in sorted({c.chapter for c in claims}):
    display(HTML(report.chapter_details(chapter, [c for c in claims if c.chapter == chapter])))
