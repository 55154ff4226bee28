"""User attributes of the simulated world, drawn like the MovieLens 1M users.

Gender is drawn from its marginal and (age band, occupation) jointly from the
cross-table of the 6,040 users of MovieLens 1M (``users.dat``), so that
implausible pairs such as a retired K-12 student stay rare.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias.demographics import ML1M_AGE_BANDS, ML1M_OCCUPATIONS

GENDERS = ("F", "M")
GENDER_COUNTS = (1709, 4331)
AGE_BANDS = tuple(ML1M_AGE_BANDS.values())
OCCUPATIONS = ML1M_OCCUPATIONS
#: users per (age band, occupation) in MovieLens 1M, rows in AGE_BANDS order
AGE_OCCUPATION_COUNTS = np.array(
    [
        [27, 4, 3, 0, 3, 0, 0, 2, 1, 0, 163, 1, 1, 1, 2, 0, 0, 2, 0, 12, 0],
        [106, 45, 44, 18, 534, 18, 9, 17, 1, 6, 29, 7, 59, 0, 37, 14, 18, 52, 10, 30, 49],
        [298, 156, 113, 68, 200, 52, 76, 253, 6, 29, 1, 51, 181, 0, 133, 73, 58, 202, 23, 15, 108],
        [135, 118, 47, 42, 14, 25, 59, 214, 3, 35, 1, 31, 86, 5, 70, 25, 58, 132, 16, 9, 68],
        [66, 80, 30, 17, 3, 10, 31, 74, 1, 11, 0, 17, 32, 7, 26, 17, 38, 57, 9, 2, 22],
        [46, 70, 18, 16, 5, 6, 40, 80, 2, 7, 0, 16, 22, 27, 19, 8, 45, 35, 9, 2, 23],
        [33, 55, 12, 12, 0, 1, 21, 39, 3, 4, 1, 6, 7, 102, 15, 7, 24, 22, 3, 2, 11],
    ]
)  # fmt: skip

#: number of levels of each attribute, in the column order of the code matrix
ATTRIBUTE_LEVELS = (len(GENDERS), len(AGE_BANDS), len(OCCUPATIONS))


def sample_demographics(rng: np.random.Generator, n_users: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Gender, age band and occupation of ``n_users`` users.

    Returns the attribute table (categorical columns ``gender``, ``age``,
    ``occupation``, indexed by user code) and the ``n_users x 3`` matrix of
    level codes in the same column order.
    """
    gender = rng.choice(len(GENDERS), size=n_users, p=np.divide(GENDER_COUNTS, sum(GENDER_COUNTS)))
    joint = AGE_OCCUPATION_COUNTS.ravel() / AGE_OCCUPATION_COUNTS.sum()
    age, occupation = np.divmod(rng.choice(joint.size, size=n_users, p=joint), len(OCCUPATIONS))
    codes = np.column_stack([gender, age, occupation])
    table = pd.DataFrame(
        {
            "gender": pd.Categorical.from_codes(gender, categories=list(GENDERS)),
            "age": pd.Categorical.from_codes(age, categories=list(AGE_BANDS), ordered=True),
            "occupation": pd.Categorical.from_codes(occupation, categories=list(OCCUPATIONS)),
        }
    )
    table.index.name = "user"
    return table, codes
