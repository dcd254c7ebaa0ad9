sgeuser$ qrstat -ar 26
