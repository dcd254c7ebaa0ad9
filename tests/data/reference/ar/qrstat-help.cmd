sgeuser$ qrstat -help
