"""Batch releases at scale (docs/PRIVACY_MODEL.md §6.8, README "Scaling out"): the Heatmaps page's private release run
over sharded fixation files on an embedded streaming engine (numpy + OpenDP) or on PipelineDP (local or Spark).

`settings` holds the release settings shared with the app, `sources` reads and checks the shards, `engines` the
three engines, `outputs` the files written and `cli` the command line (`python -m eyedp_core.batch heatmap ...`).
"""
