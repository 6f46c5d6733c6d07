"""Areas of interest: AOI shapes, fixation-to-AOI mapping and the AOI metrics, clean and private
(docs/PRIVACY_MODEL.md §15)."""
