qrsh -help
