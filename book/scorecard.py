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
# Every chapter registers the published numbers it recomputes. This page gathers
# them from the last build: the value in the paper, ours, the tolerance within which
# we call them equal, and a verdict. A number can only be checked on the dataset the
# paper used; on any other dataset the claim is listed as *not comparable*, which is
# not a failure: it shows what the same protocol gives elsewhere. The published online
# book runs on MovieLens 1M, where most of the claims become comparable.
#
# Tolerances are set per claim from what the paper reports: for a number read off a
# figure, the resolution of the figure; for a number printed with three decimals, half
# a unit of the last decimal; for a simulated quantity, the standard error of the
# simulation.

# %% tags=["parameters"]
results_dir = "_build/results"

# %% tags=["remove-input"]
import pandas as pd
from IPython.display import HTML, Markdown, display

from recbias.bookkit import scorecard as report

claims = report.load_claims(results_dir)
counts = report.verdict_counts(claims)
display(
    Markdown(
        f"**{len(claims)} claims** from {len({c.chapter for c in claims})} chapter(s): "
        + ", ".join(f"{n} {verdict}" for verdict, n in counts.items())
        + "."
    )
)

# %% tags=["remove-input"]
COLOURS = {report.AGREES: "#d8f0d8", report.DIFFERS: "#f7d4d4", report.NOT_COMPARABLE: "#eeeeee",
           report.HOLDS: "#d8f0d8", report.FAILS: "#f7d4d4"}


def chapter_table(chapter_claims: list[report.Claim]) -> str:
    """A compact HTML table of one chapter's claims: values carry their dataset."""
    rows = []
    for c in chapter_claims:
        claim = c.key + (f"<br><small>{c.note}</small>" if c.note else "")
        rows.append(
            {
                "source": c.source,
                "claim": claim,
                "paper": f"{c.paper:.4g} <small>({c.paper_dataset})</small>",
                "ours": f"{c.ours:.4g} <small>({c.dataset})</small>",
                "tolerance": f"±{c.tolerance:.2g}",
                "verdict": c.verdict,
            }
        )
    table = pd.DataFrame(rows)
    styled = table.style.hide(axis="index").map(
        lambda verdict: f"background-color: {COLOURS[verdict]}", subset=["verdict"]
    )
    return styled.to_html(escape=False)


if not claims:
    display(Markdown("No chapter has registered a claim in this build."))
for chapter in sorted({c.chapter for c in claims}):
    chapter_claims = [c for c in claims if c.chapter == chapter]
    display(HTML(f'<h3><a href="{chapter}.html">{chapter}</a></h3>' + chapter_table(chapter_claims)))
