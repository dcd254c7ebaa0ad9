sgeuser$ qrstat -u sgeuser2
