"""The Gaze-samples page's protection methods: the registry member each one is, the label the page shows for it
(what the method picker and its share links store) and its colour in every figure."""
from __future__ import annotations

from eyedp_core.dp.registry import Mech
from ui import theme

# The picker's order; the labels are what settings files and share links hold for `gs_show`.
METHOD_LABELS: dict[Mech, str] = {
    Mech.KALEIDO: "Kaleido",
    Mech.K_SAME_SYNTH: "k-same-synth",
    Mech.EVENT_SYNTH_PD: "PD (as published)",
    Mech.EVENT_SYNTH_PD_RANDOMISED: "PD (randomised threshold)",
}
PICKER_LABELS = tuple(METHOD_LABELS.values())  # the picker's options, in order
_BY_LABEL = {label: mech for mech, label in METHOD_LABELS.items()}

ORIGINAL_COLOR = theme.CLEAN
METHOD_COLORS: dict[Mech, str] = {
    Mech.KALEIDO: theme.CATEGORY[1],
    Mech.K_SAME_SYNTH: theme.CATEGORY[2],
    Mech.EVENT_SYNTH_PD: theme.CATEGORY[4],
    Mech.EVENT_SYNTH_PD_RANDOMISED: theme.CATEGORY[3],
}


def method_of(label: str) -> Mech:
    """The picker's label -> the registry member it runs (KeyError for a label the page never offered)."""
    return _BY_LABEL[label]
