sgeuser$ qrstat -zz
