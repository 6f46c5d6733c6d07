"""Differential-privacy building blocks: mechanism objects and calibrations, the ledger, OpenDP release, plain-words explanations."""
