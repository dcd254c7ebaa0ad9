"""qconf: one module per group of options (base, files, attr, complex, userset, help) and the command (main)."""
