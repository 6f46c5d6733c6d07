"""Shareable settings: a schema of the app's settings and their encoding to URL query strings and JSON."""
from eyedp_core.settings.codec import CONFIG_FORMAT, decode_json, decode_query, encode_json, encode_query
from eyedp_core.settings.schema import Schema, Setting

__all__ = ["CONFIG_FORMAT", "Schema", "Setting", "decode_json", "decode_query", "encode_json", "encode_query"]
