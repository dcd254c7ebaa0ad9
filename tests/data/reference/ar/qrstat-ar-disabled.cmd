sgeuser$ qrstat -ar 50
