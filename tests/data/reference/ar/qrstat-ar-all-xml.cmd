sgeuser$ qrstat -ar 49 -xml
