qrstat -help
