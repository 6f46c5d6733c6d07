"""The names eyedp_core.io re-exports from eyedp_core.io.uploads, in one light module: the package lists them
without importing uploads (and pandas), and uploads.__all__ is this list."""

UPLOADS = (
    "DataError", "DataWarning", "Role", "Reader", "ROLES", "KINDS", "READERS", "WHOLE_FILE", "TIME_UNITS",
    "TIME_UNIT_KEY", "FEATURES_KEY", "LABELS_KEY", "UNITS_KEY", "Y_UP_KEY", "UNITS", "UNIT_LABELS", "Geometry", "PRESETS",
    "DEFAULT_MIN_CONFIDENCE", "MAX_UPLOAD_BYTES", "MAX_UNPACKED_BYTES", "MAX_LINE_BYTES", "MAX_ROWS", "MAX_COLUMNS",
    "MAX_IMAGE_PIXELS", "MAX_IMAGE_SIDE", "MIN_LENGTH_RATIO", "WEB_LIMITS",
    "read_table", "guess_mapping", "guess_notes", "guess_time_unit", "apply_mapping", "check_in_bounds", "fit_to_canvas",
    "ON_SCREEN_TOLERANCE",
    "check_lengths", "load_image", "to_csv_bytes", "register_reader", "detect_reader", "row_numbers",
    "peek_format",
)
