"""Static facts about every dataset: files, pinned checksums, licence, citation.

Nothing here touches the disk or the network, so :func:`recbias.datasets.info`
answers instantly.  Pins come from the official archives' published sha256
values and from the per-file checksums of the verified local copies.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

#: official base URL of the GroupLens archives; ``RECBIAS_DATA_URL`` replaces it
GROUPLENS_URL = "https://files.grouplens.org/datasets"


def dataset_label(name: str) -> str:
    """How the book names a dataset to its readers: ``csv:PATH`` by the file's name, never its directories
    (which would be long, and would leak the reader's folders into a page they share); others by their name."""
    return f"csv:{Path(name.removeprefix('csv:')).name}" if name.startswith("csv:") else name


@dataclass(frozen=True)
class FileSet:
    """Where a dataset's files live and what their bytes must hash to.

    Attributes:
        folder: folder name of the extracted files under the data directory.
        pins: sha256 of every file the loader reads, keyed by file name; ``None`` where no
            per-file checksum is published, so the file is read only from the official
            archive, whose own checksum is verified (:attr:`archive_only`).
        archive: file name of the official archive, or ``None`` when there is none.
        archive_sha256: pinned sha256 of that archive.
        url_path: path of the archive below the base download URL (or a full URL for
            archives hosted elsewhere), or ``None`` when it cannot be downloaded with a
            pinned checksum.
    """

    folder: str
    pins: Mapping[str, str | None]
    archive: str | None = None
    archive_sha256: str | None = None
    url_path: str | None = None

    @property
    def archive_only(self) -> bool:
        """Whether some file has no pin of its own: then only the verified archive is read."""
        return any(pin is None for pin in self.pins.values())


@dataclass(frozen=True)
class DatasetInfo:
    """What :func:`recbias.datasets.info` reports without loading anything.

    ``positive_threshold`` is the default relevance threshold (a rating, or a
    relevance grade for test collections; ``None`` when it depends on the file);
    ``files`` is ``None`` for generated data and user files.
    """

    name: str
    title: str
    description: str
    licence: str
    citation: str
    url: str
    paper_usage: str
    positive_threshold: float | None
    files: FileSet | None = None


_MOVIELENS_CITATION = (
    "F. Maxwell Harper and Joseph A. Konstan. 2015. The MovieLens Datasets: History and Context. "
    "ACM Transactions on Interactive Intelligent Systems 5(4), Article 19. https://doi.org/10.1145/2827872"
)
_MOVIELENS_NO_REDISTRIBUTION = (
    "GroupLens research licence: research use only; acknowledge the data set in publications; "
    "no redistribution without separate permission; no commercial use; no implied endorsement."
)

#: what the simulated worlds say about themselves, in the registry and on their cards
SYNTHETIC_DESCRIPTION = (
    "simulated 1-5 star rating of a movie-like item, observed missing not at random; the complete true "
    "relevance is known"
)
#: the same for the presets drawn without the complete truth (recbias.synthetic.OBSERVED_ONLY)
OBSERVED_ONLY_DESCRIPTION = (
    "simulated 1-5 star rating of a movie-like item, observed at random given the users' activity and the "
    "items' popularity; no complete true relevance (drawn without it, like a real dataset)"
)
SYNTHETIC_LICENCE = "CC0 1.0 (generated data)"
SYNTHETIC_CITATION = (
    "The recbias authors. recbias, module recbias.synthetic; popularity follows the shifted power law "
    "of Bellogín, Castells and Cantador (2017)."
)


def _simulated(name: str, title: str, paper_usage: str, truth: bool = True) -> DatasetInfo:
    """The registry entry of a preset of :mod:`recbias.synthetic` (``truth``: with the complete truth)."""
    return DatasetInfo(
        name=name,
        title=f"Simulated ratings {'with known true relevance' if truth else 'without the truth'} ({title})",
        description=SYNTHETIC_DESCRIPTION if truth else OBSERVED_ONLY_DESCRIPTION,
        licence=SYNTHETIC_LICENCE,
        citation=SYNTHETIC_CITATION,
        url="(generated offline)",
        paper_usage=paper_usage,
        positive_threshold=5.0,
    )


DATASETS: dict[str, DatasetInfo] = {
    "synthetic": _simulated(
        "synthetic",
        "default preset: MovieLens 100K scale, ML-1M density",
        "The shifted power-law popularity simulation of Bellogín et al. (2017, Section 5.2) and "
        "Bellogín (2012, Section 4.5.2), extended with a known ground truth.",
    ),
    "synthetic-small": _simulated(
        "synthetic-small",
        "small preset for tests and quick builds",
        "A fast stand-in for 'synthetic' in tests and draft builds.",
    ),
    "synthetic-ml1m": _simulated(
        "synthetic-ml1m",
        "MovieLens 1M shape: 6,040 users, 3,706 items",
        "The users, items, ratings and rating histogram of ML-1M, the papers' dataset, for measuring the book "
        "at the papers' scale without the archive.",
    ),
    "synthetic-ml10m": _simulated(
        "synthetic-ml10m",
        "MovieLens 10M shape: 69,878 users, 10,677 items, observed ratings only",
        "The users, items and ratings of ML-10M, for measuring how the book's experiments scale; drawn without "
        "the complete truth, which would not fit in memory.",
        truth=False,
    ),
    "synthetic-ml20m": _simulated(
        "synthetic-ml20m",
        "MovieLens 20M shape: 138,493 users, 26,744 items, observed ratings only",
        "The users, items and ratings of ML-20M, for measuring how the book's experiments scale; drawn without "
        "the complete truth, which would not fit in memory.",
        truth=False,
    ),
    "ml-100k": DatasetInfo(
        name="ml-100k",
        title="MovieLens 100K (1998)",
        description="1-5 star rating of a movie by a MovieLens user, Sept. 1997 to April 1998, with timestamp",
        licence=_MOVIELENS_NO_REDISTRIBUTION,
        citation=_MOVIELENS_CITATION,
        url=f"{GROUPLENS_URL}/movielens/ml-100k.zip",
        paper_usage="Not used by the papers; the smaller MovieLens release with the same 1-5 scale and "
        "threshold as ML-1M, available offline as its stand-in.",
        positive_threshold=5.0,
        files=FileSet(
            folder="ml-100k",
            pins={
                "u.data": "06416e597f82b7342361e41163890c81036900f418ad91315590814211dca490",
                "u.user": "f120e114da2e8cf314fd28f99417c94ae9ddf1cb6db8ce0e4b5995d40e90e62c",
                "u.item": "553841ebc7de3a0fd0d6b62a204ea30c1e651aacfb2814c7a6584ac52f2c5701",
                "u.genre": "9757e0d3e6b298159a80dd48eaf938114690e911e39af97a76949ef1663610bb",
            },
            archive="ml-100k.zip",
            archive_sha256="50d2a982c66986937beb9ffb3aa76efe955bf3d5c6b761f4e3a7cd717c6a3229",
            url_path="movielens/ml-100k.zip",
        ),
    ),
    "ml-1m": DatasetInfo(
        name="ml-1m",
        title="MovieLens 1M (2003)",
        description="1-5 star rating of a movie by a MovieLens user who joined in 2000, with timestamp",
        licence=_MOVIELENS_NO_REDISTRIBUTION,
        citation=_MOVIELENS_CITATION,
        url=f"{GROUPLENS_URL}/movielens/ml-1m.zip",
        paper_usage="Main dataset of Bellogín et al. (2017) and Bellogín (2012, ch. 4): random 80/20 splits, "
        "relevant = 5 stars; also of Krichene and Rendle (2020): binarised, last event held out.",
        positive_threshold=5.0,
        files=FileSet(
            folder="ml-1m",
            pins={
                "ratings.dat": "506d64ca44484487c11dc2d9a28de5c54948213e6b96285e298afe28d6ea4e0f",
                "users.dat": "1dc3a95300cb19f7c10e027daf29b8cdf1d908dab65b5edfb45950aa389a10a3",
                "movies.dat": "0140fc2356357c1a851d0f52e893a1e4d3696df632c4141cea8d5bc3d621f0b9",
            },
            archive="ml-1m.zip",
            archive_sha256="a6898adb50b9ca05aa231689da44c217cb524e7ebd39d264c56e2832f2c54e20",
            url_path="movielens/ml-1m.zip",
        ),
    ),
    "ml-latest-small": DatasetInfo(
        name="ml-latest-small",
        title="MovieLens latest small (generated 2018-09-26)",
        description="0.5-5 star rating in half-star steps of a movie by a MovieLens user, 1996 to 2018, "
        "with timestamp",
        licence="GroupLens research licence: research use only; cite in publications; redistribution "
        "allowed under the same terms; no commercial use. A development release that may change.",
        citation=_MOVIELENS_CITATION,
        url=f"{GROUPLENS_URL}/movielens/ml-latest-small.zip",
        paper_usage="Not used by the papers; a redistributable MovieLens sample with a finer rating scale.",
        positive_threshold=5.0,
        files=FileSet(
            folder="ml-latest-small",
            pins={
                "ratings.csv": "aa289ca83157595d0df6aea1be6a4ded676ddc4385472e8313a8ed9805352646",
                "movies.csv": "5a5f32dd9bb3797b8e728a1b98958789d2b13f294a69fdfbc5727f8a9611aa07",
            },
            archive="ml-latest-small.zip",
            archive_sha256="696d65a3dfceac7c45750ad32df2c259311949efec81f0f144fdfb91ebc9e436",
            url_path="movielens/ml-latest-small.zip",
        ),
    ),
    "ml-10m": DatasetInfo(
        name="ml-10m",
        title="MovieLens 10M (2009)",
        description="0.5-5 star rating in half-star steps of a movie by a MovieLens user, 1995 to 2009, "
        "with timestamp",
        licence=_MOVIELENS_NO_REDISTRIBUTION,
        citation=_MOVIELENS_CITATION,
        url=f"{GROUPLENS_URL}/movielens/ml-10m.zip",
        paper_usage="Not used by the papers; a larger MovieLens release (10 million ratings) for rerunning "
        "chapters beyond the papers' scale.",
        positive_threshold=5.0,
        files=FileSet(
            folder="ml-10M100K",
            # GroupLens publishes the archive's checksum (md5 ce571fd55effeba0271552578f2648bd, 65,566,137 bytes),
            # not its members': they are read from the verified archive only
            pins={"ratings.dat": None, "movies.dat": None},
            archive="ml-10m.zip",
            archive_sha256="813c411ccb6122564edfe752e7f80c4dcc5aa25fa94c93622f6877a7ba252862",
            url_path="movielens/ml-10m.zip",
        ),
    ),
    "ml-20m": DatasetInfo(
        name="ml-20m",
        title="MovieLens 20M (2015)",
        description="0.5-5 star rating in half-star steps of a movie by a MovieLens user, 1995 to 2015, "
        "with timestamp",
        licence=_MOVIELENS_NO_REDISTRIBUTION,
        citation=_MOVIELENS_CITATION,
        url=f"{GROUPLENS_URL}/movielens/ml-20m.zip",
        paper_usage="Not used by the papers; the stable 20-million-rating MovieLens benchmark, for rerunning "
        "chapters far beyond the papers' scale.",
        positive_threshold=5.0,
        files=FileSet(
            folder="ml-20m",
            # the archive's published checksum (md5 cd245b17a1ae2cc31bb14903e1204af3) covers its members
            pins={"ratings.csv": None, "movies.csv": None},
            archive="ml-20m.zip",
            archive_sha256="96f243c338a8665f6bcc89c53edf6ee39162a846940de6b7c8c48aeada765ff3",
            url_path="movielens/ml-20m.zip",
        ),
    ),
    "lastfm-2k": DatasetInfo(
        name="lastfm-2k",
        title="HetRec 2011 Last.fm 2K",
        description="total number of plays of an artist by a Last.fm user (implicit feedback; no timestamps, "
        "so temporal splits do not apply)",
        licence="HetRec 2011 release: non-commercial use only; commercial use needs Last.fm's permission.",
        citation="Iván Cantador, Peter Brusilovsky and Tsvi Kuflik. 2011. 2nd Workshop on Information "
        "Heterogeneity and Fusion in Recommender Systems (HetRec 2011). In Proceedings of the 5th ACM "
        "Conference on Recommender Systems (RecSys 2011). Data: Last.fm, http://www.last.fm",
        url=f"{GROUPLENS_URL}/hetrec2011/hetrec2011-lastfm-2k.zip",
        paper_usage="Stand-in for the Last.fm play counts of Celma (about 1,000 users, aggregated by artist) "
        "used by Bellogín et al. (2017), with the same rule: more than 2 plays is a positive judgment.",
        positive_threshold=3.0,
        files=FileSet(
            folder="hetrec2011-lastfm-2k",
            pins={
                "user_artists.dat": "001400dc3c7d2667fca6e4ea6dc6acc31a9dd28ad5cd0f74cea988c019934d3b",
                "artists.dat": "c173881362c6b28551368fecb3c0be5a6a30a6cd859e1f5775413dfe46d48648",
            },
            archive="hetrec2011-lastfm-2k.zip",
            archive_sha256="6738f48195667ff03caaab4d32ca9a3133d8cc026b7c3cdaf6ce1010e913c59c",
            url_path="hetrec2011/hetrec2011-lastfm-2k.zip",
        ),
    ),
    "coat": DatasetInfo(
        name="coat",
        title="Coat shopping (Schnabel et al., 2016): self-selected and random-item ratings",
        description="1-5 star rating of a coat that the user chose to rate (missing not at random)",
        licence="Published by the authors for research use; cite Schnabel et al. (2016).",
        citation="Tobias Schnabel, Adith Swaminathan, Ashudeep Singh, Navin Chandak and Thorsten Joachims. "
        "2016. Recommendations as Treatments: Debiasing Learning and Evaluation. In Proceedings of the 33rd "
        "International Conference on Machine Learning (ICML 2016), PMLR 48, 1670-1679.",
        url="https://www.cs.cornell.edu/~schnabts/mnar/coat.zip",
        paper_usage="Not used by the papers; the one small public dataset with both self-selected ratings and "
        "ratings of uniformly random items from the same users, so an unbiased test sample exists.",
        positive_threshold=4.0,
        files=FileSet(
            folder="coat",
            pins={
                "train.ascii": "a87bd9e7eaf3b89f976df3f25d4aa5d5d871be8a00b58947df9e6e015559bd37",
                "test.ascii": "de6714ab105a5e0be8166be7fd313901b29f9a09c3bea307901457d1d71847e6",
                "user_item_features/user_features.ascii": (
                    "d8f9531b601c54a7272602f8b21fa6cb4652cbf122e35d8615ea9645ebbf1b1f"
                ),
                "user_item_features/user_features_map.txt": (
                    "3b8c825ad4445d4a46a400629c5fb43c805ff5a7982b2e436b69e7262c8a013a"
                ),
                "user_item_features/item_features.ascii": (
                    "edea8217ec5606779b4d3bf819f7591dc63bcd5194d619e8048c2322d07630b1"
                ),
                "user_item_features/item_features_map.txt": (
                    "2675dfaa38b89a9cbb1997f0cfcd46ed7e0e366dc515d12d95508d1f356e5d25"
                ),
            },
            archive="coat.zip",
            # the official zip's sha256 as pinned by third-party download code
            archive_sha256="6073d0b515ed1f6e830e4fead66dc76ad7991a7553eaa58e228b234a9d19daed",
            url_path="https://www.cs.cornell.edu/~schnabts/mnar/coat.zip",
        ),
    ),
}

QRELS: dict[str, DatasetInfo] = {
    "cranfield": DatasetInfo(
        name="cranfield",
        title="Cranfield 1400 relevance judgments (cranqrel)",
        description="graded judgment of a document for one of 225 aeronautics queries",
        licence="No licence statement; distributed freely for research by the University of Glasgow IR group.",
        citation="Cyril W. Cleverdon. 1967. The Cranfield tests on index language devices. "
        "Aslib Proceedings 19(6), 173-194.",
        url="http://ir.dcs.gla.ac.uk/resources/test_collections/cran/",
        paper_usage="The Cranfield paradigm that Bellogín (2012, Table 4.1) maps onto recommender evaluation.",
        positive_threshold=1.0,
        files=FileSet(
            folder="cranfield",
            pins={"cranqrel": "92e54b58dac0b980152178f350d892fae66c8a239b8a11715b835fb8d2f6bc0e"},
        ),
    ),
    "trec8-adhoc": DatasetInfo(
        name="trec8-adhoc",
        title="TREC-8 ad hoc relevance judgments, topics 401-450",
        description="binary pooled judgment of a document for one of 50 TREC-8 ad hoc topics",
        licence="No licence text; published by NIST on the TREC website for research use.",
        citation="Ellen M. Voorhees and Donna Harman. 1999. Overview of the Eighth Text REtrieval "
        "Conference (TREC-8). NIST Special Publication 500-246.",
        url="https://trec.nist.gov/data/qrels_eng/qrels.trec8.adhoc.parts1-5.tar.gz",
        paper_usage="Pooled IR judgments, whose flat spread over documents Bellogín et al. (2017, "
        "Section 5.3) contrast with the long tail of recommender data.",
        positive_threshold=1.0,
        files=FileSet(
            folder="trec8-adhoc-qrels",
            pins={"qrels.adhoc.401-450.txt": "a3d75289c760e7f4052d8bd7d02953734d937a0208b7e2f5ad0f6155ab837e8c"},
        ),
    ),
}
