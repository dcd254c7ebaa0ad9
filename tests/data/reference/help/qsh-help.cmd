qsh -help
