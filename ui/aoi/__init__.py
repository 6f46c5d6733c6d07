"""The Areas of interest view: cached wrappers (view), pictures and chart (figs), tables (tables), panels."""
