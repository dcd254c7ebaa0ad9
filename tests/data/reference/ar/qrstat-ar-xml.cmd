sgeuser$ qrstat -ar 1 -xml
