"""Auditing the mechanisms: draws on two worst-case neighbours and a Clopper–Pearson lower bound ε̂ on the privacy
loss beside the claimed ε (docs/PRIVACY_MODEL.md §18). A lower bound can reveal a bug, never certify a guarantee."""
