sgeuser$ qrstat -ar 1
