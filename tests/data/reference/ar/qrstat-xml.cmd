sgeuser$ qrstat -xml
