"""qrsh, qlogin and qsh (qrsh(1)): interactive jobs over the builtin transport."""
