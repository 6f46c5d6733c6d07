"""The Your data view: session memo and reads (view), the upload form (panels), column mapping (mapping), and what
the session holds with its canvas sizes and feature windows (held)."""
