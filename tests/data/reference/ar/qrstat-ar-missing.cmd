sgeuser$ qrstat -ar 99
