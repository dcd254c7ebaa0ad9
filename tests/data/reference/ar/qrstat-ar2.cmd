sgeuser$ qrstat -ar 2
