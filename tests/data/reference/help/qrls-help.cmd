qrls -help
