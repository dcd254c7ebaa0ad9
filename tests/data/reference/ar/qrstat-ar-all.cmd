sgeuser$ qrstat -ar 49
