sgeuser$ qrstat -ar 37
