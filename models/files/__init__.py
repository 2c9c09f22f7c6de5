"""Model files: the JSON layer shared by every kind (size caps, duplicate keys, JSON Schema with
JSON-path errors, atomic writes) and one reader/writer per model kind."""
