"""The appendix on datasets: the registry, the papers' use of each dataset, and the cards of those at hand."""

from __future__ import annotations

import pandas as pd

from recbias import datasets
from recbias.bookkit.page import card_html, load_dataset
from recbias.synthetic import OBSERVED_ONLY, PRESETS


def source_link(url: str) -> str:
    """A short link named after the archive, or the text itself when there is nothing to download."""
    return f'<a href="{url}">{url.rsplit("/", 1)[-1]}</a>' if url.startswith("http") else url


def registry_html() -> str:
    """Every registered ratings dataset: what a rating is, when it is positive, whether it loads offline here,
    and its official source."""
    rows = [{"name": name, "what a rating is": info.description,
             "positive when": f"rating >= {info.positive_threshold:g}",
             "available offline here": "yes" if datasets.available(name) else "no",
             "official source": source_link(info.url)}
            for name, info in ((n, datasets.info(n)) for n in datasets.names())]
    return pd.DataFrame(rows).to_html(index=False, border=0, escape=False)


def usage_html() -> str:
    """Every registered ratings dataset with its role in the papers and its licence."""
    rows = [{"name": n, "role in the papers": datasets.info(n).paper_usage, "licence": datasets.info(n).licence}
            for n in datasets.names()]
    return pd.DataFrame(rows).to_html(index=False, border=0)


def dataset_cards(seed: int) -> list[tuple[str, str]]:
    """Per registered dataset, its heading (Markdown) and either its card (HTML) or where it is missing from."""
    shown = []
    for name in datasets.names():
        if name in OBSERVED_ONLY:  # tens of millions of ratings: drawn when a build asks for them, not here
            shown.append((f"### {name}\n\nDrawn on demand ({PRESETS[name]['n_ratings']:,} ratings); its card is "
                          f"shown by the pages built on it.", ""))
        elif datasets.available(name):
            shown.append((f"### {name}", card_html(load_dataset(name, seed))))
        else:
            shown.append((f"### {name}\n\nNot available on the machine that built this page. "
                          f"{datasets.info(name).url}", ""))
    return shown
