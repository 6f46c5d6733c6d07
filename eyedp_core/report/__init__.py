"""The review-board report: every section an ethics board needs, as one self-contained HTML page."""
from eyedp_core.report.html import SECTIONS, Artefact, ReportInput, build_html, epsilon_reading
from eyedp_core.report.tables import person_table, releases_table

__all__ = ["SECTIONS", "Artefact", "ReportInput", "build_html", "epsilon_reading", "person_table", "releases_table"]
