sgeuser$ qrstat -ar 49,99
