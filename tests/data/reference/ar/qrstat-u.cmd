sgeuser$ qrstat -u sgeuser
