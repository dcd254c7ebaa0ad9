sgeuser$ qrstat -ar
