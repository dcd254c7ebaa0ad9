sgeuser$ qrstat -xml -ar 47
