"""qsub: its option parsing (parser, values, options), messages and the command (main)."""
