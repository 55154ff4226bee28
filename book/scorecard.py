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
# what the same protocol gives elsewhere rather than a failure. A *finding* is a
# qualitative statement of a paper (or of this book), such as "random 1R precision
# equals $1/t$", checked on whatever dataset the page was built with: it holds or it
# does not, and the evidence says what was measured.
#
# Tolerances of numbers are set per claim from what the paper reports: for a number
# read off a figure, the resolution of the figure; for a number printed with three
# decimals, half a unit of the last decimal; for a simulated quantity, the standard
# error of the simulation. The table below counts the verdicts per chapter; the
# sections after it hold every claim, with a link to the place in the chapter that
# shows it.

# %% tags=["parameters"]
results_dir = "_build/results"  # where the chapters of this build stored their claims

# %% tags=["remove-input"]
from IPython.display import HTML, Markdown, display

from recbias.bookkit import scorecard as report
from recbias.bookkit.tables import show_table

claims = report.load_claims(results_dir)
notice = report.mixed_builds(report.load_provenance(results_dir))
display(HTML(f'<div class="admonition warning"><p class="admonition-title">Mixed build</p><p>{notice}</p></div>')
        if notice else Markdown("All pages of this book come from one dataset and seed."))
if claims:
    counts = report.summary(claims)
    show_table(counts.assign(chapter=[report.chapter_title(c) for c in counts["chapter"]]))
else:
    display(Markdown("No chapter has registered a claim in this build."))

# %% tags=["remove-input"]
for chapter in sorted({c.chapter for c in claims}):
    chapter_claims = [c for c in claims if c.chapter == chapter]
    counts = report.summary(chapter_claims).iloc[0]
    display(HTML(f"<details><summary><b>{report.chapter_title(chapter)}</b>: {counts['findings hold']} of "
                 f"{counts['findings hold'] + counts['findings fail']} findings hold, "
                 f"{counts['numbers agree']} numbers agree, {counts['numbers differ']} differ, "
                 f"{counts['numbers not comparable']} not comparable</summary>"
                 + report.details_html(chapter_claims) + "</details>"))
