"""The one registry of mechanism names: each mechanism's key, its noise family, view, unit and plain words.

Code compares `Mech`, `Family`, `GaussianMethod` and `SelectionMethod` members, never free strings;
`Mech("CFPA")` parses a stored name (once, where a widget, URL or file hands in text) and
`Mech.parse("CFPA-32")` splits the chunked labels the pages use. The members are `StrEnum`s, so a member
prints, formats and serialises as its stored name and links and settings keep their values.
docs/PRIVACY_MODEL.md names the neighbouring relation of each unit.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Family", "GaussianMethod", "Mech", "MechInfo", "SelectionMethod", "TIME_SERIES", "HEATMAP"]


class Family(StrEnum):
    """The noise law a mechanism draws from."""

    LAPLACE = "laplace"
    GAUSSIAN = "gaussian"
    EXPONENTIAL = "exponential"  # exponential mechanism (private selection)
    PLANAR_LAPLACE = "planar-laplace"
    NONE = "none"  # not a noise mechanism (k-anonymity and other syntactic methods)


class GaussianMethod(StrEnum):
    """How a Gaussian σ is calibrated (docs/PRIVACY_MODEL.md §0.1, §6.2)."""

    ANALYTIC = "analytic"  # Balle–Wang: the smallest σ, exact for every ε > 0
    CLASSICAL = "classical"  # Dwork–Roth Thm A.1: proven for ε < 1 only
    LIU_THM_34 = "liu-thm-3.4"  # Liu et al. Thm 3.4, as in the paper: (ε, δ)-DP only when r >= r*


class SelectionMethod(StrEnum):
    """How a private choice among public candidates is drawn (docs/PRIVACY_MODEL.md §6.5)."""

    EXPONENTIAL = "exponential"  # the exponential mechanism (Gumbel noisy max)
    REPORT_NOISY_MIN = "report-noisy-min"  # exponential noise, pure-DP noisy min


@dataclass(frozen=True)
class MechInfo:
    """What the registry knows about one mechanism."""

    family: Family
    view: str
    unit: str
    words: str
    paper: str
    chunked: bool = False
    is_dp: bool = True


class Mech(StrEnum):
    """Every mechanism EyeDP runs or shows, by its stored name."""

    LPA = "LPA"
    FPA = "FPA"
    CFPA = "CFPA"
    DCFPA = "DCFPA"
    STEIL = "Steil"
    STEIL_PUBLISHED = "Steil (published)"
    HEATMAP_GAUSSIAN = "heatmap Gaussian"
    HEATMAP_LAPLACE = "heatmap Laplace"
    CAP_SELECTION = "private choice of m"
    KALEIDO = "Kaleido"
    K_ANONYMITY = "k-anonymity"
    K_SAME_SYNTH = "k-same-synth"
    EVENT_SYNTH_PD = "event-synth-PD"
    EVENT_SYNTH_PD_RANDOMISED = "event-synth-PD (randomised threshold)"

    @property
    def info(self) -> MechInfo:
        """The registry row of this mechanism."""
        return _TABLE[self]

    @property
    def family(self) -> Family:
        """The noise family of this mechanism."""
        return _TABLE[self].family

    @property
    def words(self) -> str:
        """What the mechanism does, in plain words (acronym second)."""
        return _TABLE[self].words

    def label(self, chunk: int | None = None) -> str:
        """Chunk size in, the page label out ("CFPA-32" for chunked mechanisms, the name otherwise)."""
        return f"{self.value}-{int(chunk)}" if self.info.chunked and chunk else self.value

    @classmethod
    def parse(cls, label: str) -> tuple["Mech", int | None]:
        """A label such as "LPA", "FPA" or "CFPA-32" in, (mechanism, chunk size or None) out."""
        name, _, size = str(label).strip().partition("-")
        try:
            mech = cls(name)
        except ValueError:
            known = ", ".join(m.value for m in TIME_SERIES)
            raise ValueError(f"unknown mechanism {label!r}; time-series mechanisms are {known} "
                             "(chunked ones as CFPA-32, DCFPA-64, ...)") from None
        if mech.info.chunked:
            if not size.isdigit() or int(size) < 2:
                raise ValueError(f"{label!r}: a chunked mechanism needs a chunk size >= 2, e.g. {name}-32")
            return mech, int(size)
        if size:
            raise ValueError(f"{label!r}: {name} takes no chunk size")
        return mech, None


_TABLE: dict[Mech, MechInfo] = {
    Mech.LPA: MechInfo(Family.LAPLACE, "Time series", "participant",
                       "adds Laplace noise to every sample of the series", "Bozkir et al."),
    Mech.FPA: MechInfo(Family.LAPLACE, "Time series", "participant",
                       "keeps the first k Fourier coefficients of the whole series and adds noise to them",
                       "Bozkir et al."),
    Mech.CFPA: MechInfo(Family.LAPLACE, "Time series", "participant",
                        "cuts the series into chunks and adds noise to the first k Fourier coefficients of each",
                        "Bozkir et al.", chunked=True),
    Mech.DCFPA: MechInfo(Family.LAPLACE, "Time series", "participant",
                         "like the chunked Fourier mechanism, but on the differences between samples",
                         "Bozkir et al.", chunked=True),
    Mech.STEIL: MechInfo(Family.LAPLACE, "Time series", "participant",
                         "subsamples each feature and adds Laplace noise with public bounds", "Steil et al."),
    Mech.STEIL_PUBLISHED: MechInfo(Family.EXPONENTIAL, "Time series", "participant",
                                   "the published exponential-mechanism sampler (not differentially private)",
                                   "Steil et al.", is_dp=False),
    Mech.HEATMAP_GAUSSIAN: MechInfo(Family.GAUSSIAN, "Heatmaps", "observer",
                                    "adds Gaussian noise to every cell of the averaged, capped gaze map",
                                    "Liu et al."),
    Mech.HEATMAP_LAPLACE: MechInfo(Family.LAPLACE, "Heatmaps", "observer",
                                   "adds Laplace noise to every cell of the averaged, capped gaze map", "Liu et al."),
    Mech.CAP_SELECTION: MechInfo(Family.EXPONENTIAL, "Heatmaps", "observer",
                                 "chooses the per-observer cap m privately from a public list of candidates",
                                 "Liu et al."),
    Mech.KALEIDO: MechInfo(Family.PLANAR_LAPLACE, "Gaze samples", "w-event",
                           "moves each gaze sample by planar Laplace noise, with a budget per window of samples",
                           "David-John et al."),
    Mech.K_ANONYMITY: MechInfo(Family.NONE, "Gaze samples", "record",
                               "generalises demographics so every combination is shared by at least k people",
                               "David-John et al.", is_dp=False),
    Mech.K_SAME_SYNTH: MechInfo(Family.NONE, "Gaze samples", "record",
                                "replaces each person's event parameters by those of a group of at least k",
                                "David-John et al.", is_dp=False),
    Mech.EVENT_SYNTH_PD: MechInfo(Family.NONE, "Gaze samples", "event",
                                  "re-draws each fixation until enough other people could have produced it "
                                  "(plausible deniability as published; not differentially private)",
                                  "David-John et al.", is_dp=False),
    Mech.EVENT_SYNTH_PD_RANDOMISED: MechInfo(Family.LAPLACE, "Gaze samples", "event",
                                             "re-draws each fixation once and publishes it only if enough other "
                                             "people pass a noisy threshold (not differentially private as "
                                             "implemented: each record keeps its seed's participant and time)",
                                             "Bindschaedler et al.; David-John et al.", is_dp=False),
}

TIME_SERIES: tuple[Mech, ...] = (Mech.LPA, Mech.FPA, Mech.CFPA, Mech.DCFPA)
HEATMAP: tuple[Mech, ...] = (Mech.HEATMAP_GAUSSIAN, Mech.HEATMAP_LAPLACE)
