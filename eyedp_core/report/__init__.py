"""The review-board report: every section an ethics board needs, as self-contained HTML."""
