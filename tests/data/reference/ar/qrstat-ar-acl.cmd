sgeuser2$ qrstat -ar 36
