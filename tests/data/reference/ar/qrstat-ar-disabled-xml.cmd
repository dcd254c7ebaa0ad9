sgeuser$ qrstat -ar 52 -xml
