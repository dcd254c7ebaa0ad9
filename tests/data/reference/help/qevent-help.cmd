qevent -help
