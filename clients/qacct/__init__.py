"""qacct: its command line (options) and the command (main)."""
